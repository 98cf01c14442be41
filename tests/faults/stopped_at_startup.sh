#!/usr/bin/env bash
# A rank stopped (SIGSTOP) before its first collective: the rank waiting on it must end
# the run with the watchdog's exit status once the start-up limit passes, and name the
# stopped rank. A healthy start-up is never judged by --watchdog alone (that is 2 s here).
#   stopped_at_startup.sh SHIM MPIEXEC COLLBENCH
set -uo pipefail
shim=$1 mpiexec=$2 collbench=$3
startup=6
dir=$(mktemp -d)
"$mpiexec" -n 2 env LD_PRELOAD="$shim" STOP_RANK=1 "$collbench" run -a mpi,ring -b 8 -e 1K --watchdog 2 \
  --watchdog-startup $startup --csv "$dir/r.csv" --json "$dir/r.json" >"$dir/out" 2>"$dir/err" &
launcher=$!
source "$(dirname "$0")/../cli/launcher_ranks.sh"
ranks=
cleanup() {
  # The launcher ends the stopped rank; any of this job's ranks still here are ended.
  for p in $ranks; do
    [ "$(ps -o comm= -p "$p" 2>/dev/null)" = collbench ] && kill -CONT "$p" && kill "$p"
  done 2>/dev/null
  kill "$launcher" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$dir/out" "$dir/err"; exit 1; }
for _ in $(seq 200); do
  ranks=$(rank_pids)
  [ "$(wc -w <<<"$ranks")" = 2 ] && break
  sleep 0.1
done
# The start-up limit, one poll, the watchdog's grace, and a loaded machine's slack.
ended_by_watchdog 40
grep -Eq "rank 0 on [^ ]+ made no progress for $startup s \(--watchdog-startup\); it is in: starting up: checking that the ranks agree, waiting for rank 1 \([^)]+\)" "$dir/err" ||
  fail "no message naming the stopped rank"
echo "PASS: the stopped rank was named"
