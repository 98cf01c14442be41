#!/usr/bin/env bash
# alltoall, alltoallv and the models built on them (root: it creates emulated hosts).
# One run measures
#   2 ranks, one host   every alltoall algorithm (mpi included), steps order over MPI and
#                       dataflow order over shared memory; alltoallv under uniform,
#                       zipf:1.5 and hot:0:1 counts (the busiest rank's bytes beside)
#   4 hosts x 1 rank    emulated, links shaped to 100 Mbit/s: the network, not the two
#                       cores, is the bottleneck (each rank waits on its link). p2p, a
#                       cost model fitted from it, `model best` for Bruck against
#                       pairwise, then the measured sweep of every algorithm (steps
#                       order, as the closed forms assume); where Bruck stops winning
#   MoE replay          Mixtral-8x7B (LAYERS MoE layers, SEQ tokens per rank) under
#                       uniform, zipf:1.2 and hot:0:0.5 routing, alternating, REPS times;
#                       and DLRM-DCNv2's embedding exchange
# Writes results/alltoall/ (or $1): raw/ (every run's CSV and JSON, machine facts,
# emulator settings), SUMMARY.md (summarize_alltoall.py).
# Environment: BUILD (build), ROUNDS (3), BUDGET (0.5 s of timed calls per algorithm and
# size), REPS (3), LAYERS (2), SEQ (1024), COMPUTE_MS (200).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/alltoall}
build=${BUILD:-build}
rounds=${ROUNDS:-3}
budget=${BUDGET:-0.5}
reps=${REPS:-3}
layers=${LAYERS:-2}
seq=${SEQ:-1024}
compute_ms=${COMPUTE_MS:-200}
bin=$PWD/$build/harness/collbench
cluster=cba2a
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
raw=$out/raw
keep_earlier_results "$out"
rm -rf "$raw"
mkdir -p "$raw"
scripts/machine_facts.sh >"$raw/machine.txt"
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # four ranks share two cores on the emulated hosts
mpich=(/usr/bin/mpiexec.mpich -n 2)
sweep=(-b 8 -e 16M -f 4 -w 2 --rounds "$rounds" --time-budget "$budget")

# One host, two ranks.
checked "$raw/local-alltoall-mpi-steps.json" "${mpich[@]}" "$bin" run -c alltoall --order steps "${sweep[@]}" \
  --csv "$raw/local-alltoall-mpi-steps.csv" --json "$raw/local-alltoall-mpi-steps.json"
checked "$raw/local-alltoall-shm.json" "${mpich[@]}" "$bin" run -c alltoall --transport shm "${sweep[@]}" \
  --csv "$raw/local-alltoall-shm.csv" --json "$raw/local-alltoall-shm.json"
for counts in uniform zipf:1.5 hot:0:1; do
  label=local-alltoallv-${counts//:/-}
  checked "$raw/$label.json" "${mpich[@]}" "$bin" run -c alltoallv --counts "$counts" -b 1K -e 16M -f 16 -w 2 \
    --rounds "$rounds" --time-budget "$budget" --csv "$raw/$label.csv" --json "$raw/$label.json"
done

# Four emulated hosts at 100 Mbit/s.
scripts/emulate_cluster.sh up --name "$cluster" --hosts 4 --profile 100mbe | tee "$raw/emulator.txt"
on_hosts=(scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 1 --)
checked "$raw/4x1-p2p.json" "${on_hosts[@]}" "$bin" p2p -b 1 -e 1M -f 2 --rounds "$rounds" --time-budget "$budget" \
  --csv "$raw/4x1-p2p.csv" --json "$raw/4x1-p2p.json"
"${on_hosts[@]}" "$bin" model fit --p2p "$raw/4x1-p2p.json" --out "$raw/4x1-model.json"
for which in "bruck,pairwise" ""; do
  label=4x1-best${which:+-bruck-pairwise}
  /usr/bin/mpiexec.mpich -n 1 "$bin" model best -c alltoall -m "$raw/4x1-model.json" -n 4 --order steps \
    ${which:+-a "$which"} -b 64 -e 1M -f 2 --csv "$raw/$label.csv" --json "$raw/$label.json" >/dev/null
done
checked "$raw/4x1-alltoall.json" "${on_hosts[@]}" "$bin" run -c alltoall --order steps -b 64 -e 1M -f 2 -w 2 \
  --rounds "$rounds" --time-budget "$budget" --csv "$raw/4x1-alltoall.csv" --json "$raw/4x1-alltoall.json"
scripts/emulate_cluster.sh down --name "$cluster"

# Replays: routings alternate within each repetition.
moe=(--workload mixtral-8x7b --layers "$layers" --seq-len "$seq" --compute-ms "$compute_ms" -a mpi --steps 5 --warmup 1)
for rep in $(seq 1 "$reps"); do
  for routing in uniform zipf:1.2 hot:0:0.5; do
    label=moe-${routing//:/-}-rep$rep
    checked "$raw/$label.json" "${mpich[@]}" "$bin" replay "${moe[@]}" --routing "$routing" \
      --csv "$raw/$label.csv" --json "$raw/$label.json" >/dev/null
  done
done
checked "$raw/dlrm.json" "${mpich[@]}" "$bin" replay --workload dlrm-dcnv2 --batch 2048 --compute-ms 50 -a mpi,ring \
  --steps 5 --warmup 1 --rounds "$reps" --csv "$raw/dlrm.csv" --json "$raw/dlrm.json" >/dev/null

${PYTHON:-python3} scripts/summarize_alltoall.py "$out" | tee "$out/SUMMARY.md"
echo "measure_alltoall: wrote $out"
