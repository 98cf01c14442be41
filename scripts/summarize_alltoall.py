#!/usr/bin/env python3
"""Summarises scripts/measure_alltoall.sh's raw/ directory as SUMMARY.md (stdout):
the 2-rank sweeps of every alltoall algorithm, alltoallv under skewed counts, Bruck
against pairwise on 4 emulated hosts at 100 Mbit/s (measured and as `model best`
predicts), and the MoE and DLRM replays."""
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def p50_table(path, title):
    """Sizes down, algorithms across: p50 in us; errors over all rows."""
    rs = rows(path)
    algos = list(dict.fromkeys(r["algorithm"] for r in rs))
    by = {(int(r["bytes"]), r["algorithm"]): float(r["p50_us"]) for r in rs}
    errors = sum(int(r["errors"]) for r in rs)
    print(f"### {title}\n")
    print("p50 µs per call (each call's slowest rank); bytes = all of a rank's blocks (nccl-tests).\n")
    print("| bytes | " + " | ".join(algos) + " | fastest |")
    print("|---" * (len(algos) + 2) + "|")
    for b in sorted({k[0] for k in by}):
        vals = {a: by[(b, a)] for a in algos if (b, a) in by}
        best = min(vals, key=vals.get)
        print(f"| {b} | " + " | ".join(f"{vals[a]:.2f}" if a in vals else "" for a in algos) + f" | {best} |")
    print(f"\nWrong elements over every row: {errors}.\n")
    return errors


def crossover(winner_of):
    """The first size from which pairwise wins every larger size (None: never)."""
    sizes = sorted(winner_of)
    for i, b in enumerate(sizes):
        if all(winner_of[s] == "pairwise" for s in sizes[i:]):
            return b
    return None


