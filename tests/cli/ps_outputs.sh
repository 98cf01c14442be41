#!/usr/bin/env bash
# A short parameter-server sweep on 3 ranks (2 workers, 1 server): exit 0, rows for
# each mode and for ring allreduce among the workers, the parameter server's CSV
# columns, every push received, and the roles in the JSON metadata.
# usage: ps_outputs.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$mpiexec" -n 3 "$collbench" run -c ps --servers 1 --ps-mode sync,async,bounded --staleness 1 \
      -b 4K -e 16K -f 4 -n 4 -w 1 --partition-size 4K --csv "$dir/r.csv")
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
grep -q '^# collbench ps (parameter server): 3 rank(s) on 1 host(s), dtype f32; servers: ranks 2; workers: ranks 0..1' <<<"$out" \
  || fail "the header must state the roles"
python3 - "$dir/r.csv" "$dir/r.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["algorithm"] for r in rows] == ["ps-sync", "ps-async", "ps-bounded", "ring"] * 2, [r["algorithm"] for r in rows]
for r in rows:
    assert r["errors"] == "0", r
    if r["collective"] == "ps":
        assert r["servers"] == "1" and r["workers"] == "2" and r["server_ranks"] == "2", r
        assert int(r["pushes_sent"]) == int(r["pushes_received"]) == 2 * 5 * 1, r  # 2 workers x (1+4) steps x 1 server
        assert float(r["ring_allreduce_bytes_per_step"]) == int(r["bytes"]), r  # 2(W-1)/W = 1 for W = 2
        assert float(r["push_p50_us"]) > 0 and float(r["pull_p50_us"]) > 0, r
    else:
        assert r["collective"] == "allreduce" and r["ranks"] == "2", r
bounded = [r for r in rows if r["algorithm"] == "ps-bounded"]
assert all(float(r["staleness_max"]) <= 1 for r in bounded), bounded
assert all(float(r["staleness_max"]) == 0 for r in rows if r["algorithm"] == "ps-sync")
doc = json.load(open(sys.argv[2]))
ps = doc["metadata"]["parameter_server"]
assert ps["server_ranks"] == [2] and ps["worker_ranks"] == [0, 1], ps
assert all("details" in r for r in doc["rows"] if r["collective"] == "ps")
print("ps outputs ok")
PY
