#!/usr/bin/env bash
# Issue 35's allreduce measurements on 2 ranks bound to cores, in one run of this script:
#  1. every algorithm, 8 B to 64 MiB, over --transport mpi and shm: per repetition the
#     BEFORE build and this tree back to back (alternating which goes first);
#  2. this tree, 256 KiB to 64 MiB over shm with --bound: the ring bound and each
#     algorithm's memory-traffic bound, timed in the same rounds;
#  3. ResNet-50 replayed (mpi and ring, DDP buckets, 20 ms of compute a step, so that
#     communication shows) over --transport mpi and shm.
# BEFORE is built from `git archive` outside the repository (scripts/build_revision.sh),
# or BEFORE_TREE names such a build. Writes OUTDIR/{sweep-TREE-TRANSPORT-N.*, bound-N.*,
# replay-TRANSPORT-N.*, cpus-LAUNCH-{before,after}.txt, machine.txt, metadata.json,
# SUMMARY.md} (scripts/summarize_shm.py).
#
# Usage: scripts/measure_shm.sh [OUTDIR]   (default results/shm)
# Environment: BEFORE (default 5579cb2, the tree before issue 35), BEFORE_TREE, REPS
#   (default 10: launches here land in fast or slow states, 0.37 or 1.0 us for an 8-byte
#   MPI_Allreduce, about half each and not by tree; with 3 a side, chance alone had every
#   launch of one tree slow), BUDGET (seconds of timed calls per algorithm and size,
#   default 0.2).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/shm}
before=${BEFORE:-5579cb2}
reps=${REPS:-10}
budget=${BUDGET:-0.2}
for b in build/harness/collbench build/harness/collbench-core-handoff; do
  [ -x "$b" ] || { echo "$0: no $b; run scripts/setup.sh first" >&2; exit 2; }
done
[ -e "$out/SUMMARY.md" ] && { echo "$0: $out already holds results; choose another OUTDIR or move it away" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
before_tree=${BEFORE_TREE:-$(scripts/build_revision.sh "$before" "$tmp" collbench)}
declare -A tree=([before]="$before_tree" [after]=build)
scripts/machine_facts.sh > "$out/machine.txt"

# Every launch between two measurements of whether CPUs 0 and 1 share a cache:
# cpus-NAME-{before,after}.txt.
# shellcheck source=scripts/emulated_runs.sh
source scripts/emulated_runs.sh
handoff=build/harness/collbench-core-handoff
placed() {  # NAME command...
  local name=$1
  shift
  placed_between "$out/cpus-$name-before.txt" "$out/cpus-$name-after.txt" "$@" >/dev/null
}

for rep in $(seq 1 "$reps"); do
  order=(before after)
  [ $((rep % 2)) = 0 ] && order=(after before)
  for transport in mpi shm; do
    for which in "${order[@]}"; do
      t=${tree[$which]}
      placed "sweep-$which-$transport-$rep" "$t/mpiexec" --bind-to core -n 2 "$t/harness/collbench" run -c allreduce \
        -b 8 -e 64M --time-budget "$budget" --transport "$transport" --json "$out/sweep-$which-$transport-$rep.json" \
        --csv "$out/sweep-$which-$transport-$rep.csv"
    done
  done
  placed "bound-$rep" build/mpiexec --bind-to core -n 2 build/harness/collbench run -c allreduce -b 256K -e 64M \
    --time-budget "$budget" --transport shm --bound --json "$out/bound-$rep.json" --csv "$out/bound-$rep.csv"
  for transport in mpi shm; do
    placed "replay-$transport-$rep" build/mpiexec --bind-to core -n 2 build/harness/collbench replay \
      --workload resnet50 --compute-ms 20 -a mpi,ring --steps 5 --warmup 2 --transport "$transport" \
      --json "$out/replay-$transport-$rep.json" --csv "$out/replay-$transport-$rep.csv"
  done
  echo "repetition $rep of $reps done" >&2
done
${PYTHON:-python3} - "$out/metadata.json" "$before" "$(git rev-parse HEAD)" "$reps" "$budget" <<'PY'
import json, sys
_, path, before, after, reps, budget = sys.argv
json.dump({"before": before, "after": after, "repetitions": int(reps),
           "sweep": f"TREE/mpiexec --bind-to core -n 2 TREE/harness/collbench run -c allreduce -b 8 -e 64M "
                    f"--time-budget {budget} --transport {{mpi,shm}}",
           "bound": f"build/mpiexec --bind-to core -n 2 build/harness/collbench run -c allreduce -b 256K -e 64M "
                    f"--time-budget {budget} --transport shm --bound",
           "replay": "build/mpiexec --bind-to core -n 2 build/harness/collbench replay --workload resnet50 "
                     "--compute-ms 20 -a mpi,ring --steps 5 --warmup 2 --transport {mpi,shm}",
           "order": "per repetition and transport both trees back to back, before first in odd repetitions; "
                    "then the bound run and the replays"},
          open(path, "w"), indent=1)
PY
${PYTHON:-python3} scripts/summarize_shm.py "$out" | tee "$out/SUMMARY.md"
