#!/usr/bin/env bash
# scripts/tune_library.sh's whole loop at four small sizes on a 3-rank job, at its own
# communicator size and at 2 ranks (COMM_SIZES): it measures both, writes and checks one
# tuning file for both, judges it at both on new launches with every result checked,
# and summarizes; where the tuned library runs alone (Open MPI 4.1), a yardstick of
# collbench's own runs in both launches and the summary scales by it; where it runs
# beside the algorithms (MPICH), no yardstick; Open MPI's segmented_ring is measured with a
# segment of its own too (SEGMENTS); every launch's CPU placement is recorded beside it,
# and where the tuned library runs alone, each round's sweep is split into launch pairs of
# JUDGE_SIZES sizes.
# A communicator size the job does not have,
# and a second run into the same directory, are refused, leaving what is there.
# usage: tune_loop.sh MPIEXEC COLLBENCH [loop|every]   (both parts where none is named;
#        ctest runs them as two tests, each under a minute)
set -u
mpiexec=$1 collbench=$2 part=${3:-both}
repo=$(cd "$(dirname "$0")/../.." && pwd)
# The tree of the collbench given (BUILD/harness/collbench); its launches go through the
# launcher given, which for the tests is not BUILD/mpiexec (tests/CMakeLists.txt).
build=$(cd "$(dirname "$collbench")/.." && pwd)
export MPIEXEC=$mpiexec
# shellcheck source=tests/cli/cli_scratch.sh
source "$(dirname "$0")/cli_scratch.sh"
python3 -c '
import json, sys
a = json.load(open("list.json"))["mpi_library"]["algorithms"]["allreduce"]
sys.exit(0 if a.get("switchable") or "coll_tuned_use_dynamic_rules" in a.get("switch_unavailable", "") else 1)' ||
  { echo "skip: the library's allreduce algorithms cannot be switched in a run"; exit 77; }

# Open MPI: segmented_ring with 4-byte segments too (SEGMENTS), from 16 B on 3 ranks (one
# segment per rank below); MPICH switches no algorithm with a segment: refused up front.
# (Open MPI lists its segmented algorithms only with dynamic rules, as the loop runs.)
OMPI_MCA_coll_tuned_use_dynamic_rules=1 "$mpiexec" -n 1 "$collbench" list --json >list-dynamic.json </dev/null ||
  fail "list --json"
