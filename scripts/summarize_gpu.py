#!/usr/bin/env python3
"""Summarises results/gpu/ (scripts/measure_gpu.sh): each device reduction kernel's
bytes per second as a share of a device-to-device copy of the same size, measured in
one benchmark run (medians of 5 interleaved repetitions), with the target (f32 sum at
least 90% of the copy from 64 MiB); then the allreduce sweeps per transport and rank
count."""
import json
import sys
from collections import defaultdict
from pathlib import Path

MIB = 1 << 20


def kernels(raw):
    """{(kernel, bytes): bytes_per_second} from the benchmark's median aggregates."""
    out = {}
    for b in json.load(open(raw / "kernels.json"))["benchmarks"]:
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")  # gpu/copy/SIZE/real_time, gpu/reduce/DT/OP/SIZE/real_time
        size = int(parts[-2])
        out[("/".join(parts[1:-2]), size)] = b["bytes_per_second"]
    return out


def kernel_section(raw, lines):
    k = kernels(raw)
    sizes = sorted({s for _, s in k})
    names = sorted({n for n, _ in k if n != "copy"}, key=lambda n: (n != "reduce/f32/sum", n))
    lines.append("## Device kernels / device-to-device copy (bytes read and written per second)\n")
    lines.append("| kernel | " + " | ".join(f"{s // 1024} KiB" if s < MIB else f"{s // MIB} MiB" for s in sizes) + " |")
    lines.append("|---|" + "---:|" * len(sizes))
    lines.append("| copy GB/s | " + " | ".join(f"{k[('copy', s)] / 1e9:.0f}" for s in sizes) + " |")
    for n in names:
        lines.append(f"| {n} | " + " | ".join(f"{k[(n, s)] / k[('copy', s)]:.2f}" for s in sizes) + " |")
    big = [s for s in sizes if s >= 64 * MIB]
    worst = min(k[("reduce/f32/sum", s)] / k[("copy", s)] for s in big) if big else None
    verdict = "no sizes from 64 MiB" if worst is None else f"{worst:.2f} ({'met' if worst >= 0.9 else 'missed'})"
    lines.append(f"\nTarget: f32 sum at least 0.90 of the copy from 64 MiB; lowest there: {verdict}.\n")


def sweep_section(raw, lines):
    lines.append("## Allreduce on device memory (busbw GB/s as nccl-tests defines it, p50 µs in brackets)\n")
    lines.append("Ranks beyond the GPUs share them (local rank modulo GPUs): these rows show "
                 "correctness and staging overheads, not multi-GPU speed.\n")
    for f in sorted(raw.glob("allreduce-*-np*.json")):
        j = json.load(open(f))
        rows = j["rows"]
        if not rows:
            continue
        gpus = sorted(set(j["metadata"].get("memory_of_rank", [])))
        wrong = sum(max(r["errors"], 0) for r in rows)
        lines.append(f"### {j['metadata']['transport']}, {rows[0]['ranks']} rank(s) on {', '.join(gpus) or 'unknown GPU'}: "
                     f"{wrong} wrong element(s) in {sum(r['checked_calls'] for r in rows)} checked calls\n")
        by = defaultdict(dict)
        for r in rows:
            by[r["algorithm"]][r["bytes"]] = r
        sizes = sorted({r["bytes"] for r in rows})
        shown = [s for s in sizes if s in (8, 1024, 64 * 1024, MIB, 16 * MIB, 256 * MIB)] or sizes
        lines.append("| algorithm | " + " | ".join(str(s) for s in shown) + " |")
        lines.append("|---|" + "---:|" * len(shown))
        for a, rs in by.items():
            lines.append(f"| {a} | " + " | ".join(
                f"{rs[s]['busbw_gbps']:.2f} ({rs[s]['p50_us']:.0f})" if s in rs else "" for s in shown) + " |")
        lines.append("")


def main():
    out = Path(sys.argv[1])
    raw = out / "raw"
    lines = ["# GPU measurements (scripts/measure_gpu.sh)\n"]
    kernel_section(raw, lines)
    sweep_section(raw, lines)
    (out / "SUMMARY.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
