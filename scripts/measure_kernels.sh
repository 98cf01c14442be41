#!/usr/bin/env bash
# Issue 35's kernel measurements, in one run of this script: collbench-kernels at 64 MiB
# and at the first power of two at least twice the last-level cache (the same size where
# the cache is 32 MiB or less), every dtype x op and memcpy, REPS repetitions; in each,
# this tree with --every-path (the path reduce() takes, then every path the CPU runs with
# ordinary and with streaming stores, then the paired benchmarks the targets are judged
# on) and the BEFORE revision's reduce(), back to back, alternating which goes first.
# BEFORE is built from `git archive` in a temporary directory outside the repository (or
# BEFORE_TREE names a build of it made that way).
# Writes OUTDIR/{after-N.json, before-N.json, machine.txt, metadata.json, SUMMARY.md}
# (scripts/summarize_kernels.py).
#
# Usage: scripts/measure_kernels.sh [OUTDIR]   (default results/kernels)
# Environment: BEFORE (default 5579cb2, the tree before issue 35), BEFORE_TREE, REPS
#   (default 6: one kernel over another in the same repetition moved 0.81-1.01 over 3,
#   as this machine's state moves between benchmarks), MIN_TIME (seconds per benchmark,
#   default 0.2).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/kernels}
before=${BEFORE:-5579cb2}
reps=${REPS:-6}
min_time=${MIN_TIME:-0.2}
kernels=build/harness/collbench-kernels
[ -x "$kernels" ] || { echo "$0: build/ not built; run scripts/setup.sh first" >&2; exit 2; }
[ -e "$out/SUMMARY.md" ] && { echo "$0: $out already holds results; choose another OUTDIR or move it away" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

before_tree=${BEFORE_TREE:-$(scripts/build_revision.sh "$before" "$tmp" collbench-kernels)}
scripts/machine_facts.sh > "$out/machine.txt"

# 64 MiB, and sizes of 9 digits or more: the above-the-cache size where it differs.
filter='/(67108864|[0-9]{9,})$'
run() {  # which rep
  local bin=$kernels extra=(--every-path)
  [ "$1" = before ] && { bin=$before_tree/harness/collbench-kernels; extra=(); }
  "$bin" "${extra[@]}" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
    --benchmark_out="$out/$1-$2.json" --benchmark_out_format=json >/dev/null 2>&1
}
for rep in $(seq 1 "$reps"); do
  if [ $((rep % 2)) = 1 ]; then run before "$rep"; run after "$rep"; else run after "$rep"; run before "$rep"; fi
  echo "repetition $rep of $reps done" >&2
done
${PYTHON:-python3} - "$out/metadata.json" "$before" "$(git rev-parse HEAD)" "$reps" "$min_time" "$filter" <<'PY'
import json, sys
_, path, before, after, reps, min_time, flt = sys.argv
json.dump({"before": before, "after": after, "repetitions": int(reps), "min_time": min_time,
           "after_command": f"build/harness/collbench-kernels --every-path --benchmark_filter='{flt}' "
                            f"--benchmark_min_time={min_time}",
           "before_command": f"BEFORE/harness/collbench-kernels --benchmark_filter='{flt}' --benchmark_min_time={min_time}",
           "order": "per repetition both trees back to back, before first in odd repetitions"},
          open(path, "w"), indent=1)
PY
${PYTHON:-python3} scripts/summarize_kernels.py "$out" | tee "$out/SUMMARY.md"
