#!/usr/bin/env bash
# What a prediction costs at cluster scale: every allreduce, broadcast and reduce
# algorithm predicted at 65,536 ranks, 8 per host (a described cluster: 400 GB/s and
# 1.5 us within a host, 50 GB/s and 5 us between), at 1 KiB, 256 KiB and 64 MiB, in
# both executor orders, with the seconds each prediction took. An algorithm too large to
# simulate in full is named in raw/scale-*.stderr and the summary. Then `model best` from
# 1 KiB to 1 GiB at 8,192 and 65,536 ranks, as a user asks it (raw/best-*). Writes
# results/model-scale/ (or $1): raw/ and SUMMARY.md. No MPI traffic; one process.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/model-scale}
bin=$PWD/${BUILD:-build}/harness/collbench
[ -x "$bin" ] || { echo "model_at_scale: no $bin; build first (scripts/setup.sh)" >&2; exit 2; }
raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw"
scripts/machine_facts.sh >"$raw/machine.txt"  # the times are this CPU's
cat >"$raw/cluster-8x8192.json" <<'JSON'
{"name": "8192 hosts x 8 ranks: 400 GB/s and 1.5 us within a host, 50 GB/s and 5 us between",
 "ranks_per_node": 8, "intra_host": {"alpha_us": 1.5, "beta_gbps": 400},
 "inter_host": {"alpha_us": 5, "beta_gbps": 50}, "reduce_gbps": {"default": 200}, "copy_gbps": 400}
JSON
for order in steps dataflow; do
  for coll in allreduce broadcast reduce; do
    /usr/bin/mpiexec.mpich -n 1 "$bin" model predict -m "$raw/cluster-8x8192.json" -c "$coll" -n 65536 \
      -b 1K -e 64M -f 256 --order "$order" --csv "$raw/scale-$coll-$order.csv" --json "$raw/scale-$coll-$order.json" \
      >/dev/null 2>"$raw/scale-$coll-$order.stderr" ||
      echo "model_at_scale: $coll ($order): some algorithms not predicted (see $raw/scale-$coll-$order.stderr)" >&2
  done
done
# The question a user asks (model best, run's default order), 1 KiB to 1 GiB by 8, at
# 8,192 and 65,536 ranks: which sizes it answers, and how long the whole question took.
for ranks in 8192 65536; do
  for coll in allreduce broadcast reduce; do
    t0=$(date +%s%N)
    /usr/bin/mpiexec.mpich -n 1 "$bin" model best -m "$raw/cluster-8x8192.json" -c "$coll" -n "$ranks" \
      -b 1K -e 1G -f 8 --csv "$raw/best-$coll-$ranks.csv" --json "$raw/best-$coll-$ranks.json" \
      >/dev/null 2>"$raw/best-$coll-$ranks.stderr" ||
      echo "model_at_scale: model best $coll at $ranks ranks: some sizes not answered (see $raw/best-$coll-$ranks.stderr)" >&2
    echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$raw/best-$coll-$ranks.ms"
  done
done
${PYTHON:-python3} scripts/compare_model.py --scale "$out"
echo "model_at_scale: wrote $out"
