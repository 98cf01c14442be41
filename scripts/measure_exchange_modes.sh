#!/usr/bin/env bash
# Why collectives of exchanges run slower on emulated 4 x 1 and 8 x 1 hosts than the
# cost model predicts (root). Per layout, ROUNDS rounds of: p2p's exchange and ping-pong
# between ranks 0 and 1 (the probes `model fit` uses, with min, median, mean and max
# over the iterations), then recursive doubling allreduce on every rank (log2 n steps,
# each a whole-vector exchange, all pairs at once). The summary sets the collective's
# median beside steps x the exchange's median (what the model charges) and steps x its
# mean. Layouts: 1gbe-2x1, 100mbe-4x1, 100mbe-8x1 (LAYOUTS picks), 64 KiB to 1 MiB.
# Writes results/exchange-modes/ (or $1): raw/, machine.txt, SUMMARY.md.
# Environment: OVERWRITE (1: replace an earlier measurement), BUILD (build), ROUNDS (2),
# ITERS (30), LAYOUTS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/exchange-modes}
bin=$PWD/${BUILD:-build}/harness/collbench
rounds=${ROUNDS:-2}
iters=${ITERS:-30}
layouts=${LAYOUTS:-1gbe-2x1 100mbe-4x1 100mbe-8x1}
declare -A shape=([1gbe-2x1]="2 1gbe" [100mbe-4x1]="4 100mbe" [100mbe-8x1]="8 100mbe")
for l in $layouts; do
  [ -n "${shape[$l]:-}" ] || { echo "measure_exchange_modes: unknown layout '$l'; valid: ${!shape[*]}" >&2; exit 2; }
done
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # more ranks than cores on 4x1 and 8x1
cluster=cbexm
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
keep_earlier_results "$out"
rm -rf "$out"
mkdir -p "$out/raw"
scripts/machine_facts.sh >"$out/machine.txt"
for l in $layouts; do
  read -r hosts profile <<<"${shape[$l]}"
  scripts/emulate_cluster.sh up --name "$cluster" --hosts "$hosts" --profile "$profile" | tee -a "$out/machine.txt"
  for r in $(seq "$rounds"); do
    p2p=$out/raw/$l-r$r-p2p.json coll=$out/raw/$l-r$r-allreduce.json
    checked "$p2p" scripts/emulate_cluster.sh mpiexec --name "$cluster" -- "$bin" p2p -t latency,exchange \
      -b 64K -e 1M -f 4 -n "$iters" -w 3 --json "$p2p" --csv "${p2p%.json}.csv" >/dev/null
    checked "$coll" scripts/emulate_cluster.sh mpiexec --name "$cluster" -- "$bin" run -c allreduce \
      -a recursive_doubling -b 64K -e 1M -f 4 -n "$iters" -w 3 --json "$coll" --csv "${coll%.json}.csv" >/dev/null
    echo "measure_exchange_modes: $l round $r done"
  done
  scripts/emulate_cluster.sh down --name "$cluster" >/dev/null
done
${PYTHON:-python3} scripts/summarize_exchange_modes.py "$out" "$layouts" "$(git rev-parse --short=12 HEAD)"
echo "measure_exchange_modes: wrote $out"
