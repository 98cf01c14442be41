#!/usr/bin/env bash
# The full sweep behind the README's algorithm results: every collective, every
# reference algorithm and the MPI library's automatic choice interleaved in ROUNDS
# rounds, plus one sweep per algorithm of the library's own, forced
# (scripts/mpi_algorithms.sh), 8 B to 64 MiB on 2 ranks bound to cores. Writes
# results/algorithms/ (or $1): merged CSV/JSON per collective, SUMMARY.md
# (scripts/summarize_algorithms.py) and sweep.png (scripts/plot_sweep.py).
# Environment: BUILD (build tree: build for MPICH, build-openmpi for Open MPI),
#              COLLECTIVES (default: all six), ROUNDS, ITERS, MAXBYTES.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/algorithms}
rounds=${ROUNDS:-3}
iters=${ITERS:-20}
maxbytes=${MAXBYTES:-64M}
mkdir -p "$out"
collectives=${COLLECTIVES:-allreduce broadcast reduce gather allgather reduce_scatter}
for coll in $collectives; do
  MPIEXEC_ARGS="--bind-to core" NP=2 REFERENCE=${REFERENCE:-1} scripts/mpi_algorithms.sh "$coll" "$out" \
    -b 8 -e "$maxbytes" -n "$iters" -w 5 --rounds "$rounds"
done
csvs=()
for coll in $collectives; do csvs+=("$out/$coll.csv"); done
${PYTHON:-python3} scripts/summarize_algorithms.py "$out" >"$out/SUMMARY.md"
library=$(${PYTHON:-python3} -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["mpi"]["library"])' "${csvs[0]%.csv}.json")
${PYTHON:-python3} scripts/plot_sweep.py "$out/sweep.png" "${csvs[@]}" --title "collbench, 2 ranks, $library, one machine"
