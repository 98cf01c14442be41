#!/usr/bin/env bash
# Validates the cost model (root: it creates emulated hosts). On each interconnect of
# this machine
#   ucx-shm        2 ranks, one host, UCX's shared memory (MPICH's default here)
#   tcp-loopback   2 ranks, one host, UCX_TLS=tcp,self
#   1gbe-2x1       2 emulated hosts x 1 rank, links shaped to 1 Gbit/s
#   1gbe-2x2       2 emulated hosts x 2 ranks
# it characterises the links (collbench p2p), fits a model (collbench model fit),
# predicts every allreduce, broadcast and reduce algorithm over 1 KiB..64 MiB (model
# predict, before anything is run), then runs the same sweep (collbench run; sizes to
# 1 MiB on a time budget, from 4 MiB a fixed 3 calls per round). compare_model.py then
# writes errors.csv (predicted / measured per interconnect x collective x algorithm x
# size), SUMMARY.md (error medians and 90th percentiles against the targets, the
# predicted against the measured fastest) and predicted_vs_measured.png. A second p2p
# run after the sweep shows how far the links drifted meanwhile. The 65,536-rank
# timing is scripts/model_at_scale.sh.
# Environment: BUILD (build), ROUNDS (3), BUDGET (seconds of timed calls per algorithm
# and size, 0.3), LABELS (all four), COLLECTIVES (allreduce broadcast reduce).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/model}
build=${BUILD:-build}
rounds=${ROUNDS:-3}
budget=${BUDGET:-0.3}
labels=${LABELS:-ucx-shm tcp-loopback 1gbe-2x1 1gbe-2x2}
collectives=${COLLECTIVES:-allreduce broadcast reduce}
bin=$PWD/$build/harness/collbench
cluster=cbvm
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
raw=$out/raw
if [ -e "$out/SUMMARY.md" ] && [ -z "${OVERWRITE:-}" ]; then
  echo "validate_model: $out holds a validation already; set OVERWRITE=1 or give another directory" >&2
  exit 2
fi
rm -rf "$raw"
mkdir -p "$raw"
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # four ranks share two cores on 2x2
local1=(/usr/bin/mpiexec.mpich -n 1)

# validate LABEL RANKS LAUNCHER...
validate() {
  local label=$1 ranks=$2
  shift 2
  # Emulated links: p2p to 16 MiB (a 64 MiB ping-pong takes a second); the fit's last
  # range carries on to 64 MiB at the line rate.
  local top=64M
  case $label in 1gbe-*) top=16M ;; esac
  checked "$raw/$label-p2p.json" "$@" "$bin" p2p -b 1 -e "$top" -f 2 --rounds "$rounds" --time-budget "$budget" \
    --csv "$raw/$label-p2p.csv" --json "$raw/$label-p2p.json"
  # Launched as the collectives are: every rank times the kernels at once, as ranks of a
  # host contend for memory inside a collective.
  "$@" "$bin" model fit --p2p "$raw/$label-p2p.json" --out "$raw/$label-model.json"
  for coll in $collectives; do
    "${local1[@]}" "$bin" model predict -m "$raw/$label-model.json" -c "$coll" -n "$ranks" -b 1K -e 64M -f 4 \
      --csv "$raw/$label-$coll-predicted.csv" --json "$raw/$label-$coll-predicted.json" >/dev/null
  done
  for coll in $collectives; do
    checked "$raw/$label-$coll-small.json" "$@" "$bin" run -c "$coll" -b 1K -e 1M -f 4 -w 2 --rounds "$rounds" \
      --time-budget "$budget" --csv "$raw/$label-$coll-small.csv" --json "$raw/$label-$coll-small.json"
    checked "$raw/$label-$coll-large.json" "$@" "$bin" run -c "$coll" -b 4M -e 64M -f 4 -w 1 -n 3 --rounds "$rounds" \
      --csv "$raw/$label-$coll-large.csv" --json "$raw/$label-$coll-large.json"
  done
  # The links again, after the sweep: how far the machine drifted while it ran (this
  # one is shared); the model keeps the first.
  checked "$raw/$label-p2p-after.json" "$@" "$bin" p2p -t latency,exchange -b 1 -e "$top" -f 4 --rounds 1 \
    --time-budget "$budget" --csv "$raw/$label-p2p-after.csv" --json "$raw/$label-p2p-after.json"
}

mpich=/usr/bin/mpiexec.mpich
emulated=false
for label in $labels; do
  case $label in
    ucx-shm) validate ucx-shm 2 env COLLBENCH_INTERCONNECT=ucx-shm "$mpich" -n 2 ;;
    tcp-loopback) validate tcp-loopback 2 env COLLBENCH_INTERCONNECT=tcp-loopback UCX_TLS=tcp,self "$mpich" -n 2 ;;
    1gbe-2x*)
      if ! $emulated; then
        scripts/emulate_cluster.sh up --name "$cluster" --hosts 2 --profile 1gbe | tee "$raw/emulator.txt"
        emulated=true
      fi
      per=${label#1gbe-2x}
      validate "$label" $((2 * per)) scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host "$per" -- ;;
    *) echo "validate_model: unknown interconnect '$label'" >&2; exit 2 ;;
  esac
done
! $emulated || scripts/emulate_cluster.sh down --name "$cluster"

${PYTHON:-python3} scripts/compare_model.py "$out" $labels
echo "validate_model: wrote $out"
