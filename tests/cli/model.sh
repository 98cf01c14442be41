#!/usr/bin/env bash
# `collbench model`: a hand-written flat model predicts ring allreduce exactly as the
# Thakur-Rabenseifner-Gropp formula says, `best` ranks every algorithm at every size, and
# bad model files (a missing field, a bandwidth that is zero or negative, a layout that
# does not divide the ranks, not JSON) get one message and exit 2; `model fit` turns a p2p
# run into a model file that predicts, and keeps an existing one.
# usage: model.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
model() { printf '%s' "$2" >"$dir/$1.json"; }
model flat '{"name": "flat", "ranks_per_node": 1, "intra_host": {"alpha_us": 5, "beta_gbps": 1},
 "inter_host": {"alpha_us": 5, "beta_gbps": 1}, "reduce_gbps": {"default": 10, "f64:max": 2}}'
"$mpiexec" -n 1 "$collbench" model predict -m "$dir/flat.json" -n 8 -a ring -b 1M -e 1M --csv "$dir/p.csv" >"$dir/out" 2>&1 ||
  { cat "$dir/out"; fail "predict exited $?"; }
"$mpiexec" -n 1 "$collbench" model best -m "$dir/flat.json" -n 16 -b 1K -e 16M -f 16 --csv "$dir/b.csv" >"$dir/best" 2>&1 ||
  { cat "$dir/best"; fail "best exited $?"; }
python3 - "$dir" <<'PY' || exit 1
import csv, sys
d = sys.argv[1]
(row,) = list(csv.DictReader(open(f"{d}/p.csv")))
n, m = 8, 1 << 20
want = 2 * (n - 1) * 5 + 2 * (n - 1) / n * m * 1e-3 + (n - 1) / n * m * 1e-4  # alpha, 1 GB/s, 10 GB/s
assert abs(float(row["predicted_us"]) - want) < want * 1e-9, (row["predicted_us"], want)
assert row["transport"] == "model" and row["method"] == "symmetric" and row["ranks"] == "8", row
best = list(csv.DictReader(open(f"{d}/b.csv")))
sizes = sorted({int(r["bytes"]) for r in best})
assert sizes == [1024, 16384, 262144, 4194304], sizes
for b in sizes:
    at = [r for r in best if int(r["bytes"]) == b]
    assert sorted(int(r["place"]) for r in at) == list(range(1, len(at) + 1)), at
    first = next(r for r in at if r["place"] == "1")
    assert float(first["vs_best"]) == 1 and all(float(r["vs_best"]) >= 1 for r in at), at
print("ok: ring predicted as the formula; best ranks", len(best) // len(sizes), "algorithms at", len(sizes), "sizes")
PY
# model fit: from a p2p run here to a model file that predicts; an existing --out is kept.
"$mpiexec" -n 2 "$collbench" p2p -b 1 -e 256K -f 4 -n 10 -w 2 --json "$dir/p2p.json" >/dev/null 2>&1 || fail "p2p exited $?"
"$mpiexec" -n 1 "$collbench" model fit --p2p "$dir/p2p.json" --out "$dir/fitted.json" >"$dir/fit" 2>&1 ||
  { cat "$dir/fit"; fail "model fit exited $?"; }
grep -q '"shared_ports": true' "$dir/fitted.json" || fail "a fitted model does not share ports"
grep -q 'not measured (no busy test in the p2p run)' "$dir/fitted.json" ||
  fail "a model fitted without p2p's busy test does not say its receivers' copies are not measured"
# With the busy test, each link says whether its receiver copies, and why (the sizes).
"$mpiexec" -n 2 "$collbench" p2p -t latency,exchange,busy -b 1 -e 256K -f 4 -n 10 -w 2 --json "$dir/p2p-busy.json" \
  >/dev/null 2>&1 || fail "p2p with the busy test exited $?"
"$mpiexec" -n 1 "$collbench" model fit --p2p "$dir/p2p-busy.json" --out "$dir/fitted-busy.json" >"$dir/fit" 2>&1 ||
  { cat "$dir/fit"; fail "model fit (busy) exited $?"; }
python3 - "$dir/fitted-busy.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))
seen = m["metadata"]["receiver_copies"]["intra_host"]
assert isinstance(m["intra_host"]["receiver_copies"], bool), m["intra_host"]
assert m["intra_host"]["receiver_copies"] == (seen["share"] is not None and seen["share"] > 0.5), seen
assert [s["bytes"] for s in seen["sizes"]] == [65536, 262144], seen["sizes"]
PY
"$mpiexec" -n 1 "$collbench" model predict -m "$dir/fitted.json" -n 4 -a ring -b 64K -e 64K --csv "$dir/f.csv" >/dev/null 2>&1 ||
  fail "a fitted model does not predict"
cp "$dir/fitted.json" "$dir/before.json"
"$here/expect_error.sh" "exists; give --overwrite" "$mpiexec" -n 1 "$collbench" model fit --p2p "$dir/p2p.json" --out "$dir/fitted.json" >/dev/null ||
  fail "model fit replaced an existing --out"
cmp -s "$dir/fitted.json" "$dir/before.json" || fail "the refused model fit changed --out"
grep -q "<- crossover" "$dir/best" || fail "best printed no crossover (recursive doubling should give way to rabenseifner)"
refuse() {  # PATTERN FILE-CONTENT [ARGS...]
  local pattern=$1 content=$2
  shift 2
  model bad "$content"
  "$here/expect_error.sh" "$pattern" "$mpiexec" -n 1 "$collbench" model predict -m "$dir/bad.json" -n 8 "$@" >/dev/null ||
    { "$here/expect_error.sh" "$pattern" "$mpiexec" -n 1 "$collbench" model predict -m "$dir/bad.json" -n 8 "$@"; exit 1; }
}
refuse 'missing "inter_host"' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse 'missing "intra_host.beta_gbps"' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse '"inter_host.beta_gbps" must be positive, not 0' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 0}}'
refuse '"intra_host.beta_gbps" must be positive, not -3' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": -3}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse 'ranks_per_node 3 does not divide --ranks 8' '{"ranks_per_node": 3, "intra_host": {"alpha_us": 1, "beta_gbps": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse '"reduce_gbps" key .f32:avg. is not' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}, "reduce_gbps": {"f32:avg": 1}}'
refuse 'is not JSON' '{"ranks_per_node": '
refuse '"intra_host.ranges" must start at growing from_bytes' '{"ranks_per_node": 1, "intra_host": {"ranges": [{"from_bytes": 64, "alpha_us": 1, "beta_gbps": 1}, {"from_bytes": 8, "alpha_us": 1, "beta_gbps": 2}]}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse '"inter_host.exchange.beta_gbps" must be positive, not 0' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 1, "exchange": {"alpha_us": 1, "beta_gbps": 0}}}'
refuse '"intra_host.receiver_copies" must be true or false' '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1, "receiver_copies": "yes"}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}'
refuse "no schedule to predict for allreduce algorithm 'mpi'" '{"ranks_per_node": 1, "intra_host": {"alpha_us": 1, "beta_gbps": 1}, "inter_host": {"alpha_us": 1, "beta_gbps": 1}}' -a mpi
"$here/expect_error.sh" "cannot read model file" "$mpiexec" -n 1 "$collbench" model predict -m "$dir/none.json" -n 8 >/dev/null ||
  fail "a missing model file was not refused"
