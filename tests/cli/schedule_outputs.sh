#!/usr/bin/env bash
# `collbench schedule` without mpiexec: the text names the verdict and the rank's steps
# with bytes; the JSON's per-rank summary is what a ring allreduce must do (every rank
# sends and receives 2(n-1)/n of the buffer in 2(n-1) messages and reduces (n-1)/n of
# it), and a tree's root differs from its leaves.
# usage: schedule_outputs.sh COLLBENCH
set -eu
collbench=$1
fail() { echo "FAIL: $1"; exit 1; }
out=$("$collbench" schedule -c allreduce -a ring --ranks 4 --rank 1 --bytes 64)
echo "$out"
grep -q '^# symbolic executor .*: verified' <<<"$out" || fail "the verdict must be stated"
grep -q '^step 0: send send\[0+4\] -> 2 (16 B)$' <<<"$out" || fail "rank 1 sends its first block to rank 2 in step 0"
grep -q '(reduce, 16 B)$' <<<"$out" || fail "reductions must be listed with their bytes"
"$collbench" schedule -c allreduce -a ring --ranks 5 --bytes 4000 --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
assert doc["verdict"].startswith("verified"), doc["verdict"]
n, b = 5, 4000
for r in doc["ranks"]:
    assert r["messages_sent"] == r["messages_received"] == 2 * (n - 1), r
    assert r["bytes_sent"] == r["bytes_received"] == 2 * (n - 1) * b // n, r
    assert r["bytes_reduced"] == (n - 1) * b // n, r
assert len(doc["schedule"]["steps"]) == 2 * (n - 1)
print("ring summary ok")'
"$collbench" schedule -c reduce -a binomial --ranks 8 --root 3 --bytes 800 --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
ranks = {r["rank"]: r for r in doc["ranks"]}
assert ranks[3]["messages_received"] == 3 and ranks[3]["messages_sent"] == 0, ranks[3]  # the root: log2(8) children
assert sum(r["messages_sent"] for r in ranks.values()) == 7, ranks  # every other rank sends once
print("tree summary ok")'
