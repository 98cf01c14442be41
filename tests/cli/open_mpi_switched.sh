#!/usr/bin/env bash
# Open MPI's own algorithms switched inside one run (-a mpi[NAME], mpi[all]; each on a
# communicator made to run it, with coll_tuned_use_dynamic_rules set at launch): every
# algorithm gets its own checked rows, two_proc is left out (with a note) or refused
# beyond 2 ranks, and without dynamic rules, or beside a rules file (which Open MPI 4.1
# lets win over a switched algorithm), a switch is refused with the reason (exit 2).
# That a duplicate runs its algorithm: tests/mpi/library_switch_test.cpp.
# usage: open_mpi_switched.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
# shellcheck source=tests/cli/cli_scratch.sh
source "$(dirname "$0")/cli_scratch.sh"
grep -q '"summary": *"Open MPI' list.json || { echo "skip: not Open MPI"; exit 77; }

export OMPI_MCA_coll_tuned_use_dynamic_rules=1
sweep=(-b 12 -e 3K -f 16 -n 5 -w 2 --rounds 2)
"$mpiexec" -n 3 "$collbench" run -c allgather -a 'mpi,mpi[all]' "${sweep[@]}" --json all.json --csv all.csv \
  >all.out 2>&1 </dev/null || { cat all.out; fail "mpi,mpi[all]"; }
python3 -c '
import json
rows = json.load(open("all.json"))["rows"]
names = sorted({r["algorithm"] for r in rows})
want = ["mpi"] + ["mpi[%s]" % a for a in ("bruck", "linear", "neighbor", "recursive_doubling", "ring")]
assert names == want, names
assert all(int(r["errors"]) == 0 for r in rows), "wrong elements"
print("ok: rows of", ", ".join(names))' || fail "rows of mpi[all]"
grep -q "mpi\[all\] leaves out mpi\[two_proc\]: .*exactly 2 ranks, not 3" all.out || fail "no note for two_proc"
refused "mpi[two_proc] on 3 ranks" "two_proc runs on exactly 2 ranks" \
  "$mpiexec" -n 3 "$collbench" run -c allgather -a 'mpi[two_proc]' "${sweep[@]}"
printf '1\n2\n1\n0\n1\n0\n1\n0 0 0 0\n' >rules.conf  # allreduce (2) on 1 rank: 0 bytes up, alg 0
refused "a switch beside a rules file" "rules file (.*rules.conf) wins over a switched algorithm" \
  env OMPI_MCA_coll_tuned_dynamic_rules_filename="$PWD/rules.conf" \
  "$mpiexec" -n 2 "$collbench" run -a 'mpi[ring]' "${sweep[@]}"
unset OMPI_MCA_coll_tuned_use_dynamic_rules
refused "a switch without dynamic rules" "only with OMPI_MCA_coll_tuned_use_dynamic_rules=1 set at launch" \
  "$mpiexec" -n 2 "$collbench" run -a 'mpi[ring]' "${sweep[@]}"