def main(out):
    raw = f"{out}/raw"
    facts = open(f"{raw}/machine.txt").read()
    cpu = re.search(r"Model name:\s*(.*)", facts)
    src = re.search(r"source: (.*)", facts)
    print("# alltoall, alltoallv and the models on them\n")
    print(f"One run of `scripts/measure_alltoall.sh` at {src.group(1) if src else '?'} on "
          f"{cpu.group(1).strip() if cpu else 'an unknown CPU'} (raw/machine.txt has lscpu and the packages). "
          "Every row below was checked against the exact expected values.\n")
    errors = 0
    print("## Two ranks, one host\n")
    errors += p50_table(f"{raw}/local-alltoall-mpi-steps.csv", "alltoall over MPI point-to-point, --order steps")
    errors += p50_table(f"{raw}/local-alltoall-shm.csv", "alltoall over shared memory (shm), dataflow order")
    print("### alltoallv under skewed counts\n")
    print("p50 µs of each algorithm; `busiest` is the most bytes one rank sends or receives, "
          "against the mean `bytes` per rank.\n")
    print("| counts | bytes | busiest | mpi | linear | pairwise | hierarchical |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(f"{raw}/local-alltoallv-*.csv")):
        rs = rows(path)
        errors += sum(int(r["errors"]) for r in rs)
        by = defaultdict(dict)
        for r in rs:
            by[(int(r["bytes"]), r["counts"], int(r["busiest_bytes"]))][r["algorithm"]] = float(r["p50_us"])
        for (b, counts, busiest), v in sorted(by.items()):
            print(f"| {counts} | {b} | {busiest} | " +
                  " | ".join(f"{v[a]:.2f}" if a in v else "" for a in ("mpi", "linear", "pairwise", "hierarchical")) + " |")
    print()

    print("## Four emulated hosts x 1 rank at 100 Mbit/s: Bruck against pairwise\n")
    measured = rows(f"{raw}/4x1-alltoall.csv")
    errors += sum(int(r["errors"]) for r in measured)
    by = defaultdict(dict)
    for r in measured:
        by[int(r["bytes"])][r["algorithm"]] = float(r["p50_us"])
    predicted = defaultdict(dict)
    for r in rows(f"{raw}/4x1-best-bruck-pairwise.csv"):
        predicted[int(r["bytes"])][r["algorithm"]] = float(r["predicted_us"])
    print("Measured p50 (steps order) and predicted µs from the model fitted to this run's p2p "
          "(`model best -a bruck,pairwise --order steps`).\n")
    print("| bytes | bruck | pairwise | measured faster | predicted bruck | predicted pairwise | predicted faster |")
    print("|---|---|---|---|---|---|---|")
    won, said = {}, {}
    for b in sorted(set(by) & set(predicted)):
        m, p = by[b], predicted[b]
        won[b] = min(("bruck", "pairwise"), key=lambda a: m[a])
        said[b] = min(("bruck", "pairwise"), key=lambda a: p[a])
        print(f"| {b} | {m['bruck']:.1f} | {m['pairwise']:.1f} | {won[b]} | {p['bruck']:.1f} | {p['pairwise']:.1f} "
              f"| {said[b]} |")
    mc, pc = crossover(won), crossover(said)
    sizes = sorted(won)
    steps = abs(sizes.index(mc) - sizes.index(pc)) if mc in sizes and pc in sizes else None
    print(f"\nCrossover (the size from which pairwise wins every larger one): measured {mc} B, predicted {pc} B"
          + (f", {steps} size step(s) apart: target (within one step) {'met' if steps <= 1 else 'NOT met'}."
             if steps is not None else ": one of them has none."))
    best = {int(r["bytes"]): r["algorithm"] for r in rows(f"{raw}/4x1-best.csv") if r["place"] == "1"}
    fastest = {b: min((a for a in v if a != "mpi"), key=v.get) for b, v in by.items()}
    agree = sum(best.get(b) == fastest[b] for b in fastest)
    print(f"\nAmong every reference algorithm (the model cannot predict the library's own), `model best` names "
          f"the measured fastest at {agree} of {len(fastest)} sizes.\n")

    print("## Mixture-of-experts replay: routing skew and exposed all-to-all time\n")
    per = defaultdict(list)
    for path in sorted(glob.glob(f"{raw}/moe-*-rep*.csv")):
        for r in rows(path):
            if r["step"] == "mean":
                routing = re.match(r".*/moe-(.*)-rep\d+\.csv", path).group(1)
                per[routing].append(r)
                errors += max(0, int(r["errors"]))
    first = next(iter(per.values()))
    print(f"`{first[0]['workload']}`, mpi allreduce and alltoallv, compute {float(first[0]['compute_ms']):.0f} ms per "
          f"step; medians over {len(first)} alternating repetitions (min-max).\n")
    print("| routing | step ms | alltoall ms (exposed: compute waits) | all exposed ms | vs uniform (alltoall) |")
    print("|---|---|---|---|---|")
    base = None
    for routing in ("uniform", "zipf-1.2", "hot-0-0.5"):
        if routing not in per:
            continue
        v = lambda k: [float(r[k]) for r in per[routing]]
        med = lambda k: statistics.median(v(k))
        span = lambda k: f"{min(v(k)):.1f}-{max(v(k)):.1f}"
        a2a = med("alltoall_exposed_ms")
        base = base or a2a
        print(f"| {routing.replace('-', ':', 2) if routing != 'uniform' else routing} | {med('step_ms'):.1f} ({span('step_ms')}) "
              f"| {a2a:.1f} ({span('alltoall_exposed_ms')}) | {med('exposed_ms'):.1f} | {a2a / base:.2f} |")
    print()
    dl = [r for r in rows(f"{raw}/dlrm.csv") if r["step"] == "mean"]
    errors += sum(max(0, int(r["errors"])) for r in dl)
    print("## DLRM-DCNv2 replay\n")
    print("| allreduce | step ms | alltoall ms | all exposed ms |")
    print("|---|---|---|---|")
    for r in dl:
        print(f"| {r['algorithm']} | {float(r['step_ms']):.1f} | {float(r['alltoall_ms']):.1f} | "
              f"{float(r['exposed_ms']):.1f} |")
    print(f"\nWrong elements in every run above: {errors}.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/alltoall")
