#!/usr/bin/env bash
# GPU measurements (issue 18) into results/gpu/ (or $1): the device reduction kernels
# next to a device-to-device copy (collbench-kernels, 5 repetitions, medians), and
# allreduce on device memory over mpi-staged and cuda-ipc at 1, 2 and 4 ranks and over
# nccl (with NCCL's own allreduce) at 1 rank, every algorithm checked, 8 B to 256 MiB.
# NCCL up to 2.29 refuses two ranks on one GPU, so nccl runs on as many ranks as there
# are GPUs (at most 4). Several ranks on one GPU share its SMs and memory:
# those sweeps show correctness and overheads, not multi-GPU speed. Needs a visible GPU
# and a CUDA build; says why not and exits 2 otherwise. MPIEXEC names the launcher
# (default: the build's).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/gpu}
build=${BUILD:-build}
bin=$PWD/$build/harness
launcher=${MPIEXEC:-$PWD/$build/mpiexec}
[ -x "$bin/collbench" ] || { echo "measure_gpu: no $bin/collbench; build first (scripts/setup.sh)" >&2; exit 2; }
# collbench itself says whether device memory can be used here, and why not.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if ! "$launcher" -n 1 "$bin/collbench" run --memory device -b 8 -e 8 -w 0 -n 1 --csv "$probe/p.csv" \
  --json "$probe/p.json" >"$probe/out" 2>&1; then
  echo "measure_gpu: no GPU run possible here: $(grep 'collbench: error' "$probe/out" || tail -1 "$probe/out")" >&2
  exit 2
fi
raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw"
"$bin/collbench-kernels" --benchmark_filter='^gpu/' --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out="$raw/kernels.json" --benchmark_out_format=json >"$raw/kernels.txt" 2>&1
sweep() {  # transport ranks [more run options]
  local t=$1 n=$2 name=allreduce-$1-np$2
  shift 2
  "$launcher" -n "$n" "$bin/collbench" run --memory device --transport "$t" -c allreduce -b 8 -e 256M -f 4 --rounds 3 \
    "$@" --csv "$raw/$name.csv" --json "$raw/$name.json" >"$raw/$name.txt" 2>&1
}
for n in 1 2 4; do
  sweep mpi-staged "$n"
  sweep cuda-ipc "$n"
done
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
sweep nccl "$(( gpus < 1 ? 1 : gpus > 4 ? 4 : gpus ))"
${PYTHON:-python3} scripts/summarize_gpu.py "$out"
echo "measure_gpu: wrote $out"
