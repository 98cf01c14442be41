#!/usr/bin/env bash
# Measures the foundation's performance targets on 2 ranks and writes the raw results
# and a summary under results/foundation/ (or $1):
#  1. harness overhead: collbench's mpi figure vs a plain MPI_Wtime loop around
#     MPI_Allreduce (collbench-plain-loop) at 1 KiB, 1 MiB, 16 MiB, for both timing
#     policies, alternating the two programs OVERHEAD_REPS times, ranks bound to cores
#     for both (this machine flips between fast and slow states that hit both alike);
#  2. ring vs MPI_Allreduce, 8 B to 64 MiB, algorithms interleaved in ROUNDS rounds;
#  3. the reduction kernels next to memcpy (Google Benchmark, repetitions randomly interleaved).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/foundation}
reps=${REPS:-5}
overhead_reps=${OVERHEAD_REPS:-15}
rounds=${ROUNDS:-5}
mkdir -p "$out"
bin=build/harness

echo "rep,bytes,iters,program,timing,avg_us" >"$out/overhead.csv"
for rep in $(seq 1 "$overhead_reps"); do
  for spec in 1024:20000 1048576:400 16777216:60; do
    bytes=${spec%%:*} iters=${spec##*:}
    line=$(build/mpiexec --bind-to core -n 2 $bin/collbench-plain-loop "$bytes" "$iters" 20)
    loop=$(sed -E 's/.*loop_us=([0-9.]+).*/\1/' <<<"$line")
    per_call=$(sed -E 's/.*per_call_us=([0-9.]+).*/\1/' <<<"$line")
    echo "$rep,$bytes,$iters,plain-loop,loop,$loop" >>"$out/overhead.csv"
    echo "$rep,$bytes,$iters,plain-loop,per-call,$per_call" >>"$out/overhead.csv"
    for timing in loop per-call; do
      tmp=$(mktemp -d)
      build/mpiexec --bind-to core -n 2 $bin/collbench run -a mpi -b "$bytes" -e "$bytes" -n "$iters" -w 20 --timing "$timing" \
        --csv "$tmp/r.csv" >/dev/null
      avg=$(awk -F, 'NR==2 {print $12}' "$tmp/r.csv")
      echo "$rep,$bytes,$iters,collbench,$timing,$avg" >>"$out/overhead.csv"
      rm -rf "$tmp"
    done
  done
done

build/mpiexec -n 2 $bin/collbench run -b 8 -e 64M -n 20 -w 5 --rounds "$rounds" \
  --csv "$out/allreduce-2ranks.csv" --json "$out/allreduce-2ranks.json" --overwrite

$bin/collbench-kernels --benchmark_repetitions="$reps" --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true \
  --benchmark_out="$out/kernels.json" --benchmark_out_format=json >/dev/null

python3 scripts/summarize_foundation.py "$out" | tee "$out/SUMMARY.md"
