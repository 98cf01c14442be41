#!/usr/bin/env python3
"""Summary of scripts/measure_performance.sh's results (Markdown on stdout).

Kernels: each dtype x op's bytes/s at 64 MiB over memcpy's, per repetition (they are
randomly interleaved), median and range. Sweep: per algorithm and size, this tree's
p50 over the BEFORE build's (median over repetitions), flagged "slower" only where
every repetition of the new tree is slower than every repetition of the old one (the
ranges do not overlap); then the same with each algorithm first divided by its own
run's mpi (the verdict: whole runs land in faster or slower states). Targets at 2
ranks, per transport of the reference algorithms: per round, the best reference
algorithm's busbw over MPI_Allreduce's and the ring bound's share it reaches (round
means).
"""
import glob
import json
import statistics
import sys
from collections import defaultdict

from summary_text import cpu_text, size_text, spread

out = sys.argv[1]
meta = json.load(open(f"{out}/metadata.json"))





print(f"# Performance: before ({meta['before']}) and after ({meta['after'][:7]})\n")
print(f"Sweep: `{meta['command']}`, {meta['repetitions']} repetitions, {meta['order']}.\n")
print(cpu_text(json.load(open(sorted(glob.glob(f"{out}/sweep-after-*.json"))[0]))["metadata"]))

