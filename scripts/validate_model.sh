#!/usr/bin/env bash
# Validates the cost model (root: it creates emulated hosts), with the links measured in
# the same run as the collectives, so that the machine's drift cancels. Layouts:
#   ucx-shm       1 host x 2 ranks, UCX's shared memory (MPICH's default here)
#   tcp-loopback  1 host x 2 ranks, UCX_TLS=tcp,self
#   1gbe-2x1      2 emulated hosts x 1 rank, links shaped to 1 Gbit/s
#   10gbe-2x1     2 emulated hosts x 1 rank, 10 Gbit/s
#   100mbe-4x1    4 emulated hosts x 1 rank, 100 Mbit/s, 64 KiB (the cut, below) to 1 MiB
#   100mbe-8x1    8 emulated hosts x 1 rank, 100 Mbit/s, 64 KiB to 1 MiB
#   1gbe-2x2      2 emulated hosts x 2 ranks, 1 KiB to 16 MiB: 4 ranks on 2 cores,
#                 CPU-bound, reported, not judged
# and, only where LABELS names them, 100mbe-4x1-eager and 100mbe-8x1-eager: the same
# with UCX_RNDV_THRESH=inf (every message eager, no rendezvous handshake), to show what
# UCX's rendezvous costs the 100 Mbit/s layouts beyond what the model sees (the
# collective's README, "Validation").
# Each layout runs in rounds; a round is a link probe (collbench p2p: ping-pong,
# exchange, exchange of just-written buffers and exchange while reducing, 1 B to the
# largest size by 2, each test 3 times in turn, each iteration after the pair meets as
# each collective call follows a barrier: --timing per-call), right after it one round of each
# collective's sweep on the same ranks, then `model fit` on the probe (launched as the
# collectives are) and `model predict` of every allreduce, broadcast and reduce algorithm
# (also without each added cost). compare_model.py predicts each round's measurements
# from the links measured next to them (same-run) and from round 1's (fit once), and
# writes errors.csv, SUMMARY.md and predicted_vs_measured.png.
# Links measured in the collectives' own launch (LAUNCH_PROBES, default the two one-host
# layouts and 10 Gbit/s): on one host the price of sending just-written data was seen to
# change between launches tens of seconds apart, so a probe launch and a sweep launch
# agreed by chance; at 10 Gbit/s the veth pair, not the shaper, sets the pace, and it drifts
# between launches as TCP loopback does (one run: 7.4% (90th 43.8%) from the probe launch,
# 4.9% (13.0%) from the sweep's own).
# There every sweep launch also runs p2p's tests itself (run --probe-links: each message
# size next to the first collective size that large, in the same launch), and is predicted
# from its own fit; compare_model.py judges those layouts by it and reports the probe
# launch's errors beside it. Links the shaper paces are steady; their probe launch serves.
# Rounds: 5 on one host (shared memory, TCP loopback), 3 on emulated hosts. TCP loopback
# here has slow episodes of a few seconds about every 20 s (scripts/measure_link_stability.sh:
# a 1 MiB ping-pong 3.6x slower), which hit a probe or a sweep but not both; a point's
# error is the median over rounds, so it stands while fewer than half the rounds are hit.
# Shaped links are steady, and slow to sweep.
# The cut on 100 Mbit/s: 4 or 8 ranks share 2 cores, so a rank must wait on its link,
# not for a core. From 64 KiB a message holds the link 5.2 ms or more, longer than the
# 4 ms a busy core's time slice lasts, and a rank waiting on it yields its core
# (MPIR_CVAR_POLLS_BEFORE_YIELD=1); below, ranks queue for cores instead.
# The 65,536-rank timing is scripts/model_at_scale.sh.
# Within each sweep launch the algorithms (and the launch's own link probes) are timed in
# LAUNCH_ROUNDS interleaved rounds (run --rounds: every algorithm in turn, then again), the
# calls of a size spread over them: on one host the machine switches between its slow and
# fast modes every few seconds, and algorithms timed one after another (one round) each
# met whichever mode held then, so their measured ratio followed the machine.
# Environment: BUILD (build), ROUNDS (every layout's rounds; default 5 or 3 as above),
# LAUNCH_ROUNDS (3; 1: each algorithm's calls together, as before),
# BUDGET (seconds of timed calls per algorithm and size in a launch, all its rounds, 0.3), LABELS (all
# seven), COLLECTIVES (allreduce broadcast reduce), LAUNCH_PROBES (ucx-shm tcp-loopback
# 10gbe-2x1; empty: none).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/model}
build=${BUILD:-build}
rounds=${ROUNDS:-}
[ -z "$rounds" ] || [[ $rounds =~ ^[1-9][0-9]*$ ]] ||
  { echo "validate_model: ROUNDS must be a whole number of at least 1, not '$rounds'" >&2; exit 2; }
