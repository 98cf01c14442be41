#!/usr/bin/env bash
# An unknown algorithm is refused with the valid ones listed exactly as the registry
# has them (asked with `collbench list --json`), so adding an algorithm changes
# nothing here, and the library's own where a run can switch to them; --mpi-segments
# without -a is refused, not ignored.
# usage: unknown_algorithm.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
# ...then, where the library's own algorithms can be switched in a run, how to name them,
# else why they cannot.
names=$("$collbench" list --json | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
names = ", ".join(a["name"] for a in d["collectives"]["allreduce"])
own = d["mpi_library"]["algorithms"]["allreduce"]
if own.get("switchable"):
    names += ", mpi[all] or mpi[NAME] for NAME in " + ", ".join(own["switchable"])
    if own.get("segmented"):
        names += " (mpi[NAME:seg=BYTES] for NAME in " + ", ".join(own["segmented"]) + ")"
else:
    names += " (" + own["switch_unavailable"] + ")"
print(re.escape(names))')
[ -n "$names" ] || { echo "FAIL: list --json names no allreduce algorithm"; exit 1; }
# --mpi-segments without the algorithms it adds rows to: refused, not ignored.
"$(dirname "$0")/expect_error.sh" "--mpi-segments adds rows beside .* -a mpi\[all\] or mpi\[NAME\]" \
  "$mpiexec" -n 1 "$collbench" run -c broadcast --mpi-segments 8K
exec "$(dirname "$0")/expect_error.sh" "unknown algorithm 'nope' for allreduce; valid: $names\$" \
  "$mpiexec" -n 2 "$collbench" run -a nope
