#!/usr/bin/env bash
# MPICH against Open MPI on this machine, side by side: per repetition, the MPICH tree
# (build/) and the Open MPI tree (build-openmpi/) run the same short sweep back to back,
# alternating which goes first, so drift hits both alike. Each sweep times the
# library's own collective (mpi, its automatic choice) and one collbench algorithm
# (ring for allreduce, allgather and reduce_scatter, binomial for the rooted ones),
# which runs over the library's point-to-point and so compares the two transports.
#   collbench run -c COLL -a mpi,REF -b 8 -e 64M -f 8   (2 ranks bound to cores)
# with collbench's default call counts (as OSU: 100 warm-up + 1000 timed up to 8 KiB, 10 + 100
# above, within a 1 s budget): MPICH 4.0.2 here needs more than 25 warm-up calls at a new
# size from 512 B to 4 KiB (with 5 it measured 30 us where 100 give 2.6 us).
# Writes OUTDIR/runs.csv, OUTDIR/metadata.json and OUTDIR/SUMMARY.md
# (scripts/summarize_libraries.py: medians over repetitions, ratio spread).
#
# Usage: scripts/compare_libraries.sh [OUTDIR]   (default results/libraries)
# Environment: REPS (default 5), COLLECTIVES (default "allreduce broadcast"), NP (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/libraries}
reps=${REPS:-5}
collectives=${COLLECTIVES:-allreduce broadcast}
np=${NP:-2}
trees=(build build-openmpi)
for t in "${trees[@]}"; do
  [ -x "$t/harness/collbench" ] || { echo "$0: $t not built; run scripts/setup.sh --mpi all first" >&2; exit 2; }
done
mkdir -p "$out"
runs="$out/runs.csv"
[ -e "$runs" ] && { echo "$0: $runs exists; choose another OUTDIR or move it away" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "rep,library,collective,algorithm,bytes,p50_us,avg_us,min_us,iters,errors" >"$runs"
for rep in $(seq 1 "$reps"); do
  order=("${trees[@]}")
  [ $((rep % 2)) = 0 ] && order=("${trees[1]}" "${trees[0]}")
  for coll in $collectives; do
    case "$coll" in allreduce | allgather | reduce_scatter) ref=ring ;; *) ref=binomial ;; esac
    for t in "${order[@]}"; do
      "$t/mpiexec" --bind-to core -n "$np" "$t/harness/collbench" run -c "$coll" -a "mpi,$ref" -b 8 -e 64M -f 8 \
        --csv "$tmp/r.csv" --json "$tmp/$t-$coll.json" --overwrite >/dev/null
      lib=$(${PYTHON:-python3} -c 'import json, sys; print(json.load(open(sys.argv[1]))["metadata"]["mpi"]["library"])' \
        "$tmp/$t-$coll.json")
      awk -F, -v rep="$rep" -v lib="$lib" 'NR==1 {for (i=1;i<=NF;i++) c[$i]=i; next}
        {print rep "," lib "," $c["collective"] "," $c["algorithm"] "," $c["bytes"] "," $c["p50_us"] "," $c["avg_us"] "," \
               $c["min_us"] "," $c["iters"] "," $c["errors"]}' "$tmp/r.csv" >>"$runs"
    done
  done
  echo "repetition $rep of $reps done" >&2
done
# Each library's metadata (from its last run of each collective).
${PYTHON:-python3} - "$out/metadata.json" "$reps" "$tmp"/*.json <<'PY'
import json, sys
runs = {p.rsplit("/", 1)[1]: json.load(open(p))["metadata"] for p in sys.argv[3:]}
json.dump({"repetitions": int(sys.argv[2]),
           "command": "TREE/mpiexec --bind-to core -n 2 TREE/harness/collbench run -c COLL -a mpi,REF -b 8 -e 64M -f 8 (REF: ring for allreduce, binomial for broadcast)",
           "order": "per repetition and collective: both trees back to back, MPICH first in odd repetitions",
           "runs": runs}, open(sys.argv[1], "w"), indent=1)
PY
${PYTHON:-python3} scripts/summarize_libraries.py "$out" | tee "$out/SUMMARY.md"
