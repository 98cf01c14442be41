#!/usr/bin/env bash
# Open MPI's own algorithms switched inside one run (-a mpi[NAME], mpi[all]; each on a
# communicator made to run it, with coll_tuned_use_dynamic_rules set at launch): every
# algorithm gets its own checked rows; one Open MPI would replace by another at every
# size of the run is left out (with a note) or refused: two_proc beyond 2 ranks,
# allgather's recursive_doubling (bruck) and neighbor (ring) on 3, segmented_ring
# allreduce without a segment size (ring); one it replaces below some count per call
# (ring allreduce: recursive doubling below one element per rank) has rows from the first
# size where it runs itself; and without dynamic rules, or beside a rules file (which
# Open MPI 4.1 lets win over a switched algorithm), a switch is refused (exit 2). An
# algorithm that takes a segment runs with one of its own beside it (mpi[NAME:seg=BYTES]).
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
want = ["mpi"] + ["mpi[%s]" % a for a in ("bruck", "linear", "ring")]
assert names == want, names
assert all(int(r["errors"]) == 0 for r in rows), "wrong elements"
print("ok: rows of", ", ".join(names))' || fail "rows of mpi[all]"
grep -q "mpi\[all\] leaves out mpi\[two_proc\]: .*exactly 2 ranks, not 3" all.out || fail "no note for two_proc"
grep -q "mpi\[all\] leaves out mpi\[recursive_doubling\]: .*runs bruck on 3 ranks" all.out ||
  fail "no note for recursive_doubling"
grep -q "mpi\[all\] leaves out mpi\[neighbor\]: .*runs ring on 3 ranks" all.out || fail "no note for neighbor"

# allreduce on 3 ranks, 4-64 bytes: ring from 3 floats (16 B), rabenseifner from 2 (8 B),
# segmented_ring left out without a segment size and from 3 x 4 floats (64 B) with 16 bytes.
"$mpiexec" -n 3 "$collbench" run -c allreduce -a 'mpi[all]' -b 4 -e 64 -f 2 -n 3 -w 1 --json ar.json \
  >ar.out 2>&1 </dev/null || { cat ar.out; fail "allreduce mpi[all]"; }
env OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize=16 "$mpiexec" -n 3 "$collbench" run -c allreduce \
  -a 'mpi[segmented_ring]' -b 4 -e 64 -f 2 -n 3 -w 1 --json seg.json >seg.out 2>&1 </dev/null ||
  { cat seg.out; fail "segmented_ring with 16-byte segments"; }
python3 -c '
import json
def sizes(path, name):
    return sorted(int(r["bytes"]) for r in json.load(open(path))["rows"] if r["algorithm"] == name)
doc = json.load(open("ar.json"))
assert sizes("ar.json", "mpi[ring]") == [16, 32, 64], sizes("ar.json", "mpi[ring]")
assert sizes("ar.json", "mpi[rabenseifner]") == [8, 16, 32, 64], sizes("ar.json", "mpi[rabenseifner]")
assert sizes("ar.json", "mpi[recursive_doubling]") == [4, 8, 16, 32, 64]
assert sizes("ar.json", "mpi[segmented_ring]") == []
assert doc["metadata"]["options"]["algorithms_from_count"] == {"mpi[rabenseifner]": 2, "mpi[ring]": 3}
assert sizes("seg.json", "mpi[segmented_ring]") == [64], sizes("seg.json", "mpi[segmented_ring]")
assert all(int(r["errors"]) == 0 for p in ("ar.json", "seg.json") for r in json.load(open(p))["rows"])
print("ok: ring from 16 B, rabenseifner from 8 B, segmented_ring from 64 B with 16-byte segments")' ||
  fail "allreduce rows from the counts Open MPI runs them at"
grep -q "mpi\[ring\] has rows from 16 bytes on only: Open MPI.s allreduce ring runs recursive_doubling below 3 elements" \
  ar.out || fail "no note for ring"
grep -q "mpi\[all\] leaves out mpi\[segmented_ring\]: .*segment size of 0 bytes" ar.out ||
  fail "no note for segmented_ring"
