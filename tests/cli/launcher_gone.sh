#!/usr/bin/env bash
# Hydra's proxy killed under a running sweep (as Hydra's own abort kills it: mpiexec
# SIGKILLs its proxies, never the ranks, each a session of its own): the ranks must end
# with it, not run on for nobody, and rank 0 must first mark the results stopped.
#   launcher_gone.sh MPIEXEC COLLBENCH   (MPICH's Hydra only)
set -uo pipefail
mpiexec=$1 collbench=$2
dir=$(mktemp -d)
"$mpiexec" -n 2 "$collbench" run -a mpi,ring -b 8 -e 64M -n 3000 --watchdog 0 \
  --csv "$dir/r.csv" --json "$dir/r.json" >"$dir/out" 2>"$dir/err" &
launcher=$!
ranks=
cleanup() {
  for p in $ranks; do kill -KILL "$p" 2>/dev/null; done
  kill "$launcher" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$dir/out" "$dir/err"; exit 1; }

source "$(dirname "$0")/launcher_ranks.sh"
running() { local p n=0; for p in $ranks; do kill -0 "$p" 2>/dev/null && [[ "$(ps -o stat= -p "$p")" != Z* ]] && n=$((n + 1)); done; echo $n; }
wait_for_ranks 2 || fail "could not find the two ranks' processes"
proxy=$(ps -o ppid= -p "$(head -1 <<<"$ranks")" | tr -d ' ')
[ "$(ps -o comm= -p "$proxy")" = hydra_pmi_proxy ] || fail "rank's parent $proxy is not Hydra's proxy"
kill -KILL "$proxy"
start=$(date +%s%N)
for _ in $(seq 50); do [ "$(running)" = 0 ] && break; sleep 0.1; done
left=$(running)
echo "$left of 2 ranks running $((($(date +%s%N) - start) / 1000000)) ms after the proxy was killed"
[ "$left" = 0 ] || fail "$left rank(s) ran on 5 s after their proxy was killed"
rows=$(($(wc -l <"$dir/r.csv") - 1))
[ "$rows" -ge 2 ] || fail "finished rows were lost ($rows in the CSV)"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert not d['completed'] and 'launcher ended' in d['stopped']" \
  "$dir/r.json" || fail "the JSON does not say the run stopped, and why"
echo "PASS: both ranks ended with their proxy; $rows finished rows kept"
