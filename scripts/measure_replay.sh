#!/usr/bin/env bash
# The replays behind the README's workload results (results/replay/ or $1), 2 ranks
# bound to this machine's 2 cores, shared memory:
#  - resnet50, --compute-ms 104 (the issue's ResNet-50 AMP on an A100 at batch 256);
#  - bert-large, sequence 128, --compute-ms 105 (about 6 x 335M x 128 x 64 FLOPs at half
#    an A100's fp16 peak: an assumption, not a measurement);
#  - lm1b, batch 128 x 20, --compute-ms 20 (likewise assumed), every sparse strategy
#    (ps: rank 1 serves, so rank 0 is the only worker).
# Each compares mpi and ring allreduce with per-tensor, DDP and fusion bucketing, in 3
# interleaved rounds of 5 timed steps (after 2 warm-up) per configuration; then
# a short ResNet-50 timeline, SUMMARY.md and the step-time plot.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/replay}
steps=${STEPS:-5}
rounds=${ROUNDS:-3}
bin=${COLLBENCH:-build/harness/collbench}
py=${PYTHON:-python3}
mkdir -p "$out"
run=(build/mpiexec -n 2 --bind-to core "$bin" replay -a mpi,ring --bucketing none,ddp,fusion --steps "$steps" --warmup 2 --rounds "$rounds"
     --overwrite)  # regenerates $out
"${run[@]}" --workload resnet50 --compute-ms 104 --csv "$out/resnet50.csv"
"${run[@]}" --workload bert-large --seq-len 128 --compute-ms 105 --csv "$out/bert-large.csv"
"${run[@]}" --workload lm1b --compute-ms 20 --sparse-strategy dense,allgather,ps --csv "$out/lm1b.csv"
build/mpiexec -n 2 --bind-to core "$bin" replay --workload resnet50 --compute-ms 104 -a ring --bucketing ddp --steps 3 \
  --warmup 1 --overwrite --csv "$out/resnet50-timeline-run.csv" --timeline "$out/resnet50-ring-ddp.trace.json"
"$py" scripts/summarize_replay.py "$out"/resnet50.csv "$out"/bert-large.csv "$out"/lm1b.csv >"$out/SUMMARY.md"
"$py" scripts/plot_replay.py "$out/step_breakdown.png" "$out"/resnet50.csv "$out"/bert-large.csv "$out"/lm1b.csv
