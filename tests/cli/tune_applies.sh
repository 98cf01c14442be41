#!/usr/bin/env bash
# A tuning file that chooses one algorithm at one size makes the library's mpi row run
# that algorithm there and only there (MPICH). Seen without timing: MPICH's
# reduce_scatter_allgather asserts count >= the power of two below the communicator size
# (coll_algorithms.txt's restriction, which `tune` guards with "count<pow2"), so a file
# that chooses it at 12 bytes (3 floats on 4 ranks) without that guard makes a 12-byte
# allreduce abort inside MPICH, while 24 bytes, where the file keeps the library's
# choice, runs; with tune's guard kept, 12 bytes runs too. (Below 12 bytes the file
# keeps the library's choice: MPICH's own 4- and 8-byte allreduces, e.g. inside
# MPI_Comm_split_type, must not reach the unguarded algorithm.)
# usage: tune_applies.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
# shellcheck source=tests/cli/cli_scratch.sh
source "$(dirname "$0")/cli_scratch.sh"
python3 -c '
import json, sys
a = json.load(open("list.json"))["mpi_library"]["algorithms"]["allreduce"]
sys.exit(0 if "reduce_scatter_allgather" in a.get("switchable", []) else 1)' ||
  { echo "skip: needs MPICH's allreduce algorithms switched in a run"; exit 77; }

# A real launch's rows at 12 and 24 bytes, recursive_doubling renamed and retimed so that
# tune chooses reduce_scatter_allgather at 12 bytes only.
"$mpiexec" -n 4 "$collbench" run -c allreduce -a 'mpi,mpi[recursive_doubling]' -b 12 -e 24 -n 5 -w 1 --rounds 3 \
  --csv measured.csv --json measured.json >/dev/null 2>&1 </dev/null || fail "the measuring run"
python3 - <<'PY' || exit 1
import json
d = json.load(open("measured.json"))
for r in d["rows"]:
    if r["algorithm"] == "mpi[recursive_doubling]":
        r["algorithm"] = "mpi[reduce_scatter_allgather]"
    fast = r["algorithm"] != "mpi" and r["bytes"] == 12
    r["round_mean_us"] = [1.0, 1.1, 1.2] if fast else [10.0, 10.5, 11.0]
    r["p50_us"] = 1.1 if fast else 10.5
json.dump(d, open("chosen.json", "w"))
PY
"$mpiexec" -n 1 "$collbench" tune chosen.json --out guarded >tune.out 2>&1 </dev/null || { cat tune.out; fail "tune"; }
grep -q " 12 B: .*: reduce_scatter_allgather (" tune.out || { cat tune.out; fail "tune did not choose it at 12 bytes"; }
grep -q " 24 B: .*: default kept" tune.out || { cat tune.out; fail "tune did not keep the default at 24 bytes"; }
python3 - <<'PY' || exit 1
text = open("guarded").read()
leaf = '{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}'
import json, re
head, body = text[:text.index("*/") + 2], json.loads(text[text.index("*/") + 2:])
def strip(node):
    """The guard tune writes around the algorithm, removed."""
    if isinstance(node, dict):
        if "count<pow2" in node and json.dumps(node.get("count=any")) == leaf:
            return json.loads(leaf)
        return {k: strip(v) for k, v in node.items()}
    return node
stripped = strip(body)
assert stripped != body, "no guard found around reduce_scatter_allgather"
open("unguarded", "w").write(head + "\n" + json.dumps(stripped))
PY
run() {  # run FILE BYTES: a plain mpi allreduce at BYTES with the library reading FILE
  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$dir/$1 "$mpiexec" -n 4 "$collbench" run -c allreduce -a mpi \
    -b "$2" -e "$2" -n 3 -w 1 --csv /dev/null --json /dev/null </dev/null >"$1-$2.out" 2>&1
}
run guarded 12 || { cat guarded-12.out; fail "guarded file, 12 bytes"; }
run unguarded 24 || { cat unguarded-24.out; fail "unguarded file, 24 bytes (the library's choice)"; }
if run unguarded 12; then
  cat unguarded-12.out
  fail "12 bytes ran with a file that sends it to reduce_scatter_allgather unguarded"
fi
grep -q "reduce_scatter_allgather.*count >= pof2" unguarded-12.out ||
  { cat unguarded-12.out; fail "12 bytes failed, but not in MPICH's reduce_scatter_allgather"; }
echo "ok: the file's algorithm ran at 12 bytes (MPICH asserted in it) and not at 24"