echo "ok: bad model files refused"
# Scale: 65,536 ranks, 8 per host, through the symmetric path (one host simulated); an
# algorithm too large to simulate in full is named, the others' rows are still written.
model hosts '{"name": "hosts", "ranks_per_node": 8, "intra_host": {"alpha_us": 1.5, "beta_gbps": 400},
 "inter_host": {"alpha_us": 5, "beta_gbps": 50}}'
"$mpiexec" -n 1 "$collbench" model predict -m "$dir/hosts.json" -n 65536 -a ring,recursive_doubling -b 1M -e 1M \
  --csv "$dir/big.csv" >/dev/null 2>&1 || fail "65,536-rank prediction exited $?"
# 64 MiB and 4 bytes: blocks of two sizes, so the scatter-allgather's ring in dataflow
# order is computed step by step, 65,536 x 65,535 rank steps: too many.
big=67108868
out=$("$mpiexec" -n 1 "$collbench" model predict -m "$dir/hosts.json" -c broadcast -n 65536 -a scatter_allgather,binomial \
  -b $big -e $big --csv "$dir/part.csv" 2>&1)
[ $? -eq 2 ] || fail "a prediction too large to compute did not exit 2: $out"
grep -q "cannot predict scatter_allgather at $big bytes: .*more than the 500000000 collbench computes" <<<"$out" &&
  grep -q "collbench: error: some predictions are missing" <<<"$out" || fail "the refused algorithm is not named: $out"
# model best names it on the size's line too: its best is among the others only.
out=$("$mpiexec" -n 1 "$collbench" model best -m "$dir/hosts.json" -c broadcast -n 65536 -a scatter_allgather,binomial \
  -b $big -e $big --csv "$dir/part-best.csv" 2>&1)
[ $? -eq 2 ] || fail "model best with a refused algorithm did not exit 2: $out"
grep -q "$big binomial .*(not predicted: scatter_allgather)" <<<"$out" ||
  fail "model best's line does not name the algorithm it could not predict: $out"
python3 - "$dir" <<'PY' || exit 1
import csv, sys
d = sys.argv[1]
rows = {r["algorithm"]: r for r in csv.DictReader(open(f"{d}/big.csv"))}
assert rows["ring"]["method"] == "symmetric" and rows["ring"]["symmetry"] == "shift by 8 ranks", rows["ring"]
assert rows["recursive_doubling"]["symmetry"] == "xor by 8 ranks", rows["recursive_doubling"]
assert all(r["ranks_per_node"] == "8" and r["nodes"] == "8192" for r in rows.values()), rows
(part,) = list(csv.DictReader(open(f"{d}/part.csv")))
assert part["algorithm"] == "binomial" and float(part["predicted_us"]) > 0, part
print("ok: 65,536 ranks predicted by symmetry; a refused algorithm leaves the others' rows")
PY
