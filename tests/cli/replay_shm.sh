#!/usr/bin/env bash
# Replay over --transport shm on 2 ranks: the dense buckets on collbench's ring over
# shared memory, the mpi baseline still on the library, a sparse tensor's allgather and
# an MoE model's all-to-alls too; every row checked with 0 errors, the metadata naming shm.
# usage: replay_shm.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1
collbench=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpiexec" -n 2 "$collbench" replay --transport shm --workload resnet50 --compute-ms 20 -a mpi,ring \
  --steps 2 --warmup 1 --json "$dir/dense.json" --csv /dev/null
"$mpiexec" -n 2 "$collbench" replay --transport shm --workload lm1b --compute-ms 20 -a ring \
  --sparse-strategy allgather --steps 1 --warmup 1 --json "$dir/sparse.json" --csv /dev/null
"$mpiexec" -n 2 "$collbench" replay --transport shm --workload mixtral-8x7b --layers 1 --compute-ms 20 -a ring \
  --alltoall-algorithm pairwise --steps 1 --warmup 1 --json "$dir/moe.json" --csv /dev/null
python3 - "$dir" <<'PY'
import json, sys
for name, algorithms in (("dense", {"mpi", "ring"}), ("sparse", {"ring"}), ("moe", {"ring"})):
    doc = json.load(open(f"{sys.argv[1]}/{name}.json"))
    assert doc["metadata"]["transport"] == "shm", (name, doc["metadata"]["transport"])
    rows = doc["rows"]
    assert rows and {r["algorithm"] for r in rows} == algorithms, (name, rows)
    for r in rows:
        assert r["errors"] == 0, (name, r)
print("replay over shm ok")
PY
