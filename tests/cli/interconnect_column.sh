#!/usr/bin/env bash
# Every row ends with `interconnect`: what COLLBENCH_INTERCONNECT names, else one-host
# (all ranks here share this host); the metadata says which, and where it came from;
# and finding out works while the MPI library's collectives are forced.
# usage: interconnect_column.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
env -u COLLBENCH_INTERCONNECT "$mpiexec" -n 2 "$collbench" run -a ring -b 8 -e 64 -n 3 -w 1 --csv "$dir/a.csv" >/dev/null 2>&1 ||
  fail "plain run exited $?"
COLLBENCH_INTERCONNECT=lab-ib COLLBENCH_INTERCONNECT_DETAILS="2 x HDR" "$mpiexec" -n 2 "$collbench" run -a ring -b 8 -e 64 \
  -n 3 -w 1 --csv "$dir/b.csv" >/dev/null 2>&1 || fail "named run exited $?"
# Finding the hosts must not use MPI's own collectives: a run may force them to an
# algorithm that refuses tiny counts (MPICH; other libraries ignore these variables).
MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=reduce_scatter_allgather MPIR_CVAR_COLLECTIVE_FALLBACK=error \
  "$mpiexec" -n 2 "$collbench" run -a mpi,ring -b 1K -e 1K -n 3 -w 1 --csv "$dir/f.csv" >"$dir/f.out" 2>&1 ||
  { tail -5 "$dir/f.out"; fail "a run with MPI_Allreduce forced to reduce_scatter_allgather exited $?"; }
python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
for stem, name, source in (("a", "one-host", "hosts"), ("b", "lab-ib", "COLLBENCH_INTERCONNECT")):
    rows = list(csv.DictReader(open(f"{d}/{stem}.csv")))
    assert rows and list(rows[0])[-1] == "interconnect", list(rows[0])
    assert all(r["interconnect"] == name for r in rows), rows
    ic = json.load(open(f"{d}/{stem}.json"))["metadata"]["interconnect"]
    assert ic["name"] == name and ic["source"].startswith(source) and ic["hosts"] == 1, ic
assert json.load(open(f"{d}/b.json"))["metadata"]["interconnect"]["details"] == "2 x HDR"
print("ok: one-host by default, the launcher's name when given")
PY
