#!/usr/bin/env bash
# run --bound: a ring_bound row per size with its probes in the JSON, an of_bound
# column on every row (the bound's own 1), and results still checked; run --order
# steps runs the same algorithms step by step, recorded in the metadata. Over shm, every
# reference row also has its memory-traffic bound (of_memory_bound = memory_bound / p50,
# from what the busiest rank copies and reduces, each byte at its kind's probed rate), the
# mpi row none.
# usage: bound_and_order.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$mpiexec" -n 2 "$collbench" run -a mpi,ring,ring_pipelined -b 8 -e 1M -f 64 -n 5 -w 2 --bound \
  --csv "$dir/b.csv" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "--bound run exited $?"; }
grep -q "ring_bound = 2(n-1) t_exchange" "$dir/out" || { cat "$dir/out"; fail "no bound formula in the header"; }
"$mpiexec" -n 2 "$collbench" run -a ring_pipelined -b 64K -e 64K -n 5 -w 2 --order steps \
  --csv "$dir/s.csv" >"$dir/out2" 2>&1 || { cat "$dir/out2"; fail "--order steps run exited $?"; }
"$mpiexec" -n 2 "$collbench" run -a mpi,ring,recursive_doubling -b 64K -e 1M -f 16 -n 5 -w 2 --bound \
  --transport shm --csv "$dir/m.csv" >"$dir/out3" 2>&1 || { cat "$dir/out3"; fail "--bound over shm exited $?"; }
grep -q "of_mem" "$dir/out3" || { cat "$dir/out3"; fail "no of_mem column over shm"; }
python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/b.csv")))
sizes = sorted({int(r["bytes"]) for r in rows})
assert sizes == [8, 512, 32768], sizes
for s in sizes:
    at = {r["algorithm"]: r for r in rows if int(r["bytes"]) == s}
    assert set(at) == {"mpi", "ring", "ring_pipelined", "ring_bound"}, at.keys()
    b = at["ring_bound"]
    assert float(b["of_bound"]) == 1.0 and int(b["errors"]) == -1, b
    for name in ("mpi", "ring", "ring_pipelined"):
        r = at[name]
        assert int(r["errors"]) == 0, r
        want = float(b["p50_us"]) / float(r["p50_us"])
        assert abs(float(r["of_bound"]) - want) < 1e-6 * want, (r["of_bound"], want)
j = json.load(open(d + "/b.json"))
assert j["metadata"]["options"]["bound"] is True
bound = [r for r in j["rows"] if r["algorithm"] == "ring_bound"]
for r in bound:
    det = r["details"]
    assert det["exchange_p50_us"] > 0 and det["reduce_p50_us"] > 0, det
    # allreduce at 2 ranks: 2 exchanges and 1 reduction of a half-buffer block
    assert det["block_bytes"] == r["bytes"] // 2, det
    assert abs(r["p50_us"] - (2 * det["exchange_p50_us"] + det["reduce_p50_us"])) <= 1e-6 * r["p50_us"], r
s = json.load(open(d + "/s.json"))
assert s["metadata"]["options"]["order"] == "steps", s["metadata"]["options"]
assert all(int(r["errors"]) == 0 for r in s["rows"])
assert "memory_bound_us" not in rows[0], "no memory bound over --transport mpi"
m = json.load(open(d + "/m.json"))
for r in m["rows"]:
    if r["algorithm"] in ("mpi", "ring_bound"):
        assert "memory_bound" not in r.get("details", {}), r
        continue
    det = r["details"]["memory_bound"]
    assert det["bound_us"] > 0 and len(det["probe_gbps"]) == 8 and min(det["probe_gbps"].values()) > 0, det
    half = r["bytes"] // 2
    if r["algorithm"] == "ring":
        # 2 ranks: reduce half straight from the peer's input into the block it sends next
        # (the peer reads it), then copy the half the peer has just reduced
        assert det["busiest_rank_reduced_bytes"] == half and det["busiest_rank_copied_bytes"] == half, det
        assert det["busiest_rank_bytes_by_kind"] == {"reduce_into_sent": half, "copy_written": half}, det
    else:  # recursive doubling: one reduction of the whole buffer straight from the peer's input
        assert det["busiest_rank_reduced_bytes"] == r["bytes"] and det["busiest_rank_copied_bytes"] == 0, det
        assert det["busiest_rank_bytes_by_kind"] == {"reduce": r["bytes"]}, det
    by_kind = det["busiest_rank_bytes_by_kind"]
    want = sum(n * (3 if k.startswith("reduce") else 2) / (det["probe_gbps"][k] * 1e3) for k, n in by_kind.items())
    assert abs(det["bound_us"] - want) < 1e-6 * want, (det, want)
mcsv = {(x["algorithm"], x["bytes"]): x for x in csv.DictReader(open(d + "/m.csv"))}
for (alg, b), x in mcsv.items():
    if alg in ("mpi", "ring_bound"):
        assert x["of_memory_bound"] == "", x
    else:
        assert abs(float(x["of_memory_bound"]) - float(x["memory_bound_us"]) / float(x["p50_us"])) < 1e-6, x
print("ok:", len(rows), "rows with bound;", len(s["rows"]), "in step order;", len(m["rows"]), "over shm")
PY
