#!/usr/bin/env bash
# Issue 15's measurements, in one run of this script:
#  1. kernels: collbench-kernels at 64 MiB (every dtype x op and memcpy, repetitions
#     randomly interleaved), this tree and the BEFORE revision;
#  2. allreduce at 2 ranks, 8 B to 64 MiB, every algorithm, before and after: per
#     repetition the BEFORE build and this tree run the same sweep back to back
#     (alternating which goes first), 3 interleaved rounds each;
#  3. per repetition, this tree again at 256 KiB to 4 MiB with the ring bound (--bound)
#     measured in the same rounds, once over each transport (--transport mpi, shm),
#     apart from 2., whose comparison the probes would disturb (interleaved, they
#     slowed the next algorithm's 8-byte calls by ~0.15 us).
# BEFORE is built from `git archive` in a temporary directory outside the repository
# (or BEFORE_TREE names a build of it made that way).
# Writes OUTDIR/{kernels-*.json, sweep-*.csv, sweep-*.json, machine.txt, metadata.json, SUMMARY.md}
# (scripts/summarize_performance.py).
#
# Usage: scripts/measure_performance.sh [OUTDIR]   (default results/performance)
# Environment: BEFORE (git revision, default eb78367: the tree before issue 15),
#   BEFORE_TREE, REPS (default 3; also the kernels' repetitions), BUDGET (seconds of timed
#   calls per algorithm and size, default 0.3).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/performance}
before=${BEFORE:-eb78367}
reps=${REPS:-3}
budget=${BUDGET:-0.3}
[ -x build/harness/collbench ] || { echo "$0: build/ not built; run scripts/setup.sh first" >&2; exit 2; }
[ -e "$out/SUMMARY.md" ] && { echo "$0: $out already holds results; choose another OUTDIR or move it away" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

before_tree=${BEFORE_TREE:-$(scripts/build_revision.sh "$before" "$tmp" collbench collbench-kernels)}
declare -A tree=([before]="$before_tree" [after]=build)
scripts/machine_facts.sh > "$out/machine.txt"

for which in after before; do
  "${tree[$which]}/harness/collbench-kernels" --benchmark_filter='/67108864$' --benchmark_repetitions="$reps" \
    --benchmark_enable_random_interleaving=true --benchmark_out="$out/kernels-$which.json" \
    --benchmark_out_format=json >/dev/null
done

for rep in $(seq 1 "$reps"); do
  order=(before after)
  [ $((rep % 2)) = 0 ] && order=(after before)
  for which in "${order[@]}"; do
    t=${tree[$which]}
    "$t/mpiexec" --bind-to core -n 2 "$t/harness/collbench" run -c allreduce -b 8 -e 64M --rounds 3 \
      --time-budget "$budget" --csv "$out/sweep-$which-$rep.csv" --json "$out/sweep-$which-$rep.json" >/dev/null
  done
  for transport in mpi shm; do
    build/mpiexec --bind-to core -n 2 build/harness/collbench run -c allreduce -b 256K -e 4M --rounds 3 \
      --time-budget "$budget" --bound --transport "$transport" \
      --csv "$out/bound-$transport-$rep.csv" --json "$out/bound-$transport-$rep.json" >/dev/null
  done
  echo "repetition $rep of $reps done" >&2
done
${PYTHON:-python3} - "$out/metadata.json" "$before" "$(git rev-parse HEAD)" "$reps" "$budget" <<'PY'
import json, sys
json.dump({"before": sys.argv[2], "after": sys.argv[3], "repetitions": int(sys.argv[4]),
           "command": "TREE/mpiexec --bind-to core -n 2 TREE/harness/collbench run -c allreduce -b 8 -e 64M "
                      "--rounds 3 --time-budget " + sys.argv[5],
           "bound_command": "build/mpiexec --bind-to core -n 2 build/harness/collbench run -c allreduce -b 256K "
                            "-e 4M --rounds 3 --time-budget " + sys.argv[5] + " --bound --transport {mpi,shm}",
           "kernels": "collbench-kernels --benchmark_filter='/67108864$' --benchmark_repetitions=" + sys.argv[4] + " "
                      "--benchmark_enable_random_interleaving=true",
           "order": "per repetition both trees back to back, before first in odd repetitions"},
          open(sys.argv[1], "w"), indent=1)
PY
${PYTHON:-python3} scripts/summarize_performance.py "$out" | tee "$out/SUMMARY.md"
