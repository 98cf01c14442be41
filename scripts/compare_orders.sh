#!/usr/bin/env bash
# The executor's dataflow order against its step-by-step order, side by side: per
# repetition the same allreduce sweep with --order dataflow and --order steps back to
# back (alternating which goes first), NP ranks. Writes OUTDIR/order-*.json and
# OUTDIR/SUMMARY.md: per algorithm and size, dataflow p50 / steps p50 (median over
# repetitions, min-max), "faster"/"slower" only where the repetitions' ranges do not overlap.
#
# Usage: scripts/compare_orders.sh [OUTDIR]   (default results/orders)
# Environment: NP (2), REPS (3), BUDGET (0.3 s per algorithm and size), MIN (64K), MAX (64M),
#   ALGS (ring,ring_pipelined,rabenseifner,double_binary_tree,recursive_doubling),
#   MPIEXEC (launcher and its options; default "build/mpiexec --bind-to core"),
#   COLLBENCH (build/harness/collbench).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/orders}
np=${NP:-2} reps=${REPS:-3} budget=${BUDGET:-0.3} min=${MIN:-64K} max=${MAX:-64M}
algs=${ALGS:-ring,ring_pipelined,rabenseifner,double_binary_tree,recursive_doubling}
read -ra launcher <<<"${MPIEXEC:-build/mpiexec --bind-to core}"
collbench=${COLLBENCH:-build/harness/collbench}
[ -e "$out/SUMMARY.md" ] && { echo "$0: $out already holds results; choose another OUTDIR" >&2; exit 2; }
mkdir -p "$out"
for rep in $(seq 1 "$reps"); do
  order=(dataflow steps)
  [ $((rep % 2)) = 0 ] && order=(steps dataflow)
  for o in "${order[@]}"; do
    "${launcher[@]}" -n "$np" "$collbench" run -c allreduce -a "$algs" -b "$min" -e "$max" -f 4 --rounds 3 \
      --time-budget "$budget" --order "$o" --csv "$out/order-$o-$rep.csv" --json "$out/order-$o-$rep.json" >/dev/null
  done
  echo "repetition $rep of $reps done" >&2
done
${PYTHON:-python3} - "$out" "$np" "$reps" <<'PY' | tee "$out/SUMMARY.md"
import glob, json, statistics, sys
from collections import defaultdict
out, np, reps = sys.argv[1], sys.argv[2], sys.argv[3]
p50 = defaultdict(list)
meta = None
for path in sorted(glob.glob(f"{out}/order-*.json")):
    d = json.load(open(path))
    meta = meta or d["metadata"]
    o = d["metadata"]["options"]["order"]
    for r in d["rows"]:
        assert r["errors"] == 0, (path, r["algorithm"], r["bytes"])
        p50[(o, r["algorithm"], r["bytes"])].append(r["p50_us"])
algs = sorted({a for (_, a, _) in p50})
sizes = sorted({b for (_, _, b) in p50})
print(f"# Dataflow order / step order, allreduce, {np} ranks, {reps} repetitions\n")
print(f"Hosts: {', '.join(meta['hosts'])}; MPI: {meta['mpi']['library']}. Per cell: dataflow p50 / steps p50, "
      "median over repetitions (min–max); < 1: dataflow faster. Marked where every repetition of one order "
      "beat every repetition of the other.\n")
print("| bytes | " + " | ".join(algs) + " |")
print("|---" * (len(algs) + 1) + "|")
for b in sizes:
    cells = []
    for a in algs:
        d, s = p50[("dataflow", a, b)], p50[("steps", a, b)]
        ratios = [x / y for x, y in zip(d, s)]
        mark = " faster" if max(d) < min(s) else " slower" if min(d) > max(s) else ""
        cells.append(f"{statistics.median(d) / statistics.median(s):.2f} ({min(ratios):.2f}–{max(ratios):.2f}){mark}")
    print(f"| {b} | " + " | ".join(cells) + " |")
PY
