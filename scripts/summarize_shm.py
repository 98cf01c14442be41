#!/usr/bin/env python3
"""Summary of scripts/measure_shm.sh's results (Markdown on stdout).

Targets (issue 35, 2 ranks, this tree over --transport shm, per repetition of the bound
run): the best reference algorithm's busbw over MPI_Allreduce's at 256 KiB-4 MiB (at least
3x), and at 1-64 MiB the memory-traffic bound over the best p50, both the best
algorithm's own bound and the collective's (the lowest bound of any algorithm), at least
0.85. Before/after: per transport, algorithm and size, this tree's p50 over BEFORE's
(median over repetitions), "slower" only where every repetition of this tree is slower
than every one of BEFORE, raw and with each run's p50 first divided by its own mpi's.
Replay: ResNet-50's mean step time per configuration and transport.
"""
import glob
import json
import re
import statistics
import sys
from collections import defaultdict

from summary_text import cpu_placement, cpu_text, handoff, size_text, spread

out = sys.argv[1]
meta = json.load(open(f"{out}/metadata.json"))





def rows_of(pattern):
    """{rep: [rows]} for files named like pattern with -N.json."""
    found = {}
    for path in sorted(glob.glob(f"{out}/{pattern}-*.json")):
        rep = int(re.search(r"-(\d+)\.json$", path).group(1))
        found[rep] = json.load(open(path))["rows"]
    return found


print(f"# Allreduce over shared memory: this tree ({meta['after'][:7]}) and BEFORE ({meta['before']})\n")
print(f"{meta['repetitions']} repetitions; {meta['order']}. Machine: `machine.txt`.\n")
bound = rows_of("bound")
any_rows = next(iter(bound.values()))
# The CPU, as the first bound run's metadata recorded it (every run records it).
print(cpu_text(json.load(open(sorted(glob.glob(f"{out}/bound-*.json"))[0]))["metadata"]))
errors = sum(r["errors"] for rs in bound.values() for r in rs if r["errors"] > 0)



def placement(name):
    """Whether the launch NAME's CPUs shared a cache (measure_shm.sh's cpus-NAME-*.txt), or None."""
    try:
        return cpu_placement(handoff(f"{out}/cpus-{name}-before.txt"), handoff(f"{out}/cpus-{name}-after.txt"))
    except FileNotFoundError:
        return None


def targets_table(reps):
    """The targets' table over the bound runs `reps`; returns the misses (medians)."""
    print("| bytes | best (most often) | best busbw GB/s | mpi busbw GB/s | best / mpi | best's own memory bound / p50 "
          "| lowest memory bound / best p50 | ring bound / best p50 |")
    print("|---|---|---|---|---|---|---|---|")
    misses = []
    for b in sizes:
        names, best_bw, mpi_bw, ratio, own, lowest, ring = [], [], [], [], [], [], []
        for rep in reps:
            at = {r["algorithm"]: r for r in bound[rep] if r["bytes"] == b}
            refs = [r for a, r in at.items() if a not in ("mpi", "ring_bound") and "memory_bound" in r.get("details", {})]
            if not refs or "mpi" not in at:
                continue
            best = min(refs, key=lambda r: r["p50_us"])
            names.append(best["algorithm"])
            best_bw.append(best["busbw_gbps"])
            mpi_bw.append(at["mpi"]["busbw_gbps"])
            ratio.append(best["busbw_gbps"] / at["mpi"]["busbw_gbps"])
            own.append(best["details"]["memory_bound"]["bound_us"] / best["p50_us"])
            lowest.append(min(r["details"]["memory_bound"]["bound_us"] for r in refs) / best["p50_us"])
            if "ring_bound" in at:
                ring.append(at["ring_bound"]["p50_us"] / best["p50_us"])
        common = max(set(names), key=names.count) if names else "-"
        if (256 << 10) <= b <= (4 << 20) and ratio and statistics.median(ratio) < 3:
            misses.append(f"{size_text(b)} best/mpi {statistics.median(ratio):.2f}")
        if (1 << 20) <= b <= (64 << 20) and lowest and statistics.median(lowest) < 0.85:
            misses.append(f"{size_text(b)} of the lowest memory bound {statistics.median(lowest):.2f}")
        print(f"| {size_text(b)} | {common} | {spread(best_bw)} | {spread(mpi_bw)} | {spread(ratio)} | {spread(own)} "
              f"| {spread(lowest)} | {spread(ring)} |")
    return misses


print(f"## Targets: `{meta['bound']}`\n")
print("Per repetition; median (min–max). `best` is the reference algorithm with the lowest p50 in that "
      "repetition; its busbw is the mean of all calls (the table's), MPI_Allreduce's the same.\n")
sizes = sorted({r["bytes"] for r in any_rows})
misses = targets_table(sorted(bound))
print(f"\nTargets missed (medians): {', '.join(misses) or 'none'}. Wrong elements in these runs: {errors}.\n")

groups = defaultdict(list)
for rep in sorted(bound):
    groups[placement(f"bound-{rep}")].append(rep)
if None not in groups:
    print("The bound runs by whether their two CPUs shared a cache (collbench-core-handoff before and after "
          "each launch; results/core-placement: over shared memory a store into a line the other CPU read "
          "costs far more where they share none): "
          + ", ".join(f"{name} {len(reps)}" for name, reps in sorted(groups.items())) + ".\n")
    for name, reps in sorted(groups.items()):
        heading = {"shared a cache": "shared a cache", "did not": "shared none"}.get(name, name)
        print(f"### Bound runs whose CPUs {heading}\n")
        group_misses = targets_table(reps)
        print(f"\nIn this group, missed (medians): {', '.join(group_misses) or 'none'}.\n")

