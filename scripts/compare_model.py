#!/usr/bin/env python3
"""Compares a validate_model.sh run's predictions with its measurements.

Writes DIR/errors.csv (one row per interconnect x collective x algorithm x size:
predicted_us, the measured median p50_us and mean, predicted/measured, the per-round
spread), DIR/SUMMARY.md and DIR/predicted_vs_measured.png.

Measured is each row's p50_us (the median of every timed call of every round; a call's
time is the slowest rank's). The relative error is (predicted - measured) / measured.
The fastest algorithm per (interconnect, collective, size) is decided by p50_us among
the reference algorithms (the model predicts schedules, not the MPI library's own);
a point counts for the recommendation target when the measured best and runner-up's
per-round means do not overlap (the gap exceeds the run-to-run spread).

Usage: compare_model.py DIR LABEL...
       compare_model.py --scale DIR   (model_at_scale.sh's SUMMARY.md)
"""
import csv
import json
import os
import statistics
import sys

KIB = 1024
TARGET_LARGE, TARGET_SMALL, TARGET_PICK = 0.10, 0.25, 0.90
COLLECTIVES = ["allreduce", "broadcast", "reduce"]


def size(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", KIB)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b} B"


def rows_of(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)["rows"]


def percentile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def load(raw, labels):
    points = []
    for label in labels:
        for coll in COLLECTIVES:
            predicted = {(r["algorithm"], r["bytes"]): r for r in rows_of(f"{raw}/{label}-{coll}-predicted.json")}
            for part in ("small", "large"):
                for m in rows_of(f"{raw}/{label}-{coll}-{part}.json"):
                    p = predicted.get((m["algorithm"], m["bytes"]))
                    rounds = m.get("round_mean_us") or [m["avg_us"]]
                    point = {"interconnect": label, "collective": coll, "algorithm": m["algorithm"],
                             "bytes": m["bytes"], "ranks": m["ranks"], "measured_p50_us": m["p50_us"],
                             "measured_avg_us": m["avg_us"], "round_min_us": min(rounds), "round_max_us": max(rounds),
                             "errors": m["errors"], "predicted_us": None, "method": ""}
                    if p:
                        point["predicted_us"] = p["predicted_us"]
                        point["method"] = p["method"]
                        point["ratio"] = p["predicted_us"] / m["p50_us"]
                        point["rel_error"] = point["ratio"] - 1
                    points.append(point)
    return points


def write_errors(path, points):
    fields = ["interconnect", "collective", "algorithm", "ranks", "bytes", "predicted_us", "measured_p50_us",
              "measured_avg_us", "ratio", "rel_error", "round_min_us", "round_max_us", "method", "errors"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for p in points:
            if p["predicted_us"] is not None:
                w.writerow(p)


def error_section(points, labels):
    out = ["## Prediction error", "",
           f"|predicted − measured| / measured over every reference algorithm of {', '.join(COLLECTIVES)}, "
           "per interconnect. Targets: median ≤ 10% from 64 KiB, ≤ 25% below.", "",
           "| interconnect | sizes | points | median | 90th pct | target | met |", "|---|---|---:|---:|---:|---:|---|"]
    for label in labels:
        for name, test, target in (("≥ 64 KiB", lambda b: b >= 64 * KIB, TARGET_LARGE),
                                   ("< 64 KiB", lambda b: b < 64 * KIB, TARGET_SMALL)):
            errs = [abs(p["rel_error"]) for p in points
                    if p["interconnect"] == label and p["predicted_us"] is not None and test(p["bytes"])]
            if not errs:
                continue
            med = statistics.median(errs)
            out.append(f"| {label} | {name} | {len(errs)} | {100 * med:.1f}% | {100 * percentile(errs, 0.9):.1f}% | "
                       f"{100 * target:.0f}% | {'yes' if med <= target else '**no**'} |")
    out += ["", "Per collective and algorithm (median |error| over sizes from 64 KiB, signed median in brackets):", "",
            "| interconnect | collective | " + " | ".join(["algorithm"] * 1) + " | median | signed |",
            "|---|---|---|---:|---:|"]
    for label in labels:
        for coll in COLLECTIVES:
            algos = sorted({p["algorithm"] for p in points if p["interconnect"] == label and p["collective"] == coll
                            and p["predicted_us"] is not None})
            for a in algos:
                errs = [p["rel_error"] for p in points if p["interconnect"] == label and p["collective"] == coll
                        and p["algorithm"] == a and p["predicted_us"] is not None and p["bytes"] >= 64 * KIB]
                if errs:
                    out.append(f"| {label} | {coll} | {a} | {100 * statistics.median(abs(e) for e in errs):.1f}% | "
                               f"{100 * statistics.median(errs):+.1f}% |")
    return out


def pick_section(points, labels):
    out = ["## Recommendation", "",
           "Predicted fastest against measured fastest (reference algorithms, by p50). *Decisive*: the measured "
           "best and runner-up's per-round means do not overlap. Target: right at ≥ 90% of decisive points.", "",
           "| interconnect | collective | size | predicted best | measured best | measured gap | decisive | right |",
           "|---|---|---|---|---|---:|---|---|"]
    decisive = right = 0
    tally = {}  # (interconnect, gap at least 5%) -> [decisive, right]
    for label in labels:
        for coll in COLLECTIVES:
            for b in sorted({p["bytes"] for p in points if p["interconnect"] == label and p["collective"] == coll}):
                at = [p for p in points if p["interconnect"] == label and p["collective"] == coll and p["bytes"] == b
                      and p["predicted_us"] is not None]
                if len(at) < 2:
                    continue
                by_meas = sorted(at, key=lambda p: p["measured_p50_us"])
                by_pred = sorted(at, key=lambda p: p["predicted_us"])
                best, second = by_meas[0], by_meas[1]
                is_decisive = best["round_max_us"] < second["round_min_us"]
                # Predicted ties (same schedule cost) count as right if the measured best is among them.
                tied = [p["algorithm"] for p in by_pred if p["predicted_us"] <= by_pred[0]["predicted_us"] * (1 + 1e-9)]
                ok = best["algorithm"] in tied
                decisive += is_decisive
                right += is_decisive and ok
                if is_decisive:
                    t = tally.setdefault((label, second["measured_p50_us"] / best["measured_p50_us"] >= 1.05), [0, 0])
                    t[0] += 1
                    t[1] += ok
                out.append(f"| {label} | {coll} | {size(b)} | {' = '.join(tied)} | {best['algorithm']} | "
                           f"×{second['measured_p50_us'] / best['measured_p50_us']:.3f} | {'yes' if is_decisive else 'no'} | "
                           f"{'yes' if ok else '**no**'} |")
    share = right / decisive if decisive else float("nan")
    out[2] += f" **Right at {right} of {decisive} decisive points ({100 * share:.0f}%): " \
              f"{'met' if decisive and share >= TARGET_PICK else 'not met'}.**"
    breakdown = ["", "Right / decisive per interconnect, by the measured gap between the best two:", "",
                 "| interconnect | gap < 5% | gap ≥ 5% |", "|---|---:|---:|"]
    for label in labels:
        cells = [f"{tally.get((label, wide), [0, 0])[1]} / {tally.get((label, wide), [0, 0])[0]}" for wide in (False, True)]
        breakdown.append(f"| {label} | {cells[0]} | {cells[1]} |")
    return out[:3] + breakdown + [""] + out[3:]


def scale_section(raw):
    meta = json.load(open(f"{raw}/scale-allreduce-steps.json"))["metadata"]
    cpu = "?"
    if os.path.exists(f"{raw}/machine.txt"):
        cpu = next((l.split(":", 1)[1].strip() for l in open(f"{raw}/machine.txt") if "Model name:" in l), "?")
    out = ["# Predictions at 65,536 ranks", "",
           "Every algorithm predicted at 65,536 ranks, 8 per host, on the described cluster in raw/cluster-8x8192.json, "
           f"in both executor orders; seconds each prediction took on this machine (one core of an {cpu}, "
           f"raw/machine.txt; collbench {meta.get('git_revision', '?')}). Target: under 1 s per (algorithm, size).", "",
           "| order | collective | algorithm | size | method | symmetry | seconds | under 1 s |",
           "|---|---|---|---|---|---|---:|---|"]
    for order in ("steps", "dataflow"):
        for coll in COLLECTIVES:
            rows = rows_of(f"{raw}/scale-{coll}-{order}.json")
            for a in dict.fromkeys(r["algorithm"] for r in rows):
                for r in (r for r in rows if r["algorithm"] == a):
                    out.append(f"| {order} | {coll} | {a} | {size(r['bytes'])} | {r['method']} | "
                               f"{r.get('symmetry') or '–'} | {r['predict_seconds']:.3f} | "
                               f"{'yes' if r['predict_seconds'] < 1 else '**no**'} |")
            err = f"{raw}/scale-{coll}-{order}.stderr"
            if os.path.exists(err):
                for line in open(err):
                    if "cannot predict" in line:
                        out.append(f"| {order} | {coll} | not predicted | | | | | **no**: "
                                   f"{line.strip().removeprefix('collbench: ')} |")
    return out


def plot(path, points, labels):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(labels), figsize=(4.2 * len(labels), 4.4), squeeze=False)
    for ax, label in zip(axes[0], labels):
        for coll, marker in zip(COLLECTIVES, "os^"):
            mine = [p for p in points if p["interconnect"] == label and p["collective"] == coll and p["predicted_us"]]
            ax.scatter([p["measured_p50_us"] for p in mine], [p["predicted_us"] for p in mine], s=10, marker=marker,
                       label=coll, alpha=0.7)
        lo = min((p["measured_p50_us"] for p in points if p["interconnect"] == label), default=1)
        hi = max((p["measured_p50_us"] for p in points if p["interconnect"] == label), default=10)
        xs = [lo / 2, hi * 2]
        ax.plot(xs, xs, "k-", lw=0.8)
        for f, style in ((1.1, "k--"), (1.25, "k:")):
            ax.plot(xs, [x * f for x in xs], style, lw=0.6)
            ax.plot(xs, [x / f for x in xs], style, lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(label)
        ax.set_xlabel("measured p50 (µs)")
        ax.set_ylabel("predicted (µs)")
        ax.legend(fontsize=7)
    fig.suptitle("Cost model: predicted against measured (lines: equal, ±10%, ±25%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def drift_section(raw, labels):
    """The p2p medians after the sweep against before, per interconnect and test."""
    out = ["## Drift", "",
           "p2p medians measured again after the sweep, over the medians the model was fitted to (same sizes; "
           "1.00 = unchanged). The model cannot be closer to the sweep than the links stayed to themselves.", "",
           "| interconnect | test | link | < 64 KiB: median (range) | ≥ 64 KiB: median (range) |", "|---|---|---|---|---|"]
    for label in labels:
        before = {(r["test"], r["link"], r["bytes"]): r["p50_us"] for r in rows_of(f"{raw}/{label}-p2p.json")
                  if r.get("kind") == "measured"}
        after = [r for r in rows_of(f"{raw}/{label}-p2p-after.json") if r.get("kind") == "measured"]
        for test, link in dict.fromkeys((r["test"], r["link"]) for r in after):
            cells = []
            for small in (True, False):
                ratios = [r["p50_us"] / before[(test, link, r["bytes"])] for r in after
                          if r["test"] == test and r["link"] == link and (r["bytes"] < 64 * KIB) == small
                          and (test, link, r["bytes"]) in before]
                cells.append(f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "–")
            out.append(f"| {label} | {test} | {link} | {cells[0]} | {cells[1]} |")
    return out


def header(raw, labels):
    out = ["# Cost model validation", ""]
    for label in labels:
        model = f"{raw}/{label}-model.json"
        if not os.path.exists(model):
            continue
        m = json.load(open(model))
        run = rows_of(f"{raw}/{label}-allreduce-small.json")
        meta = json.load(open(f"{raw}/{label}-allreduce-small.json"))["metadata"] if run else {}
        desc = []
        for key in ("intra_host", "inter_host"):
            r = m[key]["ranges"]
            x = m[key].get("exchange", {}).get("ranges", [{}])[-1].get("beta_gbps")
            desc.append(f"{key} {len(r)} ranges, α {r[0]['alpha_us']:.2f} µs, largest {r[-1]['beta_gbps'] or 0:.3g} GB/s"
                        + (f" (both ways {x:.3g})" if x else ""))
        out.append(f"- **{label}**: {run[0]['ranks'] if run else '?'} ranks, {m['ranks_per_node']} per host; "
                   f"{'; '.join(desc)}; collbench {meta.get('git_revision', '?')}")
    return out + [""]


def main(argv):
    if len(argv) == 3 and argv[1] == "--scale":
        with open(os.path.join(argv[2], "SUMMARY.md"), "w") as f:
            f.write("\n".join(scale_section(os.path.join(argv[2], "raw"))) + "\n")
        return 0
    if len(argv) < 3:
        sys.exit(__doc__)
    out, labels = argv[1], argv[2:]
    raw = os.path.join(out, "raw")
    points = load(raw, labels)
    if not points:
        sys.exit(f"compare_model: no measured rows under {raw}")
    write_errors(os.path.join(out, "errors.csv"), points)
    wrong = sum(1 for p in points if (p["errors"] or 0) > 0)
    lines = header(raw, labels) + [f"Measured points: {len(points)}, with wrong results: {wrong}.", ""]
    lines += error_section(points, labels) + [""] + pick_section(points, labels) + [""] + drift_section(raw, labels)
    with open(os.path.join(out, "SUMMARY.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        plot(os.path.join(out, "predicted_vs_measured.png"), points, labels)
    except ImportError as e:
        print(f"compare_model: no plot ({e})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
