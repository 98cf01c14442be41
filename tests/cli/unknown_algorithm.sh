#!/usr/bin/env bash
# An unknown algorithm is refused with the valid ones listed exactly as the registry
# has them (asked with `collbench list --json`), so adding an algorithm changes
# nothing here.
# usage: unknown_algorithm.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
names=$("$collbench" list --json | python3 -c \
  'import json, sys; print(", ".join(a["name"] for a in json.load(sys.stdin)["collectives"]["allreduce"]))')
[ -n "$names" ] || { echo "FAIL: list --json names no allreduce algorithm"; exit 1; }
exec "$(dirname "$0")/expect_error.sh" "unknown algorithm 'nope' for allreduce; valid: $names\$" \
  "$mpiexec" -n 2 "$collbench" run -a nope
