#!/usr/bin/env python3
"""Markdown tables of `collbench replay` results: per workload, each configuration's
mean step, its spread over steps (min..max), communication, exposed communication and
efficiency, the fastest first, with its ratio to the fastest.

Usage: summarize_replay.py IN.csv [IN2.csv ...]
"""
import csv
import json
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        rows = [r for r in csv.DictReader(open(path, newline="")) if r["step"] == "mean"]
        if not rows:
            continue
        meta = json.load(open(os.path.splitext(path)[0] + ".json"))["metadata"]
        rows.sort(key=lambda r: float(r["step_ms"]))
        best = float(rows[0]["step_ms"])
        w = meta["workload"]
        print(f"## {w['name']}: {w['description']}\n")
        print(f"{w['parameters']:,} parameters in {w['tensors']} tensors ({w['sparse_tensors']} sparse); "
              f"{meta['ranks']} ranks; compute {meta['compute']['total_ms']:.1f} ms per step "
              f"({meta['compute']['source']}); {meta['options'].get('rounds', 1)} interleaved rounds x "
              f"{meta['options']['steps']} timed steps; "
              f"git {meta.get('git_revision', '?')}.\n")
        print("| configuration | exchanges | step ms (min..max) | comm ms | exposed ms | efficiency | vs fastest | errors |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            name = f"{r['algorithm']} / {r['bucketing']}"
            if r["sparse_strategy"] != "none":
                name += f" / {r['sparse_strategy']}"
                if r["servers"] != "0":
                    name += f" ({r['workers']} worker, {r['servers']} server)"
            print(f"| {name} | {r['exchanges']} | {float(r['step_ms']):.1f} ({float(r['step_ms_min']):.1f}.."
                  f"{float(r['step_ms_max']):.1f}) | {float(r['comm_ms']):.1f} | {float(r['exposed_ms']):.1f} | "
                  f"{float(r['efficiency']):.3f} | {float(r['step_ms']) / best:.2f} | {r['errors']} |")
        print()


if __name__ == "__main__":
    main()
