#!/usr/bin/env bash
# How steady a link of this machine is from one second to the next: back-to-back
# launches of a 1 MiB ping-pong (collbench p2p -t latency, one round, about 0.3 s each)
# for DURATION seconds, UCX shared memory and TCP loopback (1 host x 2 ranks) in turn.
# Each launch's p50 and start time go to raw/LABEL.csv; SUMMARY.md gives the spread and
# the slow episodes (runs of launches over 1.5x the median): how long they last, how far
# apart they come and whether the other interconnect was slow at once, which is what a
# same-run validation must be finer than (scripts/validate_model.sh). Writes
# results/link-stability/ (or $1).
# Environment: BUILD (build), DURATION (seconds, 300), PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/link-stability}
bin=$PWD/${BUILD:-build}/harness/collbench
duration=${DURATION:-300}
[ -x "$bin" ] || { echo "measure_link_stability: no $bin; build first (scripts/setup.sh)" >&2; exit 2; }
[[ $duration =~ ^[1-9][0-9]*$ ]] ||
  { echo "measure_link_stability: DURATION must be a whole number of seconds, at least 1, not '$duration'" >&2; exit 2; }
source scripts/emulated_runs.sh
fresh_raw "$out"
# The two interconnects alternate launch by launch, so that each one's slow episodes can be
# set beside the other's: at once (the machine) or apart (the transport).
labels=(ucx-shm tcp-loopback)
for label in "${labels[@]}"; do echo "start_s,p50_us,min_us" >"$raw/$label.csv"; done
start=$(date +%s.%N)
while awk -v s="$start" -v d="$duration" -v n="$(date +%s.%N)" 'BEGIN { exit !(n - s < d) }'; do
  for label in "${labels[@]}"; do
    envs=("COLLBENCH_INTERCONNECT=$label")  # on one host UCX picks shared memory
    [ "$label" = tcp-loopback ] && envs+=("UCX_TLS=tcp,self")
    at=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - s }')
    rm -f "$raw/launch.csv"
    env "${envs[@]}" MPIR_CVAR_POLLS_BEFORE_YIELD=1 /usr/bin/mpiexec.mpich -n 2 "$bin" p2p -t latency -b 1M -e 1M \
      --rounds 1 --csv "$raw/launch.csv" --json /dev/null </dev/null >/dev/null 2>&1 || true
    # The measured row's p50 and min, by the CSV's own column names (its fields are quoted).
    line=$(${PYTHON:-python3} -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["kind"] == "measured": print(r["p50_us"] + "," + r["min_us"])' "$raw/launch.csv" 2>/dev/null || true)
    [ -n "$line" ] || { echo "measure_link_stability: a $label launch wrote no latency row" >&2; exit 1; }
    echo "$at,$line" >>"$raw/$label.csv"
  done
done
rm -f "$raw/launch.csv"
${PYTHON:-python3} - "$out" <<'PY'
import csv, statistics, sys
out, labels = sys.argv[1], ("ucx-shm", "tcp-loopback")
runs = {l: [(float(r["start_s"]), float(r["p50_us"])) for r in csv.DictReader(open(f"{out}/raw/{l}.csv"))]
        for l in labels}
slow = {l: [p > 1.5 * statistics.median(q for _, q in runs[l]) for _, p in runs[l]] for l in labels}
lines = ["# Link stability from one second to the next", "",
         "Back-to-back launches of a 1 MiB ping-pong (collbench p2p -t latency, one round each), the two "
         "interconnects in turn (raw/LABEL.csv, raw/machine.txt). *Slow*: a launch's p50 over 1.5x its "
         "interconnect's median; an episode is a run of slow launches, its length from its first launch's "
         "start to the next fast one's. *Other slow at once*: of the slow launches, the share whose "
         "neighbouring launch of the other interconnect (the one just before) was slow too.", "",
         "| interconnect | launches | seconds | p50 median (us) | fast median | slow median | slow / fast | "
         "slow launches | other slow at once | episodes | episode length: median (max) s | "
         "between episodes: median (min) s |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
f = lambda xs: f"{statistics.median(xs):.1f}" if xs else "–"
for i, label in enumerate(labels):
    rows, s = runs[label], slow[label]
    other = slow[labels[1 - i]]
    # Launch k of the second interconnect follows launch k of the first; launch k of the
    # first follows launch k - 1 of the second.
    before = [other[k] if i == 1 else (other[k - 1] if k > 0 else False) for k in range(len(rows))]
    both = sum(1 for k in range(min(len(rows), len(other))) if s[k] and before[k])
    fast_p = [p for (_, p), x in zip(rows, s) if not x]
    slow_p = [p for (_, p), x in zip(rows, s) if x]
    episodes, begin = [], None
    for (t, _), x in zip(rows, s):
        if x and begin is None:
            begin = t
        elif not x and begin is not None:
            episodes.append((begin, t))
            begin = None
    if begin is not None:
        episodes.append((begin, rows[-1][0]))
    lengths = [e - b for b, e in episodes]
    gaps = [episodes[k + 1][0] - episodes[k][1] for k in range(len(episodes) - 1)]
    ratio = f"{statistics.median(slow_p) / statistics.median(fast_p):.2f}" if slow_p and fast_p else "–"
    lines.append(f"| {label} | {len(rows)} | {rows[-1][0]:.0f} | {statistics.median(p for _, p in rows):.1f} | "
                 f"{f(fast_p)} | {f(slow_p)} | {ratio} | {len(slow_p)} | "
                 f"{f'{both / len(slow_p):.0%}' if slow_p else '–'} | {len(episodes)} | "
                 f"{f(lengths)} ({max(lengths, default=0):.1f}) | {f(gaps)} ({min(gaps, default=0):.1f}) |")
open(f"{out}/SUMMARY.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "measure_link_stability: wrote $out"
