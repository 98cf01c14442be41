#!/usr/bin/env bash
# The MPI library forced to one of its own algorithms, as scripts/mpi_algorithms.sh does
# it: the settings and names come from the library (`collbench list --json`), the rows
# are named mpi[NAME] and correct, the metadata records what was forced. Then, for Open
# MPI, forced choices the library would ignore or reject are refused, not run as if
# they had been.
# usage: forced_algorithm.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$mpiexec" -n 1 "$collbench" list --json >"$dir/list.json" || fail "list --json"
read -r family settings algorithm < <(python3 -c '
import json, sys
lib = json.load(open(sys.argv[1]))["mpi_library"]
a = lib["algorithms"]["allreduce"]
family = lib["summary"].split()[0]
# a ring-like algorithm every library has, else its first
alg = next((x for x in a["algorithms"] if x in ("ring", "recursive_doubling")), a["algorithms"][0] if a["algorithms"] else "")
print(family, ",".join(a["settings"]), alg)' "$dir/list.json")
[ -n "$algorithm" ] || { echo "skip: collbench cannot force this library ($family)"; exit 77; }
env_args=()
IFS=, read -ra parts <<<"$settings"
for s in "${parts[@]}"; do env_args+=("${s//\{\}/$algorithm}"); done
echo "forcing: ${env_args[*]}"
env "${env_args[@]}" "$mpiexec" -n 2 "$collbench" run -a mpi,ring -b 8 -e 64K -f 16 -n 5 -w 1 \
  --csv "$dir/r.csv" >"$dir/out" 2>&1 || { rc=$?; cat "$dir/out"; fail "forced run exited $rc"; }
python3 - "$dir/r.csv" "$dir/r.json" "$algorithm" <<'PY' || exit 1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = f"mpi[{sys.argv[3]}]"
names = {r["algorithm"] for r in rows}
assert names == {want, "ring"}, f"rows named {names}, want {want} and ring"
assert all(r["errors"] == "0" for r in rows), "wrong results"
m = json.load(open(sys.argv[2]))["metadata"]["mpi_baseline"]
assert m["forced_algorithm"] == sys.argv[3] and m["row_name"] == want and m["forced_by"], m
print("ok:", want, "rows,", m["forced_by"])
PY

# One the library runs only from 2 floats per call on 2 ranks has rows from 8 bytes, with
# a note: MPICH's reduce_scatter_allgather cannot run below (with FALLBACK=error a 4-byte
# call fails), Open MPI's ring runs recursive doubling there by itself.
case $family in MPICH) limited=reduce_scatter_allgather ;; Open) limited=ring ;; *) limited="" ;; esac
if [ -n "$limited" ]; then
  env_args=()
  for s in "${parts[@]}"; do env_args+=("${s//\{\}/$limited}"); done
  env "${env_args[@]}" "$mpiexec" -n 2 "$collbench" run -a mpi -b 4 -e 16 -f 2 -n 3 -w 1 --csv "$dir/l.csv" \
    >"$dir/lout" 2>&1 </dev/null || { rc=$?; cat "$dir/lout"; fail "forced $limited from 4 bytes exited $rc"; }
  sizes=$(python3 -c 'import csv, sys; print(" ".join(r["bytes"] for r in csv.DictReader(open(sys.argv[1]))))' "$dir/l.csv")
  [ "$sizes" = "8 16" ] || { cat "$dir/lout"; fail "forced $limited: rows at '$sizes', not '8 16'"; }
  grep -q "mpi\[$limited\] has rows from 8 bytes on only: .*$limited.* 2 elements per call on 2 ranks" "$dir/lout" ||
    { cat "$dir/lout"; fail "no note for forced $limited"; }
  echo "ok: forced $limited has rows from 8 bytes"
fi
[ "$family" = Open ] || exit 0

# Open MPI: each of these would not run the forced algorithm.
x=OMPI_MCA_coll_tuned_allreduce_algorithm
refused() {  # refused PATTERN VAR=VALUE...
  local pattern=$1
  shift
  "$here/expect_error.sh" "$pattern" env "$@" "$mpiexec" -n 2 "$collbench" run -a mpi -b 8 -e 8 --csv /dev/null --json /dev/null
}
refused "Open MPI ignores coll_tuned_allreduce_algorithm unless coll_tuned_use_dynamic_rules is true" \
  "$x=ring" OMPI_MCA_coll_tuned_use_dynamic_rules=0 || exit 1
refused "Open MPI did not accept coll_tuned_allreduce_algorithm=bogus; its allreduce algorithms are 1 basic_linear" \
  "$x=bogus" OMPI_MCA_coll_tuned_use_dynamic_rules=1 || exit 1
refused "Open MPI did not accept coll_tuned_allreduce_algorithm=99" "$x=99" OMPI_MCA_coll_tuned_use_dynamic_rules=1 || exit 1
refused "coll/han \\(priority 50\\) takes MPI_Allreduce before coll/tuned \\(priority 30\\)" \
  "$x=ring" OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_han_priority=50 OMPI_MCA_coll= || exit 1
refused "coll/tuned is not in use \\(coll=\\^tuned,han\\)" "$x=ring" OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll=^tuned,han || exit 1
echo PASS
