#!/usr/bin/env python3
"""Compares a validate_model.sh run's predictions with its measurements.

Every layout ran in rounds: links probed, then one round of the sweep, model fitted and
every algorithm predicted. A point (layout x collective x algorithm x size) is measured
once per round (p50 of that round's timed calls; a call's time is the slowest rank's) and
predicted per round from the links probed just before it (the probe launch) and from
round 1's (fit once); where the sweep's launches probed their own links (run
--probe-links, files ...-run-PART-links-predicted.json), also from those (same launch),
and the layout is judged by them. A point's error is the median over rounds of
predicted / measured - 1; "same run" is the judged one.

Writes DIR/errors.csv (one row per point), DIR/SUMMARY.md (errors against the targets,
same-run and fit-once; the error of every pair's ratio; the predicted against the
measured fastest; the links' drift between rounds) and DIR/predicted_vs_measured.png.
The fastest algorithm is decided among the reference algorithms (the model predicts
schedules, not the MPI library's own) by the median over rounds; a point is decisive
when the best and runner-up's per-round p50 ranges do not overlap.

Usage: compare_model.py DIR
       compare_model.py --scale DIR   (model_at_scale.sh's SUMMARY.md)
"""
import csv
import glob
import itertools
import json
import os
import re
import statistics
import sys

KIB = 1024
LARGE = 64 * KIB
TARGET_LARGE, TARGET_LARGE_P90, TARGET_SMALL, TARGET_RATIO, TARGET_PICK = 0.10, 0.25, 0.20, 0.05, 0.90
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


def pct(x):
    return f"{100 * x:.1f}%"


def layouts_of(raw):
    """layouts.txt as written by validate_model.sh, in its order."""
    if not os.path.exists(f"{raw}/layouts.txt"):
        sys.exit(f"compare_model: no {raw}/layouts.txt: not a run of this validate_model.sh")
    with open(f"{raw}/layouts.txt") as f:
        header, *lines = [l.split() for l in f if l.strip()]
    return [dict(zip(header, l), hosts=int(l[1]), ranks_per_host=int(l[2]), from_bytes=int(l[4]),
                 judged=l[6] == "yes") for l in lines]


def rounds_of(raw, label):
    return sorted(int(m.group(1)) for f in glob.glob(f"{raw}/{label}-r*-p2p.json")
                  if (m := re.search(r"-r(\d+)-p2p\.json$", f)))


def costs_of(raw):
    """The modelled costs validate_model.sh also left out once (files ...-predicted-no-COST.json)."""
    return sorted({m.group(1) for f in glob.glob(f"{raw}/*-predicted-no-*.json")
                   if (m := re.search(r"-predicted-no-([a-z_]+)\.json$", f))})


def round_error(predicted, measured):
    """A point's relative error: the median over rounds of predicted / measured - 1."""
    return statistics.median(p / m - 1 for p, m in zip(predicted, measured))


def by_size_class(points, label):
    """A layout's points from 64 KiB, then below (classes without points left out)."""
    for name, large in (("≥ 64 KiB", True), ("< 64 KiB", False)):
        mine = [p for p in where(points, layout=label) if (p["bytes"] >= LARGE) == large]
        if mine:
            yield name, large, mine


def predicted(path):
    return {(r["algorithm"], r["bytes"]): r["predicted_us"] for r in rows_of(path)}


