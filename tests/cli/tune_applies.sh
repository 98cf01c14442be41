#!/usr/bin/env bash
# A tuning file that chooses one algorithm at one size makes the library's mpi row run
# that algorithm there and only there, under either library. Seen without timing, with an
# algorithm that fails where the file sends a call:
# - MPICH: reduce_scatter_allgather asserts count >= the power of two below the
#   communicator size (coll_algorithms.txt's restriction, which `tune` guards with
#   "count<pow2"), so a file that chooses it at 12 bytes (3 floats on 4 ranks) without
#   that guard makes a 12-byte allreduce abort inside MPICH, while 24 bytes, where the
#   file keeps the library's choice, runs; with tune's guard kept, 12 bytes runs too.
#   (Below 12 bytes the file keeps the library's choice: MPICH's own 4- and 8-byte
#   allreduces, e.g. inside MPI_Comm_split_type, must not reach the unguarded algorithm.)
# - Open MPI: allgather two_proc returns MPI_ERR_UNSUPPORTED_OPERATION on any
#   communicator of other than 2 ranks, so a rules file that chooses it at 1200 bytes on
#   3 ranks makes a 1200-byte allgather fail there, while 2400 bytes, where the file keeps
#   the library's choice, runs, and so does 1200 bytes without the file. collbench's own
#   MPI error handler says so (Open MPI's message, through its launcher's help
#   aggregation, is lost at times when several ranks fail at once).
# usage: tune_applies.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
# Open MPI switches its algorithms in the measuring run only with this set at launch.
export OMPI_MCA_coll_tuned_use_dynamic_rules=1
# shellcheck source=tests/cli/cli_scratch.sh
source "$(dirname "$0")/cli_scratch.sh"
read -r family settings < <(python3 -c '
import json, sys
lib = json.load(open(sys.argv[1]))["mpi_library"]
print(lib["summary"].split()[0], ",".join(lib["tuning_file_settings"]) or "-")' list.json)
# with_file FILE COMMAND...: COMMAND with the library told to read FILE.
with_file() {
  local file=$1 env_args=() s
  shift
  IFS=, read -ra parts <<<"$settings"
  for s in "${parts[@]}"; do env_args+=("${s//\{\}/$dir/$file}"); done
  env "${env_args[@]}" "$@"
}
# measure_and_tune N COLLECTIVE MEASURED CHOSEN SMALL LARGE: a real launch's rows of mpi
# and mpi[MEASURED] at SMALL and LARGE bytes, MEASURED renamed CHOSEN and retimed so that
# tune chooses CHOSEN at SMALL only; the file is `guarded`.
measure_and_tune() {
  local n=$1 coll=$2 measured=$3 chosen=$4 small=$5 large=$6
  "$mpiexec" -n "$n" "$collbench" run -c "$coll" -a "mpi,mpi[$measured]" -b "$small" -e "$large" -n 5 -w 1 \
    --rounds 3 --csv measured.csv --json measured.json >measure.out 2>&1 </dev/null ||
    { cat measure.out; fail "the measuring run"; }
  python3 - "$measured" "$chosen" "$small" <<'PY' || exit 1
import json, sys
measured, chosen, small = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open("measured.json"))
for r in d["rows"]:
    if r["algorithm"] == f"mpi[{measured}]":
        r["algorithm"] = f"mpi[{chosen}]"
    fast = r["algorithm"] != "mpi" and r["bytes"] == small
    r["round_mean_us"] = [1.0, 1.1, 1.2] if fast else [10.0, 10.5, 11.0]
    r["p50_us"] = 1.1 if fast else 10.5
json.dump(d, open("chosen.json", "w"))
PY
  "$mpiexec" -n 1 "$collbench" tune chosen.json --out guarded >tune.out 2>&1 </dev/null || { cat tune.out; fail "tune"; }
  grep -q " $small B: .*: $chosen (" tune.out || { cat tune.out; fail "tune did not choose $chosen at $small bytes"; }
  grep -q " $large B: .*: default kept" tune.out ||
    { cat tune.out; fail "tune did not keep the default at $large bytes"; }
}
# run_with FILE N COLLECTIVE BYTES: a plain mpi row at BYTES with the library reading FILE.
run_with() {
  with_file "$1" "$mpiexec" -n "$2" "$collbench" run -c "$3" -a mpi -b "$4" -e "$4" -n 3 -w 1 \
    --csv /dev/null --json /dev/null </dev/null >"$1-$4.out" 2>&1
}
# applies FILE N COLLECTIVE SMALL LARGE PATTERN [STATUS]: with FILE, LARGE bytes run (the
# library's choice) and SMALL fails with PATTERN in the output (the file's algorithm ran),
# with exit status STATUS where given.
applies() {
  local file=$1 n=$2 coll=$3 small=$4 large=$5 pattern=$6 want=${7:-}
  run_with "$file" "$n" "$coll" "$large" || { cat "$file-$large.out"; fail "$file, $large bytes (the library's choice)"; }
  run_with "$file" "$n" "$coll" "$small"
  local rc=$?
  if [ "$rc" = 0 ]; then
    cat "$file-$small.out"
    fail "$small bytes ran with $file, which sends them to an algorithm that fails there"
  fi
  grep -q "$pattern" "$file-$small.out" || { cat "$file-$small.out"; fail "$small bytes failed, but not with '$pattern'"; }
  [ -z "$want" ] || [ "$rc" = "$want" ] || { cat "$file-$small.out"; fail "$small bytes failed with exit status $rc, not $want"; }
  echo "ok: $file's algorithm ran at $small bytes ($pattern) and not at $large"
}
# needs COLLECTIVE ALGORITHM...: skip unless each ALGORITHM of the library's COLLECTIVE is switchable.
needs() {
  python3 - "$@" <<'PY' || { echo "skip: needs the library's $1 algorithms ${*:2} switched in a run"; exit 77; }
import json, sys
a = json.load(open("list.json"))["mpi_library"]["algorithms"].get(sys.argv[1], {})
sys.exit(0 if set(sys.argv[2:]) <= set(a.get("switchable", [])) else 1)
PY
}

case $family in
MPICH)
  needs allreduce recursive_doubling reduce_scatter_allgather
  measure_and_tune 4 allreduce recursive_doubling reduce_scatter_allgather 12 24
  python3 - <<'PY' || exit 1
text = open("guarded").read()
leaf = '{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}'
import json
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
  run_with guarded 4 allreduce 12 || { cat guarded-12.out; fail "guarded file, 12 bytes"; }
  applies unguarded 4 allreduce 12 24 "reduce_scatter_allgather.*count >= pof2"
  ;;
Open)
  needs allgather ring
  measure_and_tune 3 allgather ring two_proc 1200 2400
  grep -q "^ *1200 [1-9][0-9]* " guarded || { cat guarded; fail "no rule at 1200 bytes in the rules file"; }
  applies guarded 3 allgather 1200 2400 "collbench: rank 0: the MPI library returned an error: MPI_ERR_UNSUPPORTED_OPERATION" 3
  ;;
*)
  echo "skip: no algorithm of $family is known to fail where a file sends it"
  exit 77
  ;;
esac
