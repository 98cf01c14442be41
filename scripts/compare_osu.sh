#!/usr/bin/env bash
# collbench's mpi row of one collective with its default call counts against OSU's
# benchmark of it (osu_allreduce, osu_alltoall: 7.4, built by hand outside this
# repository: never commit it), on 2 ranks of this machine. Per size and repetition the
# three programs run back to back, alternating:
#   osu_C -T mpi_float -m S:S                             (OSU 7.4 defaults to MPI_CHAR)
#   collbench run -c C -a mpi -b S -e S --aggregate mean  (OSU's Avg Latency: mean over ranks of each rank's mean)
#   collbench run -c C -a mpi -b S -e S                   (collbench's default: each call's slowest rank)
# and each figure is the median over the repetitions. For collectives made of one block
# per peer (alltoall) OSU's size is one block, so collbench runs with --size-per peer.
# Writes OUTDIR/runs.csv, OUTDIR/metadata.json and OUTDIR/SUMMARY.md.
#
# Usage: scripts/compare_osu.sh OSU_PROGRAM [OUTDIR]   (default results/osu)
# Environment: COLLECTIVE (default allreduce), REPS (repetitions, default 5), SIZES (bytes,
#              default 8 1024 65536 1048576 16777216), MPIEXEC (default build/mpiexec), NP (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 OSU_PROGRAM [OUTDIR]  (OSU_PROGRAM: an executable osu_allreduce, or osu_alltoall with COLLECTIVE=alltoall)" >&2
  exit 2
fi
osu=$(realpath "$1")
out=${2:-results/osu}
reps=${REPS:-5}
sizes=${SIZES:-8 1024 65536 1048576 16777216}
mpiexec=${MPIEXEC:-build/mpiexec}
np=${NP:-2}
coll=${COLLECTIVE:-allreduce}
program=$(basename "$osu")
per=()
[ "$coll" = alltoall ] && per=(--size-per peer)
collbench=build/harness/collbench
[ -x "$collbench" ] || { echo "$0: $collbench not built; run scripts/setup.sh first" >&2; exit 2; }
mkdir -p "$out"
runs="$out/runs.csv"
[ -e "$runs" ] && { echo "$0: $runs exists; choose another OUTDIR or move it away" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The metadata of one collbench run stands for all (same binary, library, machine).
"$mpiexec" -n "$np" "$collbench" run -c "$coll" -a mpi -b 8 -e 8 "${per[@]}" --csv "$tmp/meta.csv" \
  --json "$tmp/meta.json" >/dev/null
python3 - "$tmp/meta.json" "$out/metadata.json" "$osu" "$reps" "$sizes" "$np" "$coll" "${per[*]}" <<'PY'
import json, subprocess, sys
meta = json.load(open(sys.argv[1]))["metadata"]
osu, reps, sizes, np = sys.argv[3], int(sys.argv[4]), sys.argv[5].split(), int(sys.argv[6])
coll, per = sys.argv[7], (" " + sys.argv[8] if sys.argv[8] else "")
program = osu.rsplit("/", 1)[-1]
json.dump({"collbench": meta, "collective": coll, "osu_program": program,
           "osu": {"program": osu, "version": "OSU Micro-Benchmarks 7.4, built by hand with mpicc.mpich -O2",
                   "command": f"{program} -T mpi_float -m S:S (default iterations: 100 + 1000 up to 8 KiB, 10 + 100 above)"},
           "collbench_commands": [f"collbench run -c {coll} -a mpi -b S -e S{per} --aggregate mean",
                                  f"collbench run -c {coll} -a mpi -b S -e S{per}"],
           "repetitions": reps, "sizes": [int(s) for s in sizes], "ranks": np,
           "order": "per repetition and size: osu, collbench mean, collbench max, back to back"},
          open(sys.argv[2], "w"), indent=2)
PY

echo "rep,bytes,program,aggregate,avg_us,iters" >"$runs"
for rep in $(seq 1 "$reps"); do
  for bytes in $sizes; do
    osu_us=$("$mpiexec" -n "$np" "$osu" -T mpi_float -m "$bytes:$bytes" | awk -v b="$bytes" '$1==b {print $2}')
    [ -n "$osu_us" ] || { echo "$0: no OSU figure for $bytes bytes" >&2; exit 1; }
    echo "$rep,$bytes,$program,mean,$osu_us," >>"$runs"
    for aggregate in mean max; do
      "$mpiexec" -n "$np" "$collbench" run -c "$coll" -a mpi -b "$bytes" -e "$bytes" "${per[@]}" \
        --aggregate "$aggregate" --csv "$tmp/r.csv" --json "$tmp/r.json" --overwrite >/dev/null
      # OSU's size: per peer where collbench ran --size-per peer (its bytes column is all of a rank's blocks).
      awk -F, -v rep="$rep" -v a="$aggregate" -v b="$bytes" 'NR==1 {for (i=1;i<=NF;i++) c[$i]=i; next}
        {print rep "," b ",collbench," a "," $c["avg_us"] "," $c["iters"]}' "$tmp/r.csv" >>"$runs"
      rm -f "$tmp/r.csv" "$tmp/r.json"
    done
  done
  echo "repetition $rep of $reps done" >&2
done
python3 scripts/summarize_osu.py "$out" | tee "$out/SUMMARY.md"
