#!/usr/bin/env bash
# Runs a sweep under a deliberately broken MPI library (LD_PRELOAD) and checks that the
# errors land on the right rows and the right party is blamed.
#   blame.sh LIBRARY library|p2p MPIEXEC COLLBENCH [collbench run flags...]
# library: only the mpi rows may have errors, and the MPI library is blamed.
# p2p:     only the reference rows may have errors, and MPI_Allreduce is said to be right.
set -uo pipefail
lib=$1 expect=$2 mpiexec=$3 collbench=$4
shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The ranks get LD_PRELOAD through env, not the launcher, so any launcher works and
# the launcher itself stays unbroken.
"$mpiexec" -n 2 env LD_PRELOAD="$lib" MPIR_CVAR_POLLS_BEFORE_YIELD=1 "$collbench" run -a mpi,ring,tree,recursive_doubling \
  -b 8 -e 256K -f 16 -w 2 -n 20 --csv "$dir/r.csv" --json "$dir/r.json" "$@" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }
[ "$rc" = 1 ] || fail "exit status $rc, want 1 (wrong results)"
# errors per algorithm, from the CSV (column 'errors')
sums=$(awk -F, 'NR==1 {for (i=1;i<=NF;i++) if ($i=="errors") c=i; next} {e[$2]+=$c} END {for (a in e) print a, e[a]}' "$dir/r.csv" | sort)
echo "$sums"
mpi=$(awk '$1=="mpi" {print $2}' <<<"$sums")
ref=$(awk '$1!="mpi" {s+=$2} END {print s+0}' <<<"$sums")
case $expect in
  library)
    [ "${mpi:-0}" -gt 0 ] || fail "the mpi rows show no errors"
    [ "$ref" = 0 ] || fail "correct reference rows show $ref errors"
    grep -q "the MPI library returned wrong results" "$dir/err" || fail "the MPI library is not blamed" ;;
  p2p)
    [ "${mpi:-0}" = 0 ] || fail "the mpi rows show errors"
    [ "$ref" -gt 0 ] || fail "the reference rows show no errors"
    grep -q "while MPI_Allreduce was right" "$dir/err" || fail "the message does not clear MPI_Allreduce" ;;
esac
echo PASS
