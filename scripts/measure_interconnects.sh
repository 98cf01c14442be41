#!/usr/bin/env bash
# Which algorithm wins on which interconnect (root: it creates emulated hosts). One run
# measures, on four interconnects of this machine,
#   ucx-shm        2 ranks, one host, UCX's shared memory (MPICH's default here)
#   tcp-loopback   2 ranks, one host, UCX_TLS=tcp,self (TCP over the loopback device)
#   1gbe 2x1       2 emulated hosts x 1 rank, links shaped to 1 Gbit/s (emulate_cluster.sh)
#   1gbe 2x2       2 emulated hosts x 2 ranks (hierarchical algorithms see two nodes)
# the p2p characterisation (latency, bandwidth, alpha/beta per link class) and the
# allreduce, broadcast and reduce sweeps of every algorithm, mpi included. On 1gbe 2x1 a
# raw TCP stream between the hosts is timed before and after, the reference the
# emulator's overhead is judged by. Writes results/interconnects/ (or $1): raw/ (every
# run's CSV and JSON), one merged CSV/JSON per collective and for p2p, SUMMARY.md
# (summarize_interconnects.py) and one plot per collective (plot_interconnects.py).
# Environment: BUILD (default build), ROUNDS (3), BUDGET (seconds of timed calls per
# algorithm and size, 0.5), MAXBYTES (16M; 4M on 2x2, where each call moves twice as
# much over a shared link), ITERS_2X2 (timed calls per round on 2x2, 30), COLLECTIVES
# (allreduce broadcast reduce).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/interconnects}
build=${BUILD:-build}
rounds=${ROUNDS:-3}
budget=${BUDGET:-0.5}
maxbytes=${MAXBYTES:-16M}
maxbytes_2x2=${MAXBYTES_2X2:-4M}
iters_2x2=${ITERS_2X2:-30}
collectives=${COLLECTIVES:-allreduce broadcast reduce}
bin=$PWD/$build/harness/collbench
cluster=cbmi
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw"
# Four ranks share two cores on 2x2: MPICH's waits then yield the core between polls.
export MPIR_CVAR_POLLS_BEFORE_YIELD=1

# measure LABEL LAUNCHER... : p2p, then each collective, launched by LAUNCHER.
measure() {
  local label=$1
  shift
  local top=$maxbytes iters=()
  # Oversubscribed: a warm-up call says little about the next (a rank may wait a whole
  # scheduler tick for its core), so the budget's estimate does not hold; fixed counts.
  [ "$label" = 1gbe-2x2 ] && top=$maxbytes_2x2 iters=(-n "$iters_2x2")
  checked "$raw/$label-p2p.json" "$@" "$bin" p2p -b 1 -e "$top" -f 4 --rounds "$rounds" --time-budget "$budget" "${iters[@]}" \
    --csv "$raw/$label-p2p.csv" --json "$raw/$label-p2p.json"
  for coll in $collectives; do
    checked "$raw/$label-$coll.json" "$@" "$bin" run -c "$coll" -b 4 -e "$top" -f 4 -w 2 --rounds "$rounds" --time-budget "$budget" "${iters[@]}" \
      --csv "$raw/$label-$coll.csv" --json "$raw/$label-$coll.json"
  done
}

mpich=/usr/bin/mpiexec.mpich
measure ucx-shm env COLLBENCH_INTERCONNECT=ucx-shm "$mpich" -n 2
measure tcp-loopback env COLLBENCH_INTERCONNECT=tcp-loopback UCX_TLS=tcp,self "$mpich" -n 2

scripts/emulate_cluster.sh up --name "$cluster" --hosts 2 --profile 1gbe | tee "$raw/emulator.txt"
{
  echo "mtu=$(ip netns exec "$cluster-h1" cat /sys/class/net/eth0/mtu)"
  echo "tcp_timestamps=$(ip netns exec "$cluster-h1" cat /proc/sys/net/ipv4/tcp_timestamps)"
  echo "before: $(scripts/emulate_cluster.sh tcp --name "$cluster" --seconds 3)"
} >>"$raw/emulator.txt"
measure 1gbe-2x1 scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 1 --
echo "after: $(scripts/emulate_cluster.sh tcp --name "$cluster" --seconds 3)" >>"$raw/emulator.txt"
measure 1gbe-2x2 scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 2 --
scripts/emulate_cluster.sh down --name "$cluster"

labels="ucx-shm tcp-loopback 1gbe-2x1 1gbe-2x2"
for what in p2p $collectives; do
  files=()
  for l in $labels; do files+=("$raw/$l-$what.csv"); done
  ${PYTHON:-python3} scripts/merge_results.py "$out/$what" "${files[@]}"
done
${PYTHON:-python3} scripts/summarize_interconnects.py "$out" >"$out/SUMMARY.md"
for coll in $collectives; do
  ${PYTHON:-python3} scripts/plot_interconnects.py "$out/$coll.png" "$out/$coll.csv"
done
echo "measure_interconnects: wrote $out"