budget=${BUDGET:-0.3}
launch_rounds=${LAUNCH_ROUNDS:-3}
[[ $launch_rounds =~ ^[1-9][0-9]*$ ]] ||
  { echo "validate_model: LAUNCH_ROUNDS must be a whole number of at least 1, not '$launch_rounds'" >&2; exit 2; }
# Where counts are fixed (from 4 MiB; every size where ranks outnumber cores) 3 timed calls
# per algorithm and size, spread over the launch's rounds.
fixed_calls=$(((3 + launch_rounds - 1) / launch_rounds))
labels=${LABELS:-ucx-shm tcp-loopback 1gbe-2x1 10gbe-2x1 100mbe-4x1 100mbe-8x1 1gbe-2x2}
collectives=${COLLECTIVES:-allreduce broadcast reduce}
launch_probes=${LAUNCH_PROBES-ucx-shm tcp-loopback 10gbe-2x1}
# Costs the model adds to each message's link cost, each also left out once to show its
# effect (model file keys, of the links or the whole model): a message of bytes its sender
# wrote earlier in the call; an operation storing over bytes the rank sends to a peer on
# its host, which that peer's core read (p2p's rewrite test); messages in flight at once sharing a port's bandwidth; both
# ways at once (exchange and written) at the probe's mean instead of its median; the
# receiver's core copying each message (p2p's busy test), so its reductions wait; one
# pair's messages in flight at once sharing its bandwidth (p2p's pair test); what a
# message in a stream of them cannot overlap (p2p's bandwidth test) holding its ports.
costs="written rewrite shared_ports exchange_means receiver_copies pair_shares stream"
bin=$PWD/$build/harness/collbench
cluster=cbvm
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
raw=$out/raw
keep_earlier_results "$out"
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # more ranks than cores on 2x2, 4x1, 8x1
local1=(/usr/bin/mpiexec.mpich -n 1)
mpich=/usr/bin/mpiexec.mpich

# sweep LABEL RANKS ROUND FROM TO LAUNCHER...: one round of each collective. To 1 MiB on a
# time budget, from 4 MiB fixed counts. Where ranks outnumber cores, fixed counts at every
# size: a warm-up says little about the next call when a rank may wait a tick for its core.
# In LAUNCH_PROBES layouts every launch also probes its links (run --probe-links, the
# probes' calls within the budget), fitted and predicted on its own.
sweep() {
  local label=$1 ranks=$2 r=$3 from=$4 to=$5
  shift 5
  local f=$raw/$label-r$r part b e fixed
  for coll in $collectives; do
    for part in small large all; do
      case $part in
        small) b=$from e=1M fixed=(-w 2) ;;
        large) b=4M e=$to fixed=(-w 1 -n "$fixed_calls") ;;
        all) b=$from e=$to fixed=(-w 1 -n "$fixed_calls") ;;
      esac
      # all: where ranks outnumber cores, instead of small and large.
      if [ "$ranks" -gt "$(nproc)" ]; then [ $part = all ] || continue; else [ $part != all ] || continue; fi
      local g=$f-$coll-run-$part probe=()
      if [[ " $launch_probes " == *" $label "* ]]; then probe=(--probe-links "$g-links.json"); fi
      checked "$g.json" "$@" "$bin" run -c "$coll" -b "$b" -e "$e" -f 4 "${fixed[@]}" --rounds "$launch_rounds" \
        --time-budget "$budget" "${probe[@]}" --csv "$g.csv" --json "$g.json"
    done
  done
}

