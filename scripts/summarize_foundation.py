#!/usr/bin/env python3
"""Summarises results/foundation/: harness overhead, ring vs MPI_Allreduce, kernels vs
memcpy. Every figure is a ratio of numbers measured side by side in one run; the
spread is the min..max over repetitions (rounds)."""
import csv
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def spread(values):
    return f"{statistics.median(values):.3f} ({min(values):.3f}..{max(values):.3f})"


def overhead(d):
    rows = list(csv.DictReader(open(d / "overhead.csv")))
    t = {(r["rep"], int(r["bytes"]), r["program"], r["timing"]): float(r["avg_us"]) for r in rows}
    print("## 1. Harness overhead: collbench's `mpi` figure / plain MPI_Wtime loop (same timing policy)\n")
    print("The two programs alternate; each row compares their distributions over the repetitions: "
          "ratio of medians (the verdict), ratio of minima (noise only adds time), and the min..max of "
          "the ratios of adjacent pairs.\n")
    print("| bytes | timing | reps | plain µs median | collbench µs median | ratio of medians | ratio of minima | "
          "adjacent pairs min..max | within 10% |")
    print("|---|---|---|---|---|---|---|---|---|")
    for b in sorted({k[1] for k in t}):
        for timing in ("loop", "per-call"):
            reps = sorted({k[0] for k in t if k[1] == b and k[3] == timing})
            plain = [t[(r, b, "plain-loop", timing)] for r in reps]
            ours = [t[(r, b, "collbench", timing)] for r in reps]
            ratios = [o / p for o, p in zip(ours, plain)]
            of_medians = statistics.median(ours) / statistics.median(plain)
            ok = abs(of_medians - 1) <= 0.10
            print(f"| {b} | {timing} | {len(reps)} | {statistics.median(plain):.2f} | {statistics.median(ours):.2f} | "
                  f"{of_medians:.3f} | {min(ours) / min(plain):.3f} | {min(ratios):.3f}..{max(ratios):.3f} | "
                  f"{'yes' if ok else 'NO'} |")
    print()


def ring_vs_mpi(d):
    doc = json.load(open(d / "allreduce-2ranks.json"))
    by_size = defaultdict(dict)
    for r in doc["rows"]:
        by_size[r["bytes"]][r["algorithm"]] = r
    print("## 2. Ring allreduce / MPI_Allreduce, 2 ranks, per-round mean times interleaved in one run\n")
    print(f"MPI: {doc['metadata']['mpi']['library']}; {len(next(iter(by_size.values()))['mpi']['round_mean_us'])} rounds; "
          "errors column must be 0 for every row.\n")
    print("| bytes | mpi avg µs | ring avg µs | ring/mpi median (min..max over rounds) | errors | target |")
    print("|---|---|---|---|---|---|")
    for b in sorted(by_size):
        m, r = by_size[b]["mpi"], by_size[b]["ring"]
        ratios = [x / y for x, y in zip(r["round_mean_us"], m["round_mean_us"])]
        target = "≤ 1.10" if b >= 1 << 20 else ""
        verdict = ("met" if statistics.median(ratios) <= 1.10 else "NOT met") if target else ""
        print(f"| {b} | {m['avg_us']:.2f} | {r['avg_us']:.2f} | {spread(ratios)} | {m['errors'] + r['errors']} | "
              f"{target} {verdict} |")
    print()


def kernels(d):
    doc = json.load(open(d / "kernels.json"))
    runs = defaultdict(list)
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration":
            runs[b["run_name"]].append(b["bytes_per_second"] / 1e9)
    print("## 3. Reduction kernels vs memcpy (GB/s, bytes read + written, STREAM-style)\n")
    ctx = doc["context"]
    print(f"{ctx.get('num_cpus')} CPUs, {ctx.get('mhz_per_cpu')} MHz; repetitions per benchmark: "
          f"{len(runs.get('memcpy/67108864', []))}\n")
    sizes = sorted({int(n.split("/")[-1]) for n in runs})
    print("| kernel | " + " | ".join(f"{s} B" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    names = sorted({n.rsplit("/", 1)[0] for n in runs}, key=lambda n: (n != "memcpy", n))
    for n in names:
        cells = [f"{statistics.median(runs[f'{n}/{s}']):.1f}" for s in sizes]
        print(f"| {n} | " + " | ".join(cells) + " |")
    mem, f32 = runs["memcpy/67108864"], runs["reduce/f32/sum/67108864"]
    of_medians = statistics.median(f32) / statistics.median(mem)
    print(f"\nf32 sum / memcpy at 64 MiB: ratio of medians {of_medians:.3f} "
          f"(f32 sum {min(f32):.1f}..{max(f32):.1f} GB/s, memcpy {min(mem):.1f}..{max(mem):.1f} GB/s over "
          f"{len(mem)} randomly interleaved repetitions); target ≥ 0.80: {'met' if of_medians >= 0.80 else 'NOT met'}\n")


if __name__ == "__main__":
    d = Path(sys.argv[1] if len(sys.argv) > 1 else "results/foundation")
    print(f"# Foundation benchmark summary ({d})\n")
    overhead(d)
    ring_vs_mpi(d)
    kernels(d)