def load(raw, layouts):
    """Points with per-round measured p50, same-launch / probe-launch / fit-once predictions,
    and the probe launch's predictions without each added cost."""
    points = {}
    costs = costs_of(raw)
    for lay in layouts:
        label = lay["label"]
        rounds = rounds_of(raw, label)
        for coll in COLLECTIVES:
            once = predicted(f"{raw}/{label}-r{rounds[0]}-{coll}-predicted.json") if rounds else {}
            for rnd in rounds:
                same = predicted(f"{raw}/{label}-r{rnd}-{coll}-predicted.json")
                without = {c: predicted(f"{raw}/{label}-r{rnd}-{coll}-predicted-no-{c}.json") for c in costs}
                for path in sorted(glob.glob(f"{raw}/{label}-r{rnd}-{coll}-run-*.json")):
                    if "-links" in os.path.basename(path):
                        continue  # the launch's own link probes, their fit and predictions
                    launch = predicted(path.removesuffix(".json") + "-links-predicted.json")
                    for m in rows_of(path):
                        key = (label, coll, m["algorithm"], m["bytes"])
                        p = points.setdefault(key, {
                            "layout": label, "collective": coll, "algorithm": m["algorithm"], "bytes": m["bytes"],
                            "ranks": m["ranks"], "judged": lay["judged"], "measured": [], "probe": [], "once": [],
                            "launch": [], "without": {c: [] for c in costs}, "errors": 0})
                        p["errors"] += m["errors"] or 0
                        k = (m["algorithm"], m["bytes"])
                        if k in same and k in once:
                            p["measured"].append(m["p50_us"])
                            p["probe"].append(same[k])
                            p["once"].append(once[k])
                            if k in launch:
                                p["launch"].append(launch[k])
                            for c in costs:
                                if k in without[c]:
                                    p["without"][c].append(without[c][k])
    out = []
    for p in points.values():
        if not p["measured"]:
            continue  # the MPI library's own algorithms: nothing predicted
        # Judged by the links of the sweep's own launch where every round has them.
        p["links_from"] = "same launch" if len(p["launch"]) == len(p["measured"]) else "probe launch"
        p["same"] = p["launch"] if p["links_from"] == "same launch" else p["probe"]
        p["measured_us"] = statistics.median(p["measured"])
        p["predicted_us"] = statistics.median(p["same"])
        p["probe_us"] = statistics.median(p["probe"])
        p["probe_error"] = round_error(p["probe"], p["measured"])
        p["once_us"] = p["once"][0]
        p["error"] = round_error(p["same"], p["measured"])
        p["once_error"] = round_error(p["once"], p["measured"])
        p["round_min_us"], p["round_max_us"] = min(p["measured"]), max(p["measured"])
        p["without_error"] = {c: round_error(ws, p["measured"])
                              for c, ws in p["without"].items() if len(ws) == len(p["measured"])}
        out.append(p)
    return out


