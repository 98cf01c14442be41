#!/usr/bin/env bash
# The MPI library's own algorithms switched inside one run (-a mpi[NAME], mpi[all]):
# the value collbench writes for each name is the one MPICH itself gives that name when
# the environment forces it (read back through MPI_T), a run of mpi and mpi[all] gives
# each algorithm its own checked rows and leaves out, with a note, what MPICH cannot run
# here (and, at the sizes below its smallest count only, what it can run from there on),
# and an algorithm named alone that MPICH cannot run, or a switch while the
# environment already forces one, is refused with one message (exit 2).
# usage: switched_algorithms.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
# shellcheck source=tests/cli/cli_scratch.sh
source "$(dirname "$0")/cli_scratch.sh"
python3 -c '
import json, sys
lib = json.load(open(sys.argv[1]))["mpi_library"]["algorithms"]
for coll, a in lib.items():
    for i, name in enumerate(a.get("switchable", []), 1):
        print(coll, a["settings"][0].split("=")[0], name, i)' list.json >switchable.txt
if [ ! -s switchable.txt ]; then
  echo "skip: this MPI library's algorithms cannot be switched in a run"
  exit 77
fi
while read -r coll cvar name value; do
  got=$(env "$cvar=$name" "$mpiexec" -n 1 "$collbench" list --json </dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["mpi_library"]["algorithms"][sys.argv[1]].get("selected_value"))' "$coll")
  [ "$got" = "$value" ] || fail "$coll $name: MPICH holds $got for it, collbench would write $value"
done <switchable.txt
echo "ok: $(wc -l <switchable.txt) algorithms, each written as the value MPICH gives its name"

sweep=(run -c allreduce -b 4 -e 1K -f 4 -n 5 -w 2 --rounds 2)
"$mpiexec" -n 2 "$collbench" "${sweep[@]}" -a 'mpi,mpi[all]' --json all.json --csv all.csv >all.out 2>&1 </dev/null ||
  { cat all.out; fail "mpi,mpi[all]"; }
python3 -c '
import json, sys
doc = json.load(open("all.json"))
rows = doc["rows"]
names = sorted({r["algorithm"] for r in rows})
assert names == ["mpi", "mpi[nb]", "mpi[recursive_doubling]", "mpi[reduce_scatter_allgather]"], names
assert all(int(r["errors"]) == 0 for r in rows), "wrong elements"
# reduce_scatter_allgather needs count >= 2 on 2 ranks: every size but 4 bytes (1 float).
rsa = sorted(int(r["bytes"]) for r in rows if r["algorithm"] == "mpi[reduce_scatter_allgather]")
mpi = sorted(int(r["bytes"]) for r in rows if r["algorithm"] == "mpi")
assert mpi[0] == 4 and rsa == mpi[1:], (rsa, mpi)
assert doc["metadata"]["options"]["algorithms_from_count"] == {"mpi[reduce_scatter_allgather]": 2}
print("ok: rows of", ", ".join(names), "; reduce_scatter_allgather from", rsa[0], "bytes")' || fail "rows of mpi[all]"
grep -q "mpi\[all\] leaves out mpi\[smp\]: .*node hierarchy" all.out || fail "no note for smp"
grep -q "mpi\[reduce_scatter_allgather\] has rows from 16 bytes on only: .*at least 2 elements" all.out ||
  fail "no note for reduce_scatter_allgather below 16 bytes"
refused "reduce_scatter_allgather at 4 bytes only" "at least 2 elements.*raise --maxbytes" \
  "$mpiexec" -n 2 "$collbench" run -c allreduce -b 4 -e 4 -n 2 -w 1 -a 'mpi[reduce_scatter_allgather]'

# alltoallv: MPICH runs pairwise_sendrecv_replace only in place, scattered never.
for in_place in "" --in-place; do
  "$mpiexec" -n 2 "$collbench" run -c alltoallv -b 64 -e 64 -n 2 -w 1 $in_place -a 'mpi[all]' >a2av.out 2>&1 </dev/null ||
    { cat a2av.out; fail "alltoallv mpi[all] ${in_place:-out of place}"; }
done
grep -q "leaves out mpi\[scattered\]: .*does not run in place" a2av.out || fail "no note for scattered in place"
refused "pairwise_sendrecv_replace out of place" "runs only in place" \
  "$mpiexec" -n 2 "$collbench" run -c alltoallv -b 64 -e 64 -n 2 -w 1 -a 'mpi[pairwise_sendrecv_replace]'

refused "mpi[smp] on one node" "needs MPICH.s node hierarchy" \
  "$mpiexec" -n 2 "$collbench" "${sweep[@]}" -a 'mpi[smp]'
refused "an unknown mpi[NAME]" "mpi\[NAME\] for NAME in" \
  "$mpiexec" -n 2 "$collbench" "${sweep[@]}" -a 'mpi[fastest]'
refused "a switch while the environment forces" "already forces" \
  env MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=nb "$mpiexec" -n 2 "$collbench" "${sweep[@]}" -a 'mpi,mpi[recursive_doubling]'
