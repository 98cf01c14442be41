#!/usr/bin/env bash
# Why shared memory has two modes here: whether the two CPUs the ranks run on share a
# cache, launch by launch. Each of LAUNCHES turns measures the CPUs
# (collbench-core-handoff: a cache line handed back and forth, and the f32 sum stored
# over 256 KiB and 2 MiB the other CPU has just read, against a buffer nobody read), then
# runs allreduce ring, recursive doubling and tree at 256 KiB and 4 MiB on 2 ranks over
# UCX shared memory (one round), then measures the CPUs again. SUMMARY.md sets the
# launches whose CPUs shared a cache before and after beside those whose CPUs did not:
# what a reduction into bytes a peer read costs (the model's rewrite cost,
# collectives/cost_model/README.md), and each algorithm's time. Writes
# results/core-placement/ (or $1).
# Environment: BUILD (build), LAUNCHES (40), PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/core-placement}
build=${BUILD:-build}
bin=$PWD/$build/harness/collbench handoff=$PWD/$build/harness/collbench-core-handoff
launches=${LAUNCHES:-40}
for b in "$bin" "$handoff"; do
  [ -x "$b" ] || { echo "measure_core_placement: no $b; build first (scripts/setup.sh)" >&2; exit 2; }
done
[[ $launches =~ ^[1-9][0-9]*$ ]] ||
  { echo "measure_core_placement: LAUNCHES must be a whole number of at least 1, not '$launches'" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "measure_core_placement: needs 2 CPUs, this machine has $(nproc)" >&2; exit 2; }
source scripts/emulated_runs.sh
fresh_raw "$out"
for i in $(seq "$launches"); do
  placed_between "$raw/launch-$i-before.txt" "$raw/launch-$i-after.txt" \
    env COLLBENCH_INTERCONNECT=ucx-shm /usr/bin/mpiexec.mpich -n 2 "$bin" run -c allreduce \
    -a ring,recursive_doubling,tree -b 256K -e 4M -f 16 --rounds 1 --time-budget 0.3 \
    --csv "$raw/launch-$i.csv" --json "$raw/launch-$i.json" </dev/null >/dev/null 2>&1 ||
    { echo "measure_core_placement: launch $i failed (see $raw/launch-$i.json)" >&2; exit 1; }
  [ -e "$raw/launch-$i-after.txt" ] ||
    { echo "measure_core_placement: $handoff failed around launch $i" >&2; exit 1; }
done
${PYTHON:-python3} scripts/summarize_core_placement.py "$out" "$launches"
echo "measure_core_placement: wrote $out"
