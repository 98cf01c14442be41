#!/usr/bin/env bash
# A short real sweep on 2 ranks: exit 0, one table, the documented CSV columns with a
# row per (size, algorithm), and a JSON file with metadata and the same rows.
# usage: sweep_outputs.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A cache of machine facts of this test's own: the first run measures the triad.
export COLLBENCH_CACHE_DIR=$dir/cache
out=$("$mpiexec" -n 2 "$collbench" run -a mpi,ring -b 8 -e 4K -f 8 -n 3 -w 1 --check-every 2 --aggregate mean \
  --csv "$dir/r.csv")
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
[ "$(grep -c '^# collbench allreduce' <<<"$out")" -eq 1 ] || fail "the table header must be printed once"
grep -q '^# timing: ' <<<"$out" || fail "the timing policy must be stated"
head -1 "$dir/r.csv" | grep -q '^collective,algorithm,transport,ranks,bytes,count,dtype,op,root,iters,min_us,avg_us,p50_us,p99_us,max_us,algbw_gbps,busbw_gbps,errors' \
  || fail "CSV header"
[ "$(tail -n +2 "$dir/r.csv" | wc -l)" -eq 8 ] || fail "expected 4 sizes x 2 algorithms = 8 CSV rows"
[ "$(grep -c ',0,false,' "$dir/r.csv")" -eq 8 ] || fail "every row must have been checked with 0 errors"
python3 - "$dir/r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
m = doc["metadata"]
for key in ("mpi", "environment", "hosts", "git_revision", "command_line", "timing_policy", "oversubscription"):
    assert key in m, key
assert m["timing_policy"]["aggregate"] == "mean", m["timing_policy"]
assert "mean over ranks of each rank's mean" in m["timing_policy"]["text"], m["timing_policy"]
assert m["options"]["iters"] == 3 and m["options"]["check_every"] == 2, m["options"]
# 3 timed calls, checked: the untimed one, the 2nd (every 2nd) and the 3rd (the last)
for r in doc["rows"]:
    assert r["aggregate"] == "mean" and r["checked_calls"] == 3 and r["errors"] == 0, r
    assert r["outliers"] >= 0, r
assert m["mpi"]["name"] in ("MPICH", "Open MPI") and m["mpi"]["version"], m["mpi"]
assert m["mpi"]["library"].startswith(m["mpi"]["name"]) and m["mpi"]["large_counts"], m["mpi"]
# The CPU of every host: model, caches, the kernel path (one this CPU runs) and a triad.
# Caches come from sysfs, which some virtual machines leave out: then none, and said so.
import os
sysfs_caches = os.path.isdir("/sys/devices/system/cpu/cpu0/cache")
for host, cpu in m["cpu"].items():
    assert cpu["model"] and bool(cpu["caches_bytes"]) == sysfs_caches, cpu
    assert cpu["caches_source"] == ("sysfs" if sysfs_caches else "none"), cpu
    assert cpu["kernel_path"] in cpu["kernel_paths_available"], cpu
    assert cpu["kernel_paths_available"][0] == "portable", cpu
    assert cpu["triad"]["gb_per_s"] > 0 and cpu["triad"]["array_bytes"] >= 16 << 20, cpu
    assert cpu["triad"]["source"] == "measured by this run" and cpu["triad"]["measured_utc"], cpu
assert len(doc["rows"]) == 8, len(doc["rows"])
assert {r["algorithm"] for r in doc["rows"]} == {"mpi", "ring"}
print("json ok")
PY
# A later run reads the triad back from the cache; COLLBENCH_REFRESH_FACTS=1 measures again.
"$mpiexec" -n 2 "$collbench" run -b 8 -e 8 -n 1 -w 0 --csv /dev/null --json "$dir/again.json" >/dev/null
COLLBENCH_REFRESH_FACTS=1 "$mpiexec" -n 2 "$collbench" run -b 8 -e 8 -n 1 -w 0 --csv /dev/null --json "$dir/fresh.json" \
  >/dev/null
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
first, again, fresh = (json.load(open(f"{d}/{n}.json"))["metadata"]["cpu"] for n in ("r", "again", "fresh"))
for host, cpu in again.items():
    assert cpu["triad"]["source"].startswith("cached in " + d + "/cache/machine-facts-"), cpu["triad"]
    assert cpu["triad"]["gb_per_s"] == first[host]["triad"]["gb_per_s"], (cpu["triad"], first[host]["triad"])
    assert fresh[host]["triad"]["source"] == "measured by this run", fresh[host]["triad"]
print("triad cache ok")
PY
