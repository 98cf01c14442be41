#!/usr/bin/env bash
# The full sweep behind the README's algorithm results: every collective, every
# reference algorithm and MPICH's automatic choice interleaved in ROUNDS rounds, plus
# one sweep per MPICH forced algorithm (scripts/mpich_algorithms.sh), 8 B to 64 MiB
# on 2 ranks bound to cores. Writes results/algorithms/ (or $1): merged CSV/JSON per
# collective, SUMMARY.md (scripts/summarize_algorithms.py) and sweep.png (scripts/plot_sweep.py).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/algorithms}
rounds=${ROUNDS:-3}
iters=${ITERS:-20}
maxbytes=${MAXBYTES:-64M}
mkdir -p "$out"
for coll in allreduce broadcast reduce gather allgather reduce_scatter; do
  MPIEXEC_ARGS="-bind-to core" NP=2 REFERENCE=${REFERENCE:-1} scripts/mpich_algorithms.sh "$coll" "$out" \
    -b 8 -e "$maxbytes" -n "$iters" -w 5 --rounds "$rounds"
done
csvs=()
for coll in allreduce broadcast reduce gather allgather reduce_scatter; do csvs+=("$out/$coll.csv"); done
${PYTHON:-python3} scripts/summarize_algorithms.py "$out" >"$out/SUMMARY.md"
${PYTHON:-python3} scripts/plot_sweep.py "$out/sweep.png" "${csvs[@]}" --title "collbench, 2 ranks, MPICH 4.0.2 ch4:ucx, one machine"
