#!/usr/bin/env bash
# A short ResNet-50 replay on 2 ranks: exit 0, the table names a winner, the CSV has
# the documented leading columns and a mean row per configuration, the JSON carries
# the workload and compute metadata, and the timeline is a Chrome trace with compute
# and communication events for both ranks.
# usage: replay_outputs.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$mpiexec" -n 2 "$collbench" replay --workload resnet50 --compute-ms 60 -a mpi,ring --bucketing ddp,fusion \
      --steps 2 --warmup 1 --csv "$dir/r.csv" --timeline "$dir/t.json")
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
grep -q '^# fastest: ' <<<"$out" || fail "the table must name the fastest configuration"
grep -q '^# compute per step (--compute-ms spread by FLOPs): forward 20.00 + backward 40.00 + optimizer 0.00 = 60.00 ms' <<<"$out" \
  || fail "the header must state the compute model"
python3 - "$dir/r.csv" "$dir/r.json" "$dir/t.json" <<'PY'
import csv, json, sys
lines = open(sys.argv[1]).read().splitlines()
lead = "workload,algorithm,bucketing,sparse_strategy,ranks,step,compute_ms,comm_ms,exposed_ms,step_ms,efficiency"
assert lines[0].startswith(lead + ","), lines[0]
rows = list(csv.DictReader(open(sys.argv[1])))
configs = [(r["algorithm"], r["bucketing"]) for r in rows if r["step"] == "mean"]
assert configs == [("mpi", "ddp"), ("ring", "ddp"), ("mpi", "fusion"), ("ring", "fusion")], configs
assert [r["step"] for r in rows] == ["0", "1", "mean"] * 4
for r in rows:
    assert r["workload"] == "resnet50" and r["sparse_strategy"] == "none" and r["ranks"] == "2", r
    assert r["errors"] == "0", r
    assert abs(float(r["compute_ms"]) - 60) < 1e-9 and float(r["step_ms"]) >= float(r["compute_ms"]), r
    assert int(r["comm_bytes"]) == 4 * 25557032, r
assert [r["exchanges"] for r in rows if r["bucketing"] == "ddp"][0] == "5"  # PyTorch DDP's five ResNet-50 buckets
doc = json.load(open(sys.argv[2]))
assert doc["metadata"]["workload"]["parameters"] == 25557032, doc["metadata"]["workload"]
assert doc["metadata"]["options"]["command"] == "replay"
assert all("details" in r for r in doc["rows"] if r["step"] == "mean")
trace = json.load(open(sys.argv[3]))["traceEvents"]
cats = {(e["pid"], e.get("cat")) for e in trace if e["ph"] == "X"}
for pid in (0, 1):
    assert (pid, "compute") in cats and (pid, "communication") in cats, cats
print("replay outputs ok")
PY