# launch_fits LAUNCHER...: each launch's own links (sweep's --probe-links) fitted, and
# its collective predicted from them (label, r, ranks, from and to: validate's).
launch_fits() {
  local links coll
  for links in "$raw/$label-r$r"-*-run-*-links.json; do
    [ -e "$links" ] || continue
    coll=${links#"$raw/$label-r$r-"}
    coll=${coll%%-run-*}
    "$@" "$bin" model fit --p2p "$links" --out "${links%.json}-model.json" >/dev/null
    "${local1[@]}" "$bin" model predict -m "${links%.json}-model.json" -c "$coll" -n "$ranks" -b "$from" -e "$to" -f 4 \
      --csv "${links%.json}-predicted.csv" --json "${links%.json}-predicted.json" >/dev/null
  done
}

# validate LABEL RANKS ROUNDS FROM TO PROBE_TO LAUNCHER...
validate() {
  local label=$1 ranks=$2 n=$3 from=$4 to=$5 probe_to=$6
  shift 6
  for r in $(seq 1 "$n"); do
    local f=$raw/$label-r$r
    # 3 rounds in the probe: at least 30 calls a size, where the budget allows fewer (a
    # slow link's large sizes), so that an exchange's mean over its two modes is not
    # the luck of 10 calls.
    checked "$f-p2p.json" "$@" "$bin" p2p -t latency,bandwidth,exchange,written,rewrite,busy,pair -b 1 -e "$probe_to" -f 2 --rounds 3 \
      --timing per-call --time-budget "$budget" --csv "$f-p2p.csv" --json "$f-p2p.json"
    # The sweep right after the probe: fitting and predicting take seconds, in which the
    # links may change.
    sweep "$label" "$ranks" "$r" "$from" "$to" "$@"
    # Every rank times the kernels at once, as ranks of a host contend for memory.
    "$@" "$bin" model fit --p2p "$f-p2p.json" --out "$f-model.json"
    # Each modelled cost's effect: the same predictions from the model without it.
    for cost in $costs; do
      ${PYTHON:-python3} -c 'import json, sys; m = json.load(open(sys.argv[1]))
for k in ("intra_host", "inter_host"): m[k].pop(sys.argv[3], None)
m.pop(sys.argv[3], None)
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$f-model.json" "$f-model-no-$cost.json" "$cost"
    done
    for coll in $collectives; do
      for variant in "" $(printf -- "-no-%s " $costs); do
        "${local1[@]}" "$bin" model predict -m "$f-model$variant.json" -c "$coll" -n "$ranks" -b "$from" -e "$to" -f 4 \
          --csv "$f-$coll-predicted$variant.csv" --json "$f-$coll-predicted$variant.json" >/dev/null
      done
    done
    launch_fits "$@"
  done
}

# layout LABEL HOSTS PER_HOST PROFILE FROM TO PROBE_TO JUDGED [ENV]. The probe stops where a
# ping-pong would take a large share of the round (1 Gbit/s: 16 MiB);
# the fit's last range carries on at the line rate. ENV: comma-separated variables every
# launch of the layout gets (none: -).
layout() {
  local label=$1 hosts=$2 per=$3 profile=$4 from=$5 to=$6 probe_to=$7 judged=$8 vars=${9:--}
  local with=()
  [ "$vars" = - ] || IFS=, read -ra with <<<"$vars"
  echo "$label $hosts $per $profile $(numfmt --from=iec "$from") $(numfmt --from=iec "$to") $judged $vars" \
    >>"$raw/layouts.txt"
  case $profile in
    shm) validate "$label" 2 "${rounds:-5}" "$from" "$to" "$probe_to" env COLLBENCH_INTERCONNECT=ucx-shm "${with[@]}" "$mpich" -n 2 ;;
    tcp)
      validate "$label" 2 "${rounds:-5}" "$from" "$to" "$probe_to" \
        env COLLBENCH_INTERCONNECT=tcp-loopback UCX_TLS=tcp,self "${with[@]}" "$mpich" -n 2 ;;
    *)
      scripts/emulate_cluster.sh up --name "$cluster" --hosts "$hosts" --profile "$profile" | tee -a "$raw/emulator.txt"
      validate "$label" $((hosts * per)) "${rounds:-3}" "$from" "$to" "$probe_to" \
        env "${with[@]}" scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host "$per" --
      scripts/emulate_cluster.sh down --name "$cluster" ;;
  esac
}

# The layouts: LABEL HOSTS PER_HOST PROFILE FROM TO PROBE_TO JUDGED.
declare -A layouts=(
  [ucx-shm]="1 2 shm 1K 64M 64M yes" [tcp-loopback]="1 2 tcp 1K 64M 64M yes"
  [1gbe-2x1]="2 1 1gbe 1K 64M 16M yes" [10gbe-2x1]="2 1 10gbe 1K 64M 64M yes"
  [100mbe-4x1]="4 1 100mbe 64K 1M 1M yes" [100mbe-8x1]="8 1 100mbe 64K 1M 1M yes"
  [100mbe-4x1-eager]="4 1 100mbe 64K 1M 1M yes UCX_RNDV_THRESH=inf"
  [100mbe-8x1-eager]="8 1 100mbe 64K 1M 1M yes UCX_RNDV_THRESH=inf"
  [1gbe-2x2]="2 2 1gbe 1K 16M 16M no")
for label in $labels $launch_probes; do
  [ -n "${layouts[$label]:-}" ] || { echo "validate_model: unknown layout '$label'; valid: ${!layouts[*]}" >&2; exit 2; }
done
rm -rf "$raw"
mkdir -p "$raw"
scripts/machine_facts.sh >"$raw/machine.txt"
echo "label hosts ranks_per_host profile from_bytes to_bytes judged env" >"$raw/layouts.txt"
for label in $labels; do
  # shellcheck disable=SC2086  # the layout's fields
  layout "$label" ${layouts[$label]}
done

${PYTHON:-python3} scripts/compare_model.py "$out"
echo "validate_model: wrote $out"