def own_bound_table(reps):
    """Each algorithm's own memory-traffic bound over its p50 in the bound runs `reps`."""
    algs = sorted({r["algorithm"] for rep in reps for r in bound[rep] if "memory_bound" in r.get("details", {})})
    print("| bytes | " + " | ".join(algs) + " |")
    print("|---" * (len(algs) + 1) + "|")
    for b in sizes:
        cells = []
        for a in algs:
            shares = [r["details"]["memory_bound"]["bound_us"] / r["p50_us"] for rep in reps for r in bound[rep]
                      if r["bytes"] == b and r["algorithm"] == a and "memory_bound" in r.get("details", {})]
            cells.append(spread(shares) if shares else "-")
        print(f"| {size_text(b)} | " + " | ".join(cells) + " |")
    print()


print("Each algorithm's own memory-traffic bound over its p50, per placement: median (min–max) over the bound "
      "runs. Each byte is priced at its kind's rate (harness/README.md, *The memory-traffic bound*): a "
      "store into bytes the peer reads, or a read of bytes the peer has just written, costs far more where the "
      "CPUs share no cache.\n")
for name, reps in sorted(groups.items(), key=lambda g: str(g[0])):
    print(f"### Own bound, CPUs {name or 'unknown'} ({len(reps)} runs)\n")
    own_bound_table(reps)

# Memory-bound details of the last repetition, per algorithm at 1 MiB and 64 MiB.
last = bound[max(bound)]
print("Memory-traffic bound per algorithm (last repetition): of_memory_bound (bytes copied + reduced by the "
      "busiest rank, MiB)\n")
algs = sorted({r["algorithm"] for r in last if "memory_bound" in r.get("details", {})})
print("| bytes | " + " | ".join(algs) + " |")
print("|---" * (len(algs) + 1) + "|")
for b in sizes:
    cells = []
    for a in algs:
        r = next((r for r in last if r["bytes"] == b and r["algorithm"] == a), None)
        if not r:
            cells.append("-")
            continue
        m = r["details"]["memory_bound"]
        cells.append(f"{m['bound_us'] / r['p50_us']:.2f} ({m['busiest_rank_copied_bytes'] / 2**20:.1f} + "
                     f"{m['busiest_rank_reduced_bytes'] / 2**20:.1f})")
    print(f"| {size_text(b)} | " + " | ".join(cells) + " |")
print()

# --- before / after
for transport in ("mpi", "shm"):
    runs = {w: rows_of(f"sweep-{w}-{transport}") for w in ("before", "after")}
    p50 = {w: defaultdict(dict) for w in runs}  # which -> (alg, bytes) -> rep -> p50
    for w, reps in runs.items():
        for rep, rs in reps.items():
            for r in rs:
                p50[w][(r["algorithm"], r["bytes"])][rep] = r["p50_us"]
    algs = sorted({a for (a, _) in p50["after"]} & {a for (a, _) in p50["before"]})
    sizes = sorted({b for (_, b) in p50["after"]})
    print(f"## Before and after over --transport {transport}: p50 after / before (median over repetitions; "
          f"< 1 is faster)\n")
    print("| bytes | " + " | ".join(algs) + " |")
    print("|---" * (len(algs) + 1) + "|")
    slower, slower_rel = [], []
    for b in sizes:
        cells = []
        for a in algs:
            af, bf = p50["after"].get((a, b), {}), p50["before"].get((a, b), {})
            common = sorted(set(af) & set(bf))
            if not common:
                cells.append("-")
                continue
            cells.append(f"{statistics.median(af[k] / bf[k] for k in common):.2f}")
            if min(af.values()) > max(bf.values()):
                slower.append(f"{a} {size_text(b)}")
            ma, mb = p50["after"].get(("mpi", b), {}), p50["before"].get(("mpi", b), {})
            rel_a = [af[k] / ma[k] for k in af if k in ma]
            rel_b = [bf[k] / mb[k] for k in bf if k in mb]
            if a != "mpi" and rel_a and rel_b and min(rel_a) > max(rel_b):
                slower_rel.append(f"{a} {size_text(b)}")
        print(f"| {size_text(b)} | " + " | ".join(cells) + " |")
    print(f"\nSlower than before beyond the spread, raw: {', '.join(slower) or 'none'}; relative to each run's "
          f"mpi: {', '.join(slower_rel) or 'none'}. A size slower both ways is a regression; one way only is "
          f"how far whole runs moved.\n")

# --- replay
print(f"## ResNet-50 replayed: `{meta['replay']}`, mean step ms per repetition, median (min–max)\n")
print("| configuration | over mpi | over shm |")
print("|---|---|---|")
rep_rows = {t: rows_of(f"replay-{t}") for t in ("mpi", "shm")}
configs = sorted({(r["algorithm"], r["bucketing"]) for rs in rep_rows["shm"].values() for r in rs})
for c in configs:
    cells = []
    for t in ("mpi", "shm"):
        xs = [r["step_ms"] for rs in rep_rows[t].values() for r in rs
              if r["step"] == "mean" and (r["algorithm"], r["bucketing"]) == c]
        cells.append(spread(xs, "{:.1f}"))
    print(f"| {c[0]} / {c[1]} | {cells[0]} | {cells[1]} |")
print("\nCompute is emulated (20 ms a step, spread by FLOPs); over shm the ring's messages go through shared "
      "memory, the mpi row still through the library.")
