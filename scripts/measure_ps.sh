#!/usr/bin/env bash
# The sweeps behind the README's parameter-server results (results/ps/ or $1):
#  - dense, 4 KiB to 64 MiB, 2 workers with 1 and with 2 servers, sync and async,
#    next to ring allreduce among the same 2 workers;
#  - sparse, 1024 rows of 256 B per worker step from tables of 256 KiB to 64 MiB, 2 servers;
#  - one slowed worker (of 3) under sync, async and bounded staleness 2, 1 server.
# Then SUMMARY.md (scripts/summarize_ps.py). More ranks than this machine's 2 cores,
# so ranks are not bound and the protocol's waits yield (recorded in the metadata).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/ps}
rounds=${ROUNDS:-3}
iters=${ITERS:-20}
bin=${COLLBENCH:-build/harness/collbench}
mkdir -p "$out"
common=(-n "$iters" -w 5 --rounds "$rounds" --overwrite)  # regenerates $out
for servers in 1 2; do
  build/mpiexec -n $((2 + servers)) "$bin" ps --servers "$servers" --ps-mode sync,async --compare ring \
    -b 4K -e 64M -f 4 "${common[@]}" --csv "$out/dense-servers$servers.csv"
done
build/mpiexec -n 4 "$bin" ps --servers 2 --ps-mode sync,async --compare ring --sparse-rows 1024 --row-bytes 256 \
  -b 256K -e 64M -f 4 "${common[@]}" --csv "$out/sparse-servers2.csv"
build/mpiexec -n 4 "$bin" ps --servers 1 --ps-mode sync,async,bounded --staleness 2 --slow-ranks 0 --slow-us 2000 \
  --compare none -b 1M -e 1M "${common[@]}" --csv "$out/slow-worker.csv"
${PYTHON:-python3} scripts/summarize_ps.py "$out" >"$out/SUMMARY.md"
