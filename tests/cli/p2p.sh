#!/usr/bin/env bash
# `collbench p2p` on this host: all three tests (latency, bandwidth, exchange) at every size with their bytes checked, the
# alpha/beta fit rows after them (covering the sweep, positive latency), the pairs and
# link classes in the metadata, over MPI and over the shm transport; 3 ranks still
# measure one intra-host pair (the third rank sleeps).
# usage: p2p.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for t in mpi shm; do
  "$mpiexec" -n 2 "$collbench" p2p --transport "$t" -b 1 -e 256K -f 4 -n 20 -w 2 --rounds 2 \
    --csv "$dir/$t.csv" --json "$dir/$t.json" >"$dir/$t.out" 2>&1 || { tail -5 "$dir/$t.out"; fail "p2p over $t exited $?"; }
  grep -q "^# fit latency" "$dir/$t.out" || fail "p2p over $t printed no fit"
done
"$mpiexec" -n 3 "$collbench" p2p -t latency -b 8 -e 64 -n 5 -w 1 --csv "$dir/three.csv" >/dev/null 2>&1 ||
  fail "p2p on 3 ranks exited $?"
# The written test (an exchange of send buffers stored to just before), asked for by name.
"$mpiexec" -n 2 "$collbench" p2p -t written -b 4K -e 64K -f 4 -n 10 -w 1 --csv "$dir/written.csv" >"$dir/written.out" 2>&1 ||
  fail "p2p -t written exited $?"
grep -q "^# written: exchange whose send buffers" "$dir/written.out" || fail "p2p -t written printed no definition"
# Timed per call (the pair meets before each iteration, as run's calls): said in the
# header and the metadata; loop by default.
"$mpiexec" -n 2 "$collbench" p2p --timing per-call -t latency,exchange -b 1K -e 4K -f 4 -n 10 -w 1 \
  --json "$dir/per-call.json" --csv /dev/null >"$dir/per-call.out" 2>&1 || fail "p2p --timing per-call exited $?"
grep -q "^# timing: per-call, the pair exchanges 4 bytes" "$dir/per-call.out" || fail "p2p --timing per-call not in its header"
grep -q "^# timing: loop, iterations back to back" "$dir/mpi.out" || fail "p2p's default timing is not loop in its header"
# The pair test (two messages at once, until the first arrives), over MPI and shm.
for t in mpi shm; do
  "$mpiexec" -n 2 "$collbench" p2p --transport "$t" -t latency,pair -b 1K -e 1M -f 32 -n 10 -w 1 \
    --csv "$dir/pair-$t.csv" >"$dir/pair-$t.out" 2>&1 || fail "p2p -t pair over $t exited $?"
done
grep -q "^# pair: rank 0 posts two receives" "$dir/pair-mpi.out" || fail "p2p -t pair printed no definition"
# The rank that waits while a pair measures is waiting as asked, not stalled: a run
# longer than the watchdog must not end for it (it did, exit 4, before it beat).
"$mpiexec" -n 3 "$collbench" p2p -b 4M -e 16M -f 4 --rounds 3 --watchdog 2 --csv /dev/null --json /dev/null \
  >"$dir/idle.out" 2>&1 || fail "p2p with an idle rank and --watchdog 2 exited $?: $(grep watchdog "$dir/idle.out")"
python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
sizes = [1 << (2 * i) for i in range(10)]  # 1 B .. 256 KiB by 4
for t, transport in (("mpi", "mpi-p2p"), ("shm", "shm")):
    j = json.load(open(f"{d}/{t}.json"))
    assert j["completed"], t
    m = j["metadata"]
    assert m["transport"] == transport and m["p2p"]["pairs"] == [{"link": "intra-host", "ranks": [0, 1],
                                                                  "hosts": [m["p2p"]["pairs"][0]["hosts"][0]] * 2}], m["p2p"]
    rows = j["rows"]
    csv_rows = list(csv.DictReader(open(f"{d}/{t}.csv")))
    assert len(csv_rows) == len(rows) and list(csv_rows[0])[-1] == "interconnect", list(csv_rows[0])
    for test in ("latency", "bandwidth", "exchange"):
        meas = [r for r in rows if r["kind"] == "measured" and r["test"] == test]
        assert [r["bytes"] for r in meas] == sizes, (t, test, [r["bytes"] for r in meas])
        assert all(r["errors"] == 0 and r["iters"] == 40 and r["link"] == "intra-host" and r["ranks"] == "0,1" and
                   r["transport"] == transport and 0 < r["min_us"] <= r["p50_us"] <= r["max_us"] and r["gbps"] > 0 and
                   len(r["round_mean_us"]) == 2 for r in meas), meas
        windows = [r["window"] for r in meas]
        assert windows == ([64] * 10 if test == "bandwidth" else [1] * 10), windows
        fits = [r for r in rows if r["kind"] == "fit" and r["test"] == test]
        assert fits and fits[0]["from_bytes"] == 1 and fits[-1]["bytes"] == sizes[-1], fits
        assert sum(f["fit_points"] for f in fits) == len(sizes), fits
        assert all(f["alpha_us"] >= 0 and f["fit_rms_err"] >= 0 and f["p50_us"] is None for f in fits), fits
        assert all(a["bytes"] < b["from_bytes"] for a, b in zip(fits, fits[1:])), fits
        assert any(f["alpha_us"] > 0 for f in fits), fits
    assert rows.index(next(r for r in rows if r["kind"] == "fit")) == 30, "fits come after every measured row"
assert json.load(open(f"{d}/per-call.json"))["metadata"]["p2p"]["options"]["timing"] == "per-call"
assert json.load(open(f"{d}/mpi.json"))["metadata"]["p2p"]["options"]["timing"] == "loop"
written = [r for r in csv.DictReader(open(f"{d}/written.csv")) if r["kind"] == "measured"]
assert [(r["test"], int(r["bytes"]), int(r["errors"])) for r in written] == [("written", b, 0) for b in (4096, 16384, 65536)], written
for t in ("mpi", "shm"):
    pair = [r for r in csv.DictReader(open(f"{d}/pair-{t}.csv")) if r["kind"] == "measured"]
    assert [(r["test"], int(r["bytes"]), r["errors"]) for r in pair] == [
        (test, b, "0") for b in (1024, 32768, 1048576) for test in ("latency", "pair")], pair
    assert all(float(r["p50_us"]) > 0 for r in pair), pair
three = list(csv.DictReader(open(f"{d}/three.csv")))
assert {r["ranks"] for r in three} == {"0,1"} and {r["test"] for r in three} == {"latency"}, three
print("ok: all three tests, checked, fitted, over mpi and shm; the written and pair tests by name; 3 ranks measure one pair; per-call timing recorded")
PY
