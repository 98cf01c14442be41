#!/usr/bin/env bash
# run --probe-links: p2p's seven tests at every power of 2 from 1 B to the largest size,
# in the run's rounds, written as a p2p result that model fit turns into a model that
# predicts (with a stream cost from the bandwidth test's windows); the run's own rows
# still checked; the probes timed as the run's calls are; an existing probe file kept.
# usage: probe_links.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$mpiexec" -n 2 "$collbench" run -a mpi,ring -b 1K -e 64K -f 8 -w 2 --rounds 2 --time-budget 0.02 \
  --probe-links "$dir/links.json" --csv "$dir/run.csv" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "run exited $?"; }
python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
run = list(csv.DictReader(open(d + "/run.csv")))
assert sorted({int(r["bytes"]) for r in run}) == [1024, 8192, 65536] and all(r["errors"] == "0" for r in run), run
doc = json.load(open(d + "/links.json"))
assert doc["completed"] is True
p2p = doc["metadata"]["p2p"]
assert p2p["options"]["tests"] == ["latency", "bandwidth", "exchange", "written", "busy", "pair", "rewrite"], p2p
assert p2p["probed_in"].startswith("collbench run allreduce"), p2p
# The probes are timed as the run times its calls (run --timing, per call by default).
assert p2p["options"]["timing"] == doc["metadata"]["timing_policy"]["name"] == "per-call", p2p["options"]
assert "--probe-links" in doc["metadata"]["command_line"], doc["metadata"]["command_line"]
measured = [r for r in doc["rows"] if r["kind"] == "measured"]
for test in p2p["options"]["tests"]:
    sizes = [r["bytes"] for r in measured if r["test"] == test]
    assert sizes == [1 << k for k in range(17)], (test, sizes)  # 1 B .. 64 KiB, each once
assert all(r["rounds"] == 2 and len(r["round_mean_us"]) == 2 and r["errors"] == 0 and r["p50_us"] > 0
           for r in measured), measured
assert all(r["window"] == (64 if r["test"] == "bandwidth" else 1) for r in measured), measured
assert any(r["kind"] == "fit" for r in doc["rows"])
print("ok:", len(measured), "link rows beside", len(run), "run rows")
PY
"$mpiexec" -n 2 "$collbench" model fit --p2p "$dir/links.json" --out "$dir/model.json" >"$dir/fit" 2>&1 ||
  { cat "$dir/fit"; fail "model fit of the probes exited $?"; }
python3 -c 'import json, sys; assert "stream" in json.load(open(sys.argv[1]))["intra_host"]' "$dir/model.json" ||
  fail "no stream cost fitted from the probes' bandwidth test"
"$mpiexec" -n 1 "$collbench" model predict -m "$dir/model.json" -n 2 -a ring -b 64K -e 64K --csv "$dir/p.csv" \
  >/dev/null 2>&1 || fail "the probes' model does not predict"
# An existing probe file is kept, and nothing is measured.
before=$(md5sum <"$dir/links.json")
"$mpiexec" -n 2 "$collbench" run -a ring -b 1K -e 1K -n 2 -w 1 --probe-links "$dir/links.json" --csv "$dir/again.csv" \
  >"$dir/out2" 2>&1 && fail "an existing --probe-links file was not refused"
grep -q "cannot write --probe-links" "$dir/out2" || { cat "$dir/out2"; fail "no message naming --probe-links"; }
[ "$(md5sum <"$dir/links.json")" = "$before" ] || fail "the existing probe file changed"
[ ! -s "$dir/again.csv" ] || fail "a refused run wrote rows"
echo "ok: an existing probe file kept"