# A segment of its own (--mpi-segments, mpi[NAME:seg=BYTES]) reaches the duplicate: 64-byte
# segments make a 1 MiB pipeline broadcast 16384 messages, far slower than the one
# message it is unsegmented (coll/tuned's 0); rows from two segments (32 floats) on only.
"$mpiexec" -n 2 "$collbench" run -c broadcast -a 'mpi[pipeline],mpi[binomial:seg=1K]' --mpi-segments 64 \
  -b 64 -e 1M -f 16384 -n 5 -w 1 --rounds 3 --json segb.json >segb.out 2>&1 </dev/null ||
  { cat segb.out; fail "broadcast with --mpi-segments"; }
python3 -c '
import json
rows = json.load(open("segb.json"))["rows"]
p50 = {(r["algorithm"], int(r["bytes"])): float(r["p50_us"]) for r in rows}
assert sorted(p50) == [("mpi[binomial:seg=1024]", 1 << 20), ("mpi[pipeline:seg=64]", 1 << 20),
                       ("mpi[pipeline]", 64), ("mpi[pipeline]", 1 << 20)], sorted(p50)
assert all(int(r["errors"]) == 0 for r in rows), "wrong elements"
slow = p50[("mpi[pipeline:seg=64]", 1 << 20)] / p50[("mpi[pipeline]", 1 << 20)]
assert slow > 3, "64-byte segments only %.2fx the unsegmented pipeline: did the segment reach it?" % slow
print("ok: 64-byte segments %.1fx slower at 1 MiB, rows from two segments" % slow)' ||
  fail "segments of their own"
grep -q "mpi\[pipeline:seg=64\] has rows from 1048576 bytes on only: mpi\[pipeline:seg=64\] is mpi\[pipeline\] (one segment) below 32 elements" \
  segb.out || fail "no note for the one-segment sizes"
refused "--mpi-segments without an algorithm that takes one" "names none of segmented_ring" \
  "$mpiexec" -n 2 "$collbench" run -c allreduce -a 'mpi[ring]' --mpi-segments 8K -b 4 -e 64 -n 2 -w 1
refused "--mpi-segments 0" "mpi-segments 0: a segment must be at least one f32 element" \
  "$mpiexec" -n 2 "$collbench" run -c broadcast -a 'mpi[pipeline]' --mpi-segments 0 -b 4 -e 64 -n 2 -w 1
refused "--mpi-segments of part of an element" "mpi-segments 6 is not a whole number of f32 elements" \
  "$mpiexec" -n 2 "$collbench" run -c broadcast -a 'mpi[pipeline]' --mpi-segments 6 -b 4 -e 64 -n 2 -w 1
refused "a segment for an algorithm that takes none" "unknown algorithm 'mpi\[ring:seg=8192\]'" \
  "$mpiexec" -n 2 "$collbench" run -c allreduce -a 'mpi[ring:seg=8K]' -b 4 -e 64 -n 2 -w 1
refused "segmented_ring without a segment size" "OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize" \
  "$mpiexec" -n 3 "$collbench" run -c allreduce -a 'mpi[segmented_ring]' -b 4 -e 64 -n 2 -w 1
refused "mpi[two_proc] on 3 ranks" "two_proc runs on exactly 2 ranks" \
  "$mpiexec" -n 3 "$collbench" run -c allgather -a 'mpi[two_proc]' "${sweep[@]}"
printf '1\n2\n1\n0\n1\n0\n1\n0 0 0 0\n' >rules.conf  # allreduce (2) on 1 rank: 0 bytes up, alg 0
refused "a switch beside a rules file" "rules file (.*rules.conf) wins over a switched algorithm" \
  env OMPI_MCA_coll_tuned_dynamic_rules_filename="$PWD/rules.conf" \
  "$mpiexec" -n 2 "$collbench" run -a 'mpi[ring]' "${sweep[@]}"
unset OMPI_MCA_coll_tuned_use_dynamic_rules
refused "a switch without dynamic rules" "only with OMPI_MCA_coll_tuned_use_dynamic_rules=1 set at launch" \
  "$mpiexec" -n 2 "$collbench" run -a 'mpi[ring]' "${sweep[@]}"