segmented=$(python3 -c '
import json
print(" ".join(json.load(open("list-dynamic.json"))["mpi_library"]["algorithms"]["allreduce"].get("segmented", [])))')
seg=
if [ -n "$segmented" ]; then
  seg=4
else
  refused "SEGMENTS where no algorithm takes one" "SEGMENTS: none of allreduce's algorithms" \
    env SEGMENTS=4 NP=3 COLLECTIVES=allreduce BUILD="$build" "$repo/scripts/tune_library.sh" "$dir/tuned" -b 8 -e 64
  [ ! -e tuned ] || fail "the refused SEGMENTS run left tuned/"
  refused "SEGMENTS where no collective's algorithm takes one" "SEGMENTS: no algorithm of .* is switched" \
    env SEGMENTS=4 NP=3 BUILD="$build" "$repo/scripts/tune_library.sh" "$dir/tuned" -b 8 -e 64
  [ ! -e tuned ] || fail "the refused SEGMENTS run left tuned/"
fi
# The loop itself, judged at two communicator sizes (its bodies are not indented: heredocs).
if [ "$part" != every ]; then
refused "an unknown collective" "COLLECTIVES: unknown collective 'bogus'" \
  env NP=3 COLLECTIVES="allreduce bogus" BUILD="$build" "$repo/scripts/tune_library.sh" "$dir/tuned" -b 8 -e 64
[ ! -e tuned ] || fail "the refused COLLECTIVES run left tuned/"
# (tune_library.sh works from the repository's root: OUTDIR absolute.)
loop() {
  JUDGE_SIZES=2 SEGMENTS=$seg NP=3 COMM_SIZES=${1:-"3 2"} MEASURE_ROUNDS=1 ROUNDS=2 COLLECTIVES=allreduce \
    BUILD=$build "$repo/scripts/tune_library.sh" "$dir/tuned" -b 8 -e 64 -n 20 -w 2 </dev/null
}
refused "JUDGE_SIZES not a number" "JUDGE_SIZES: 'two' is not a number of sizes" \
  env JUDGE_SIZES=two NP=3 COLLECTIVES=allreduce BUILD="$build" "$repo/scripts/tune_library.sh" "$dir/tuned" -b 8 -e 64
refused "JUDGE_SIZES over sizes a launch cannot start at" "size 12 is not a multiple of 8 bytes" \
  env JUDGE_SIZES=2 NP=3 COLLECTIVES=allreduce BUILD="$build" "$repo/scripts/tune_library.sh" "$dir/tuned" \
  -b 8 -e 64 -f 1.5
[ ! -e tuned ] || fail "the refused JUDGE_SIZES runs left tuned/"
refused "a communicator larger than the job" "COMM_SIZES: '4' is not a communicator size from 2 to the job's 3" \
  loop "2 4"
[ ! -e tuned ] || fail "the refused run left tuned/"
loop >loop.log 2>&1
rc=$?
[ "$rc" = 0 ] || { tail -30 loop.log; fail "tune_library.sh exited $rc"; }
grep -q "Wrong elements in every evaluated row: 0\." tuned/SUMMARY.md || { cat tuned/SUMMARY.md; fail "wrong elements"; }
[ -s tuned/tuning-file ] || fail "no tuning file"
SEG=$seg python3 - <<'PY' || { cat tuned/SUMMARY.md; fail "the summary"; }
import csv, glob, json, os, sys
rows = list(csv.DictReader(open("tuned/comparison.csv")))


def launches(name):
    """The rows of a launch, or of the launch pairs a judging round was split into (JUDGE_SIZES)."""
    paths = sorted(glob.glob(f"tuned/{name}.json") + glob.glob(f"tuned/{name}-slice*.json"))
    assert paths, name
    return [r for p in paths for r in json.load(open(p))["rows"]]


points = [(int(r["ranks"]), int(r["bytes"])) for r in rows]
assert points == [(n, b) for n in (2, 3) for b in (8, 16, 32, 64)], points
for name in ("measure/round-1/allreduce-2ranks", "measure/round-1/allreduce",
             "evaluate/round-2/parts/allreduce-tuned-2ranks", "evaluate/round-2/parts/allreduce-default"):
    ranks = {r["ranks"] for r in launches(name)}
    assert ranks == {2 if "2ranks" in name else 3}, (name, ranks)
measured = {(r["algorithm"], r["bytes"]) for r in json.load(open("tuned/measure/round-1/allreduce.json"))["rows"]}
segmented = sorted(b for a, b in measured if a == "mpi[segmented_ring:seg=4]")
assert segmented == ([16, 32, 64] if os.environ["SEG"] else []), segmented
text = open("tuned/tuning-file").read()
assert all(f"allreduce, {n} ranks, 8 B" in text for n in (2, 3)), "the file does not say it was measured at both"
rows = [r for r in rows if r["ranks"] == "3"]
tuned = [r["algorithm"] for r in launches("evaluate/round-1/parts/allreduce-tuned")]
alone = not any(a.startswith("mpi[") and a != "mpi[tuned]" for a in tuned)
own = [a for a in tuned if a != "mpi[tuned]" and not a.startswith("mpi[")]
if alone:  # the yardstick beside the tuned library, and the scaled verdicts
    assert own == ["ring"] * 4, tuned
    assert all(r["yardstick"] == "ring" and r["scaled_vs_best"] for r in rows), rows[0]
    assert "Yardstick: collbench's own ring (allreduce)" in open("tuned/SUMMARY.md").read()
    # JUDGE_SIZES=2: each round's sweep in two launch pairs of two sizes each.
    for kind in ("default", "tuned"):
        sizes = [sorted({r["bytes"] for r in json.load(open(f"tuned/evaluate/round-2/parts/allreduce-{kind}-slice{i}.json"))["rows"]})
                 for i in (1, 2)]
        assert sizes == [[8, 16], [32, 64]], (kind, sizes)
    slices = "-slice1"
else:  # judged beside its algorithms: JUDGE_SIZES has nothing to split
    assert not own and "yardstick" not in rows[0], tuned
    assert not glob.glob("tuned/evaluate/*/parts/*slice*"), "slices where the tuned library ran beside"
    slices = ""
# Every launch between two measurements of its CPUs' placement, named in the summary.
for name in ("measure/round-1/allreduce-2ranks", f"evaluate/round-2/parts/allreduce-tuned{slices}",
             f"evaluate/round-1/parts/allreduce-default-2ranks{slices}"):
    for when in ("before", "after"):
        assert "handoff_ns=" in open(f"tuned/{name}.cpus-{when}.txt").read(), (name, when)
assert "CPU placement (collbench-core-handoff" in open("tuned/SUMMARY.md").read()
print("ok: the loop, " + ("the tuned library alone, with a yardstick" if alone else "judged beside its algorithms"))
PY
before=$(find tuned -type f | sort | xargs md5sum)
refused "a second run into tuned/" "already holds results" loop
[ "$before" = "$(find tuned -type f | sort | xargs md5sum)" ] || fail "the refused run changed tuned/"

fi

if [ "$part" != loop ]; then
# Without COLLECTIVES the loop tunes every collective the library's file can choose by
# size (list --json's tunable), with SEGMENTS where a collective has an algorithm that
# takes one (Open MPI) and without elsewhere.
SEGMENTS=$seg NP=2 MEASURE_ROUNDS=1 ROUNDS=1 BUILD=$build "$repo/scripts/tune_library.sh" "$dir/every" \
  -b 8 -e 16 -n 5 -w 1 </dev/null >every.log 2>&1 || { tail -30 every.log; fail "the loop over every collective"; }
grep -q "Wrong elements in every evaluated row: 0\." every/SUMMARY.md || { cat every/SUMMARY.md; fail "wrong elements"; }
SEG=$seg python3 - <<'PY' || { cat every/SUMMARY.md; fail "the loop over every collective"; }
import csv, json, os
algorithms = json.load(open("list-dynamic.json"))["mpi_library"]["algorithms"]
tunable = {c for c, a in algorithms.items() if a["tunable"]}
assert {"allreduce", "broadcast", "reduce", "allgather", "reduce_scatter", "gather", "alltoall"} <= tunable, tunable
summarized = {r["collective"] for r in csv.DictReader(open("every/comparison.csv"))}
assert summarized == tunable, (summarized, tunable)
text = open("every/tuning-file").read()
assert all(f"{c}, 2 ranks, 8 B" in text for c in tunable), "the file does not say each was measured"
for c in tunable:
    rows = json.load(open(f"every/measure/round-1/{c}.json"))["rows"]
    with_segments = any(":seg=" in r["algorithm"] for r in rows)
    assert with_segments == bool(os.environ["SEG"] and algorithms[c]["segmented"]), (c, with_segments)
print("ok: the loop tuned every collective the file can tune:", " ".join(sorted(tunable)))
PY
fi
echo "PASS"
