#!/usr/bin/env bash
# Runs the tests matching REGEX TIMES times each (ctest -j2 --repeat until-fail) while a
# CPU hog spins on every core, as a busy node or a CI neighbour would: a test whose
# assertion needs a quiet machine fails here. Prints each test's passes and the machine.
#   scripts/tests_under_load.sh BUILD REGEX [TIMES]     (TIMES: 20)
# e.g. scripts/tests_under_load.sh build '^(cli\.watchdog|faults\.stopped_at_startup|cli\.p2p|cli\.launcher_gone)$'
set -uo pipefail
build=${1:?usage: $0 BUILD REGEX [TIMES]} regex=${2:?usage: $0 BUILD REGEX [TIMES]} times=${3:-20}
[ -d "$build" ] || { echo "$0: no build tree '$build'" >&2; exit 2; }
case "$times" in '' | *[!0-9]* | 0) echo "$0: TIMES must be a whole number from 1, not '$times'" >&2; exit 2 ;; esac
hogs=()
stop_hogs() { [ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null; }
trap stop_hogs EXIT
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  hogs+=($!)
done
echo "== $(nproc) CPU hogs (PIDs ${hogs[*]}); $(lscpu | sed -n 's/^Model name: *//p')"
log=$(mktemp)
ctest --test-dir "$build" -R "$regex" -j 2 --repeat until-fail:"$times" --output-on-failure 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
stop_hogs
hogs=()
echo "== under load, each test up to $times times (until its first failure):"
sed -nE 's/^ *([0-9]+\/[0-9]+ )?Test +#[0-9]+: ([^ ]+) .*(Passed|Failed|Timeout|Exception).* ([0-9.]+) sec$/\2 \3/p' "$log" |
  sort | uniq -c | awk '{printf "%4d %-8s %s\n", $1, $3, $2}'
rm -f "$log"
exit "$status"
