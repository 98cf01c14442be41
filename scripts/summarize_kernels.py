#!/usr/bin/env python3
"""Summary of scripts/measure_kernels.sh's results (Markdown on stdout).

Every ratio is a kernel's bytes/s over memcpy's in the same run of the same binary (the
runs are interleaved, so each repetition's ratio compares like with like), given as the
median over repetitions and its range. Targets (issue 35): every dtype x op at least
0.90 of memcpy at 64 MiB and above the last-level cache, on the path reduce() takes; bf16
and f16 within 10% of f32 (the same op, same run). The targets are judged on the paired
benchmarks (ratios of calls milliseconds apart); the unpaired ones are shown beside them. Against BEFORE: raw bytes/s and the
ratio to memcpy, "slower" only where every repetition of this tree is below every
repetition of BEFORE.
"""
import glob
import json
import re
import statistics
import sys
from collections import defaultdict

from summary_text import size_text, spread

out = sys.argv[1]
meta = json.load(open(f"{out}/metadata.json"))


def load(which):
    """{rep: {(name, size): (bytes/s, label)}}, {rep: {(name, size): paired counters}},
    and the first file's context."""
    runs, paired, context = {}, {}, None
    for path in sorted(glob.glob(f"{out}/{which}-*.json")):
        doc = json.load(open(path))
        context = context or doc["context"]
        rep = int(re.search(r"-(\d+)\.json$", path).group(1))
        runs[rep], paired[rep] = {}, {}
        for b in doc["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            name, size = b["run_name"].rsplit("/", 1)
            if name.startswith("paired/"):
                paired[rep][(name.split("/", 1)[1], int(size))] = b
            else:
                runs[rep][(name, int(size))] = (b["bytes_per_second"], b.get("label", ""))
    return runs, paired, context


after, after_paired, ctx = load("after")
before, _, _ = load("before")


def paired_ratios(what, size, counter):
    """Each repetition's median of per-iteration ratios (kernels_benchmark.cpp's paired_bench)."""
    return [r[(what, size)][counter] for r in after_paired.values() if counter in r.get((what, size), {})]


def ratios(runs, name, size, over="memcpy"):
    return [r[(name, size)][0] / r[(over, size)][0] for r in runs.values() if (name, size) in r and (over, size) in r]


sizes = sorted({s for r in after.values() for (_, s) in r})
kernels = sorted({n for r in after.values() for (n, _) in r if n.startswith("reduce/")})
print(f"# Reduction kernels against memcpy ({meta['after'][:7]}, BEFORE {meta['before']})\n")
print(f"`{meta['after_command']}` and `{meta['before_command']}`, {meta['repetitions']} repetitions, "
      f"{meta['order']}. Machine: `machine.txt` (lscpu).\n")
print(f"CPU: {ctx.get('cpu_model')}; kernel features: {ctx.get('cpu_kernel_features')}; caches "
      f"{ctx.get('cpu_caches')}; paths available: {ctx.get('kernel_paths_available')}; reduce() takes "
      f"**{ctx.get('kernel_path')}**; streaming stores from {int(ctx.get('streaming_stores_from_bytes', 0)) >> 20} MiB "
      f"outputs; one core's triad {float(ctx.get('triad_gb_per_s', 0)):.1f} GB/s "
      f"(arrays of {int(ctx.get('triad_array_bytes', 0)) >> 20} MiB).\n")

for size in sizes:
    mem = [r[("memcpy", size)][0] / 1e9 for r in after.values() if ("memcpy", size) in r]
    print(f"## {size_text(size)}: the path reduce() takes, bytes/s over memcpy's\n")
    print(f"memcpy {spread(mem)} GB/s (2 bytes per buffer byte; reductions count 3).\n")
    print("| kernel | path | over memcpy | over f32, same op |")
    print("|---|---|---|---|")
    below, off = [], []
    for k in kernels:
        label = next((r[(k, size)][1] for r in after.values() if (k, size) in r), "")
        x = ratios(after, k, size)
        dtype, op = k.split("/")[1:]
        rel = ratios(after, k, size, over=f"reduce/f32/{op}") if dtype in ("f16", "bf16") else []
        if x and statistics.median(x) < 0.9:
            below.append(k)
        if rel and abs(statistics.median(rel) - 1) > 0.10:
            off.append(k)
        print(f"| {k} | {label} | {spread(x)} | {spread(rel)} |")
    print(f"\nUnpaired (each benchmark its own ~{meta.get('min_time', '0.2')} s, seconds apart): below 0.90 of memcpy "
          f"(median): {', '.join(below) or 'none'}; 16-bit more than 10% from f32 (median): {', '.join(off) or 'none'}.\n")

    pairs = [k for k in kernels if paired_ratios(k.split("/", 1)[1], size, "over_memcpy")]
    if pairs:
        print(f"### {size_text(size)}: paired, the targets' measure\n")
        print("`paired/DTYPE/OP` times memcpy, the kernel and (16-bit) f32 with the same op back to back "
              "within each iteration, in rotating order; per repetition the median of the per-iteration "
              "ratios; here the median over repetitions and its range.\n")
        print("| kernel | over memcpy | over f32, same op | pairs per repetition |")
        print("|---|---|---|---|")
        below, off = [], []
        for k in pairs:
            what = k.split("/", 1)[1]
            x, rel = paired_ratios(what, size, "over_memcpy"), paired_ratios(what, size, "over_f32")
            n = paired_ratios(what, size, "pairs")
            if statistics.median(x) < 0.9:
                below.append(k)
            if rel and abs(statistics.median(rel) - 1) > 0.10:
                off.append(k)
            print(f"| {k} | {spread(x)} | {spread(rel)} | {spread(n, '{:.0f}')} |")
        print(f"\n**Paired: below 0.90 of memcpy (median): {', '.join(below) or 'none'}. "
              f"16-bit more than 10% from f32 (median): {', '.join(off) or 'none'}.**\n")

    paths = sorted({n.split("/")[1] + "/" + n.split("/")[2] for r in after.values() for (n, s) in r
                    if n.startswith("path/") and s == size})
    if paths:
        print(f"### {size_text(size)}: every path, ordinary and streaming stores, over memcpy (median of repetitions)\n")
        print("| kernel | " + " | ".join(paths) + " |")
        print("|---" * (len(paths) + 1) + "|")
        for k in kernels:
            what = k.split("/", 1)[1]
            cells = []
            for p in paths:
                x = ratios(after, f"path/{p}/{what}", size)
                cells.append(f"{statistics.median(x):.2f}" if x else "-")
            print(f"| {what} | " + " | ".join(cells) + " |")
        print()

    common = [k for k in kernels if any((k, size) in r for r in before.values())]
    if common:
        print(f"### {size_text(size)}: this tree over BEFORE (median of repetitions' ratios; > 1 is faster)\n")
        print("| kernel | BEFORE path | raw bytes/s | over memcpy | slower beyond the spread |")
        print("|---|---|---|---|---|")
        slower = []
        for k in common:
            a = [r[(k, size)][0] for r in after.values() if (k, size) in r]
            b = [r[(k, size)][0] for r in before.values() if (k, size) in r]
            ra, rb = ratios(after, k, size), ratios(before, k, size)
            label = next(r[(k, size)][1] for r in before.values() if (k, size) in r)
            worse = max(a) < min(b) and max(ra) < min(rb)
            if worse:
                slower.append(k)
            print(f"| {k} | {label} | {statistics.median(a) / statistics.median(b):.2f} "
                  f"| {statistics.median(ra) / statistics.median(rb):.2f} | {'yes' if worse else ''} |")
        print(f"\nSlower than BEFORE beyond the spread (raw and over memcpy): {', '.join(slower) or 'none'}.\n")
