#!/usr/bin/env bash
# collbench's mpi allreduce with its default call counts against OSU's osu_allreduce
# (7.4, built by hand outside this repository: never commit it), on 2 ranks of this
# machine. Per size and repetition the three programs run back to back, alternating:
#   osu_allreduce -T mpi_float -m S:S                 (OSU 7.4 defaults to MPI_CHAR)
#   collbench run -a mpi -b S -e S --aggregate mean   (OSU's Avg Latency: mean over ranks of each rank's mean)
#   collbench run -a mpi -b S -e S                    (collbench's default: each call's slowest rank)
# and each figure is the median over the repetitions. Writes OUTDIR/runs.csv,
# OUTDIR/metadata.json and OUTDIR/SUMMARY.md.
#
# Usage: scripts/compare_osu.sh OSU_ALLREDUCE [OUTDIR]   (default results/osu)
# Environment: REPS (repetitions, default 5), SIZES (bytes, default 8 1024 65536 1048576 16777216),
#              MPIEXEC (default build/mpiexec, the build tree's launcher), NP (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 OSU_ALLREDUCE [OUTDIR]  (OSU_ALLREDUCE: an executable osu_allreduce)" >&2
  exit 2
fi
osu=$(realpath "$1")
out=${2:-results/osu}
reps=${REPS:-5}
sizes=${SIZES:-8 1024 65536 1048576 16777216}
mpiexec=${MPIEXEC:-build/mpiexec}
np=${NP:-2}
collbench=build/harness/collbench
[ -x "$collbench" ] || { echo "$0: $collbench not built; run scripts/setup.sh first" >&2; exit 2; }
mkdir -p "$out"
runs="$out/runs.csv"
[ -e "$runs" ] && { echo "$0: $runs exists; choose another OUTDIR or move it away" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The metadata of one collbench run stands for all (same binary, library, machine).
"$mpiexec" -n "$np" "$collbench" run -a mpi -b 8 -e 8 --csv "$tmp/meta.csv" --json "$tmp/meta.json" >/dev/null
python3 - "$tmp/meta.json" "$out/metadata.json" "$osu" "$reps" "$sizes" "$np" <<'PY'
import json, subprocess, sys
meta = json.load(open(sys.argv[1]))["metadata"]
osu, reps, sizes, np = sys.argv[3], int(sys.argv[4]), sys.argv[5].split(), int(sys.argv[6])
json.dump({"collbench": meta,
           "osu": {"program": osu, "version": "OSU Micro-Benchmarks 7.4, built by hand with mpicc.mpich -O2",
                   "command": "osu_allreduce -T mpi_float -m S:S (default iterations: 100 + 1000 up to 8 KiB, 10 + 100 above)"},
           "collbench_commands": ["collbench run -a mpi -b S -e S --aggregate mean",
                                  "collbench run -a mpi -b S -e S"],
           "repetitions": reps, "sizes": [int(s) for s in sizes], "ranks": np,
           "order": "per repetition and size: osu, collbench mean, collbench max, back to back"},
          open(sys.argv[2], "w"), indent=2)
PY

echo "rep,bytes,program,aggregate,avg_us,iters" >"$runs"
for rep in $(seq 1 "$reps"); do
  for bytes in $sizes; do
    osu_us=$("$mpiexec" -n "$np" "$osu" -T mpi_float -m "$bytes:$bytes" | awk -v b="$bytes" '$1==b {print $2}')
    [ -n "$osu_us" ] || { echo "$0: no OSU figure for $bytes bytes" >&2; exit 1; }
    echo "$rep,$bytes,osu_allreduce,mean,$osu_us," >>"$runs"
    for aggregate in mean max; do
      "$mpiexec" -n "$np" "$collbench" run -a mpi -b "$bytes" -e "$bytes" --aggregate "$aggregate" \
        --csv "$tmp/r.csv" --json "$tmp/r.json" --overwrite >/dev/null
      awk -F, -v rep="$rep" -v a="$aggregate" 'NR==1 {for (i=1;i<=NF;i++) c[$i]=i; next}
        {print rep "," $c["bytes"] ",collbench," a "," $c["avg_us"] "," $c["iters"]}' "$tmp/r.csv" >>"$runs"
      rm -f "$tmp/r.csv" "$tmp/r.json"
    done
  done
  echo "repetition $rep of $reps done" >&2
done
python3 scripts/summarize_osu.py "$out" | tee "$out/SUMMARY.md"