# --- kernels
print("## Kernels at 64 MiB: bytes/s over memcpy's (per repetition: median, min–max)\n")
kern = {}
for which in ("before", "after"):
    reps = defaultdict(dict)
    for b in json.load(open(f"{out}/kernels-{which}.json"))["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].rsplit("/", 1)[0]
        reps[b["repetition_index"]][name] = b["bytes_per_second"]
    kern[which] = reps
names = sorted({n for r in kern["after"].values() for n in r if n != "memcpy"})
print("| kernel | before | after | after GB/s (median) |")
print("|---|---|---|---|")
below = []
for n in names:
    cells = []
    for which in ("before", "after"):
        ratios = [r[n] / r["memcpy"] for r in kern[which].values() if n in r and "memcpy" in r]
        cells.append(spread(ratios) if ratios else "-")
        if which == "after" and ratios and statistics.median(ratios) < 0.9:
            below.append(n)
    gbs = statistics.median(r[n] for r in kern["after"].values() if n in r) / 1e9
    print(f"| {n} | {cells[0]} | {cells[1]} | {gbs:.1f} |")
mem = statistics.median(r["memcpy"] for r in kern["after"].values()) / 1e9
print(f"\nmemcpy (after's run): {mem:.1f} GB/s (2 bytes per buffer byte; reductions count 3). "
      f"Below 90% of memcpy: {', '.join(below) if below else 'none'}.\n")

# --- sweeps
rows = defaultdict(list)  # (which, algorithm, bytes) -> [row per repetition]
for path in sorted(glob.glob(f"{out}/sweep-*.json")) + sorted(glob.glob(f"{out}/bound-*.json")):
    name = path.rsplit("/", 1)[1]
    # sweep-before-1.json -> "before"; bound-shm-1.json -> "bound-shm"
    which = "-".join(name.split("-")[:2]) if name.startswith("bound-") else name.split("-")[1]
    for r in json.load(open(path))["rows"]:
        rows[(which, r["algorithm"], r["bytes"])].append(r)
algs = sorted({a for (w, a, b) in rows if w == "before"})
sizes = sorted({b for (w, a, b) in rows})

print("## Every algorithm, after over before: p50 time ratio (median over repetitions; < 1 is faster)\n")
print("| bytes | " + " | ".join(algs) + " |")
print("|---" * (len(algs) + 1) + "|")
slower = []
for b in sizes:
    cells = []
    for a in algs:
        old = [r["p50_us"] for r in rows[("before", a, b)]]
        new = [r["p50_us"] for r in rows[("after", a, b)]]
        if not old or not new:
            cells.append("-")
            continue
        ratio = statistics.median(new) / statistics.median(old)
        flag = ""
        if min(new) > max(old):
            flag = " **slower**"
            slower.append(f"{a} at {size_text(b)} ({ratio:.2f}x)")
        cells.append(f"{ratio:.2f}{flag}")
    print(f"| {size_text(b)} | " + " | ".join(cells) + " |")
print("\nSlower beyond the run-to-run spread (every after repetition slower than every before one): "
      + (", ".join(slower) if slower else "none") + ".\n")

# A whole run can land in a slow or a fast state (here mpi, whose code did not change,
# moved up to 2x between runs): each algorithm over its own run's mpi cancels that.
print("## The same, each algorithm first divided by its own run's mpi p50 at that size\n")
print("| bytes | " + " | ".join(a for a in algs if a != "mpi") + " |")
print("|---" * len(algs) + "|")
slower_rel = []
for b in sizes:
    cells = []
    for a in algs:
        if a == "mpi":
            continue
        rel = {w: [r["p50_us"] / m["p50_us"] for r, m in zip(rows[(w, a, b)], rows[(w, "mpi", b)])]
               for w in ("before", "after")}
        if not rel["before"] or not rel["after"]:
            cells.append("-")
            continue
        ratio = statistics.median(rel['after']) / statistics.median(rel['before'])
        mark = ""
        if min(rel["after"]) > max(rel["before"]):
            mark = " **slower**"
            slower_rel.append(f"{a} at {size_text(b)} ({ratio:.2f}x)")
        cells.append(f"{ratio:.2f}{mark}")
    print(f"| {size_text(b)} | " + " | ".join(cells) + " |")
mpi_moves = [statistics.median(r["p50_us"] for r in rows[("after", "mpi", b)]) /
             statistics.median(r["p50_us"] for r in rows[("before", "mpi", b)]) for b in sizes]
print(f"\nmpi's own after/before p50 ratio over the sizes: {min(mpi_moves):.2f}–{max(mpi_moves):.2f} "
      "(its code is the same in both trees: this is how far the run-level state moved).\n")
print("Slower relative to mpi beyond the run-to-run spread (every after repetition's ratio above every before "
      "one's): " + (", ".join(slower_rel) if slower_rel else "none") + ".\n")

for transport in ("mpi", "shm"):
    w = f"bound-{transport}"
    if not any(k[0] == w for k in rows):
        continue
    print(f"## Targets at 2 ranks, reference algorithms over `--transport {transport}`: "
          f"`{meta['bound_command']}`, per round over all repetitions: median (min–max)\n")
    print("| bytes | best reference | best busbw GB/s | mpi busbw GB/s | best / mpi | ring_bound busbw GB/s "
          "| best / ring_bound |")
    print("|---|---|---|---|---|---|---|")
    for b in sizes:
        if b < 256 << 10 or b > 4 << 20:
            continue
        refs = [a for a in algs if a not in ("mpi", "ring_bound") and rows[(w, a, b)]]
        if not refs or not rows[(w, "mpi", b)] or not rows[(w, "ring_bound", b)]:
            continue
        best = min(refs, key=lambda a: statistics.median(r["p50_us"] for r in rows[(w, a, b)]))
        vs_mpi, of_bound, best_bw, mpi_bw, bound_bw = [], [], [], [], []
        factor = rows[(w, best, b)][0]["busbw_gbps"] / rows[(w, best, b)][0]["algbw_gbps"]
        for rb, rm, rr in zip(rows[(w, best, b)], rows[(w, "mpi", b)], rows[(w, "ring_bound", b)]):
            for tb, tm, tr in zip(rb["round_mean_us"], rm["round_mean_us"], rr["round_mean_us"]):
                vs_mpi.append(tm / tb)
                of_bound.append(tr / tb)
                best_bw.append(b / tb / 1e3 * factor)
                mpi_bw.append(b / tm / 1e3 * factor)
                bound_bw.append(b / tr / 1e3 * factor)
        print(f"| {size_text(b)} | {best} | {spread(best_bw)} | {spread(mpi_bw)} | {spread(vs_mpi)} | "
              f"{spread(bound_bw)} | {spread(of_bound)} |")
    print()
print("busbw here from round means (the table's busbw column uses the mean of all calls); the bound's "
      "probes run over the same transport as the reference algorithms; targets: best / mpi >= 2.0 at "
      "256 KiB–4 MiB, best / ring_bound >= 0.85 at 1–4 MiB.")