def write_errors(path, points):
    fields = ["layout", "collective", "algorithm", "ranks", "bytes", "judged", "rounds", "measured_us", "links_from",
              "predicted_us", "error", "probe_us", "probe_error", "once_us", "once_error", "round_min_us",
              "round_max_us", "errors"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for p in points:
            w.writerow(dict(p, rounds=len(p["measured"])))


def where(points, **kw):
    return [p for p in points if all(p[k] == v for k, v in kw.items())]


def error_section(points, layouts):
    out = ["## Prediction error", "",
           f"|predicted / measured − 1| over every reference algorithm of {', '.join(COLLECTIVES)}: a point's error is "
           "the median over rounds. *Same run*, judged: each launch predicted from the links probed in that launch "
           "(*same launch*, run --probe-links) where the layout did so, else from the probe launch just before it; "
           "*probe launch*: always the latter; *fit once*: from round 1's probe launch. Targets (same run, judged "
           "layouts): median ≤ 10% from 64 KiB with the 90th percentile ≤ 25%, median ≤ 20% below.", "",
           "| layout | sizes | points | links from | same run: median | 90th pct | probe launch: median | 90th pct "
           "| fit once: median | 90th pct | met |",
           "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for lay in layouts:
        for name, large, mine in by_size_class(points, lay["label"]):
            same = [abs(p["error"]) for p in mine]
            probe = [abs(p["probe_error"]) for p in mine]
            once = [abs(p["once_error"]) for p in mine]
            med, p90 = statistics.median(same), percentile(same, 0.9)
            ok = med <= TARGET_LARGE and p90 <= TARGET_LARGE_P90 if large else med <= TARGET_SMALL
            verdict = ("yes" if ok else "**no**") if lay["judged"] else "not judged"
            links = " and ".join(sorted({p["links_from"] for p in mine}))
            out.append(f"| {lay['label']} | {name} | {len(mine)} | {links} | {pct(med)} | {pct(p90)} | "
                       f"{pct(statistics.median(probe))} | {pct(percentile(probe, 0.9))} | "
                       f"{pct(statistics.median(once))} | {pct(percentile(once, 0.9))} | {verdict} |")
    out += ["", "Per collective and algorithm, from 64 KiB (median |error| over sizes; signed median):", "",
            "| layout | collective | algorithm | same run | signed | probe launch signed | fit once signed |",
            "|---|---|---|---:|---:|---:|---:|"]
    for lay in layouts:
        for coll in COLLECTIVES:
            mine = [p for p in where(points, layout=lay["label"], collective=coll) if p["bytes"] >= LARGE]
            for a in sorted({p["algorithm"] for p in mine}):
                e = [p["error"] for p in mine if p["algorithm"] == a]
                s = [p["probe_error"] for p in mine if p["algorithm"] == a]
                o = [p["once_error"] for p in mine if p["algorithm"] == a]
                out.append(f"| {lay['label']} | {coll} | {a} | {pct(statistics.median(abs(x) for x in e))} | "
                           f"{100 * statistics.median(e):+.1f}% | {100 * statistics.median(s):+.1f}% | "
                           f"{100 * statistics.median(o):+.1f}% |")
    return out


def cost_section(points, layouts):
    """Each added cost's effect: same-run errors with every cost, and without that one."""
    costs = sorted({c for p in points for c in p["without_error"]})
    if not costs:
        return []
    out = ["## Effect of each added cost", "",
           "Probe launch's median |error| (90th percentile) with every modelled cost, and with the model file's "
           "cost left out (validate_model.sh predicts both from the same fit). *written*: a message of bytes its "
           "sender wrote earlier in the call, priced from p2p's written test where model fit finds it 10% or more "
           "from the exchange (elsewhere the link has no written cost, this column equals the first, and the "
           "two tests' calls are pooled into the exchange's means). *rewrite*: a reduction or copy storing over "
           "bytes the rank sends to a peer on its host, priced from p2p's rewrite test (the sum into the bytes "
           "just sent) where the link has a written cost (without: as any reduction or copy). *shared_ports*: messages a rank or host "
           "has in flight at once share its port's bandwidth (without: they cross it one after another). "
           "*exchange_means*: exchange and written costs fitted to the probe's means (without: its medians); "
           "on a FIFO link an exchange either overlaps both ways or takes turns, and a collective pays "
           "exchanges step after step (results/exchange-modes/). *receiver_copies*: the receiving core copies "
           "each message (fitted from p2p's busy test), so the message waits for it and its reductions wait for "
           "the message (without: transfers and reductions overlap). *pair_shares*: from the size p2p's pair test "
           "finds it, one pair's messages in flight at once share its bandwidth (UCX over TCP interleaves them), "
           "and ranks post as the executor does, when the wait they are in returns (without: a pair's messages "
           "go one after another, and ranks post as soon as their data allows). *stream*: the part of a "
           "message's alpha that p2p's bandwidth test (a window of messages in flight) shows it cannot overlap "
           "with the next holds its ports, as LogGP's gap (without: messages in flight overlap their whole "
           "alpha).", "",
           "| layout | sizes | with all | " + " | ".join(f"without {c}" for c in costs) + " |",
           "|---|---|---:|" + "---:|" * len(costs)]
    for lay in layouts:
        for name, _, mine in by_size_class(points, lay["label"]):
            cells = []
            for errs in [[abs(p["probe_error"]) for p in mine]] + \
                        [[abs(p["without_error"][c]) for p in mine if c in p["without_error"]] for c in costs]:
                cells.append(f"{pct(statistics.median(errs))} ({pct(percentile(errs, 0.9))})" if errs else "–")
            out.append(f"| {lay['label']} | {name} | " + " | ".join(cells) + " |")
    return out


def pairs_of(points, label, colls=COLLECTIVES):
    """Every pair of algorithms of a collective measured at one size, with how many rounds both have."""
    for c in colls:
        for b in sorted({p["bytes"] for p in where(points, layout=label, collective=c)}):
            for x, y in itertools.combinations(where(points, layout=label, collective=c, bytes=b), 2):
                yield x, y, min(len(x["measured"]), len(y["measured"]))


def ratio_errors(points, label, coll=None, key="same"):
    """Per pair of algorithms at one size: median over rounds of |predicted ratio / measured ratio - 1|
    (predictions: `key`'s)."""
    return [statistics.median(abs((x[key][i] / y[key][i]) / (x["measured"][i] / y["measured"][i]) - 1)
                              for i in range(n))
            for x, y, n in pairs_of(points, label, [coll] if coll else COLLECTIVES)]


def measured_noise(points, label):
    """Per pair of algorithms the model prices alike at one size (the same predicted time every
    round: on 2 ranks linear and binomial broadcast are one message): the median over rounds
    of |measured ratio - 1|, which only the measurement contributes."""
    return [statistics.median(abs(x["measured"][i] / y["measured"][i] - 1) for i in range(n))
            for x, y, n in pairs_of(points, label) if n and all(x["same"][i] == y["same"][i] for i in range(n))]


def ratio_section(points, layouts):
    out = ["## Ratios between algorithms", "",
           "For every pair of algorithms of a collective at every size, |predicted ratio / measured ratio − 1| "
           "(same round; median over rounds): what a recommendation depends on. Target: median ≤ 5% per judged layout. "
           "Same run (judged) and, beside it, from the probe launch. *Measurement alone*: the pairs the model prices "
           "alike (the same time every round), where the error is the measured ratio's distance from 1: how much the "
           "measurement itself adds (median, and how many such pairs).",
           "", "| layout | pairs | median | 90th pct | " + " | ".join(f"{c} median" for c in COLLECTIVES) +
           " | probe launch: median | measurement alone | met |",
           "|---|---:|---:|---:|" + "---:|" * len(COLLECTIVES) + "---:|---:|---|"]
    for lay in layouts:
        errs = ratio_errors(points, lay["label"])
        if not errs:
            continue
        med = statistics.median(errs)
        per = [ratio_errors(points, lay["label"], c) for c in COLLECTIVES]
        verdict = ("yes" if med <= TARGET_RATIO else "**no**") if lay["judged"] else "not judged"
        probe = statistics.median(ratio_errors(points, lay["label"], key="probe"))
        noise = measured_noise(points, lay["label"])
        alone = f"{pct(statistics.median(noise))} ({len(noise)})" if noise else "–"
        out.append(f"| {lay['label']} | {len(errs)} | {pct(med)} | {pct(percentile(errs, 0.9))} | "
                   + " | ".join(pct(statistics.median(e)) if e else "–" for e in per)
                   + f" | {pct(probe)} | {alone} | {verdict} |")
    return out


def pick_section(points, layouts):
    out = ["## Recommendation", "",
           "Predicted fastest (same run, median over rounds) against measured fastest (median over rounds of each "
           "round's p50). *Decisive*: the best and runner-up's per-round p50 ranges do not overlap. Target: right at "
           "≥ 90% of decisive points per judged layout.", "",
           "| layout | decisive | right | share | gap < 5%: right / decisive | met |", "|---|---:|---:|---:|---:|---|"]
    detail = ["", "| layout | collective | size | predicted best | measured best | measured gap | decisive | right |",
              "|---|---|---|---|---|---:|---|---|"]
    for lay in layouts:
        label = lay["label"]
        decisive = right = close = close_right = 0
        for coll in COLLECTIVES:
            for b in sorted({p["bytes"] for p in where(points, layout=label, collective=coll)}):
                at = where(points, layout=label, collective=coll, bytes=b)
                if len(at) < 2:
                    continue
                by_meas = sorted(at, key=lambda p: p["measured_us"])
                by_pred = sorted(at, key=lambda p: p["predicted_us"])
                best, second = by_meas[0], by_meas[1]
                is_decisive = best["round_max_us"] < second["round_min_us"]
                # Predicted ties (same schedule cost) count as right if the measured best is among them.
                tied = [p["algorithm"] for p in by_pred if p["predicted_us"] <= by_pred[0]["predicted_us"] * (1 + 1e-9)]
                ok = best["algorithm"] in tied
                gap = second["measured_us"] / best["measured_us"]
                if is_decisive:
                    decisive += 1
                    right += ok
                    if gap < 1.05:
                        close += 1
                        close_right += ok
                detail.append(f"| {label} | {coll} | {size(b)} | {' = '.join(tied)} | {best['algorithm']} | ×{gap:.3f} | "
                              f"{'yes' if is_decisive else 'no'} | {'yes' if ok else '**no**'} |")
        share = f"{100 * right / decisive:.0f}%" if decisive else "–"
        verdict = ("yes" if decisive and right >= TARGET_PICK * decisive else "**no**") if lay["judged"] else "not judged"
        out.append(f"| {label} | {decisive} | {right} | {share} | {close_right} / {close} | {verdict} |")
    return out + detail


def drift_section(raw, layouts):
    """Each round's p2p medians over round 1's, per layout, test and link."""
    out = ["## Drift", "",
           "Each round's link probe over round 1's (p2p medians at the same sizes; 1.00 = unchanged): how far the "
           "links moved during the run, which the fit-once column carries and the same-run column cancels.", "",
           "| layout | test | link | round | < 64 KiB: median (range) | ≥ 64 KiB: median (range) |",
           "|---|---|---|---:|---|---|"]
    for lay in layouts:
        label = lay["label"]
        rounds = rounds_of(raw, label)
        if not rounds:
            continue
        first = {(r["test"], r["link"], r["bytes"]): r["p50_us"] for r in rows_of(f"{raw}/{label}-r{rounds[0]}-p2p.json")
                 if r.get("kind") == "measured"}
        for rnd in rounds[1:]:
            later = [r for r in rows_of(f"{raw}/{label}-r{rnd}-p2p.json") if r.get("kind") == "measured"]
            for test, link in dict.fromkeys((r["test"], r["link"]) for r in later):
                cells = []
                for small in (True, False):
                    ratios = [r["p50_us"] / first[(test, link, r["bytes"])] for r in later
                              if r["test"] == test and r["link"] == link and (r["bytes"] < LARGE) == small
                              and (test, link, r["bytes"]) in first]
                    cells.append(f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "–")
                out.append(f"| {label} | {test} | {link} | {rnd} | {cells[0]} | {cells[1]} |")
    return out


def launch_section(raw, layouts):
    """Where sweep launches probed their own links: each launch's p2p medians over its round's
    probe launch at the same sizes from 64 KiB (1.00 = the two launches met the same links)."""
    out = ["## Links in the sweep's own launch", "",
           "Where the sweep's launches probed their own links (run --probe-links), each launch's p2p medians over "
           "those of its round's probe launch, at the same sizes from 64 KiB (1.00: both launches met the same "
           "links): how far apart two launches tens of seconds apart are.", "",
           "| layout | round | launch | latency | exchange | written | busy |", "|---|---:|---|---:|---:|---:|---:|"]
    found = False
    for lay in layouts:
        label = lay["label"]
        for rnd in rounds_of(raw, label):
            probe = {(r["test"], r["bytes"]): r["p50_us"] for r in rows_of(f"{raw}/{label}-r{rnd}-p2p.json")
                     if r.get("kind") == "measured"}
            for path in sorted(glob.glob(f"{raw}/{label}-r{rnd}-*-run-*-links.json")):
                rows = [r for r in rows_of(path) if r.get("kind") == "measured" and r["bytes"] >= LARGE]
                cells = []
                for test in ("latency", "exchange", "written", "busy"):
                    ratios = [r["p50_us"] / probe[(test, r["bytes"])] for r in rows
                              if r["test"] == test and (test, r["bytes"]) in probe]
                    cells.append(f"{statistics.median(ratios):.2f}" if ratios else "–")
                launch = os.path.basename(path).removeprefix(f"{label}-r{rnd}-").removesuffix("-links.json")
                out.append(f"| {label} | {rnd} | {launch} | " + " | ".join(cells) + " |")
                found = True
    return out if found else []


def header(raw, layouts):
    cpu = "?"
    if os.path.exists(f"{raw}/machine.txt"):
        cpu = next((l.split(":", 1)[1].strip() for l in open(f"{raw}/machine.txt") if "Model name:" in l), "?")
    out = ["# Cost model validation", "", f"On one {cpu} with 2 cores (raw/machine.txt). Layouts (round 1's fit):", ""]
    for lay in layouts:
        label = lay["label"]
        rounds = rounds_of(raw, label)
        model = f"{raw}/{label}-r{rounds[0]}-model.json" if rounds else ""
        if not os.path.exists(model):
            continue
        m = json.load(open(model))
        runs = sorted(f for f in glob.glob(f"{raw}/{label}-r{rounds[0]}-*-run-*.json") if "-links" not in f)
        meta = json.load(open(runs[0]))["metadata"] if runs else {}
        desc = []
        for key in ("intra_host", "inter_host") if lay["ranks_per_host"] > 1 and lay["hosts"] > 1 else \
                ("intra_host",) if lay["hosts"] == 1 else ("inter_host",):
            r = m[key]["ranges"]
            x = m[key].get("exchange", {}).get("ranges", [{}])[-1].get("beta_gbps")
            desc.append(f"{key} α {r[0]['alpha_us']:.2f} µs, largest {r[-1]['beta_gbps'] or 0:.3g} GB/s"
                        + (f" (both ways {x:.3g})" if x else ""))
        judged = "judged" if lay["judged"] else "reported, not judged (more ranks than cores, CPU-bound)"
        if lay.get("env", "-") != "-":
            desc.insert(0, f"every launch with {lay['env']}")
        out.append(f"- **{label}**: {lay['hosts']} host(s) × {lay['ranks_per_host']}, {size(lay['from_bytes'])}–"
                   f"{size(int(lay['to_bytes']))}, {len(rounds)} rounds, {judged}; {'; '.join(desc)}; "
                   f"collbench {meta.get('git_revision', '?')}")
    return out + [""]


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
            for line, _, _ in refusals(f"{raw}/scale-{coll}-{order}.stderr"):
                out.append(f"| {order} | {coll} | not predicted | | | | | **no**: {line} |")
    return out + best_section(raw)


def refusals(stderr):
    """model predict/best's refusals in a stderr file: (the message, algorithm, bytes)."""
    if not os.path.exists(stderr):
        return []
    out = []
    for line in open(stderr):
        m = re.search(r"cannot predict (\S+) at (\d+) bytes", line)
        if m:
            out.append((line.strip().removeprefix("collbench: "), m.group(1), int(m.group(2))))
    return out


def best_section(raw):
    """model best from 1 KiB to 1 GiB as a user asks it: per rank count and collective, the
    sizes whose every algorithm was predicted, those refused, and the whole question's time."""
    if not glob.glob(f"{raw}/best-*.json"):
        return []  # a run from before model_at_scale.sh asked it
    out = ["", "## model best at 8,192 and 65,536 ranks", "",
           "`model best -c COLLECTIVE -n RANKS -b 1K -e 1G -f 8` on the same cluster, run's default (dataflow) "
           "order: a size is answered where every algorithm was predicted; refused algorithms are named with "
           "the size; seconds for the whole question (raw/best-*).", "",
           "| ranks | collective | sizes | answered | not predicted | seconds |", "|---:|---|---:|---:|---|---:|"]
    for ranks in (8192, 65536):
        for coll in COLLECTIVES:
            path = f"{raw}/best-{coll}-{ranks}.json"
            if not os.path.exists(path):
                continue
            sizes = {r["bytes"] for r in rows_of(path)}
            refused = {}
            for _, algorithm, b in refusals(f"{raw}/best-{coll}-{ranks}.stderr"):
                refused.setdefault(algorithm, []).append(b)
            missing = {b for bs in refused.values() for b in bs}
            named = "; ".join(f"{a} at {', '.join(size(b) for b in sorted(bs))}" for a, bs in sorted(refused.items()))
            seconds = int(open(f"{raw}/best-{coll}-{ranks}.ms").read()) / 1000
            out.append(f"| {ranks} | {coll} | {len(sizes | missing)} | {len(sizes - missing)} | {named or '–'} | "
                       f"{seconds:.1f} |")
    return out


def plot(path, points, layouts):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [lay["label"] for lay in layouts]
    cols = min(4, len(labels))
    rows = -(-len(labels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4.2 * rows), squeeze=False)
    for ax, label in zip(axes.flat, labels):
        for coll, marker in zip(COLLECTIVES, "os^"):
            mine = [p for p in points if p["layout"] == label and p["collective"] == coll and p["predicted_us"]]
            ax.scatter([p["measured_us"] for p in mine], [p["predicted_us"] for p in mine], s=10, marker=marker,
                       label=coll, alpha=0.7)
        lo = min((p["measured_us"] for p in points if p["layout"] == label), default=1)
        hi = max((p["measured_us"] for p in points if p["layout"] == label), default=10)
        xs = [lo / 2, hi * 2]
        ax.plot(xs, xs, "k-", lw=0.8)
        for f, style in ((1.1, "k--"), (1.25, "k:")):
            ax.plot(xs, [x * f for x in xs], style, lw=0.6)
            ax.plot(xs, [x / f for x in xs], style, lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(label)
        ax.set_xlabel("measured p50, median of rounds (µs)")
        ax.set_ylabel("predicted, same run (µs)")
        ax.legend(fontsize=7)
    for ax in axes.flat[len(labels):]:
        ax.set_visible(False)
    fig.suptitle("Cost model: predicted against measured (lines: equal, ±10%, ±25%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv):
    if len(argv) == 3 and argv[1] == "--scale":
        with open(os.path.join(argv[2], "SUMMARY.md"), "w") as f:
            f.write("\n".join(scale_section(os.path.join(argv[2], "raw"))) + "\n")
        return 0
    if len(argv) != 2:
        sys.exit(__doc__)
    out = argv[1]
    raw = os.path.join(out, "raw")
    layouts = layouts_of(raw)
    points = load(raw, layouts)
    if not points:
        sys.exit(f"compare_model: no measured rows under {raw}")
    write_errors(os.path.join(out, "errors.csv"), points)
    wrong = sum(1 for p in points if p["errors"] > 0)
    lines = header(raw, layouts) + [f"Measured points: {len(points)}, with wrong results: {wrong}.", ""]
    for section in (error_section(points, layouts), cost_section(points, layouts), ratio_section(points, layouts),
                    pick_section(points, layouts), drift_section(raw, layouts), launch_section(raw, layouts)):
        lines += section + [""] if section else []
    with open(os.path.join(out, "SUMMARY.md"), "w") as f:
        f.write("\n".join(lines))
    try:
        plot(os.path.join(out, "predicted_vs_measured.png"), points, layouts)
    except ImportError as e:
        print(f"compare_model: no plot ({e})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
