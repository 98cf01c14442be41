#!/usr/bin/env python3
"""The tuned MPI library against its default and its own best algorithm, from
scripts/tune_library.sh's OUTDIR: per collective and size, each variant's p50 per
evaluation round (evaluate/round-N/parts/*.json), their median over rounds and range.

Targets (issue 34): the tuned library's p50 within 5% of the best forced algorithm at
every size, and never slower than the default beyond the spread (every tuned round slower
than every default round); where the default is 10% or more slower than the best, the
gain is reported. Where the tuned library ran alone and each launch's CPU placement was
recorded (LAUNCH.cpus-{before,after}.txt), the verdicts are also given over the rounds
whose two launches ran alike. Writes the summary (markdown) to stdout and
OUTDIR/comparison.csv.
Usage: summarize_tune.py OUTDIR
"""
import csv
import glob
import json
import math
import os
import re
import statistics
import sys

from summary_text import cpu_placement, handoff

WITHIN = 0.05  # tuned against the best forced algorithm
GAP = 0.10  # a default this much slower than the best: report the gain
SCALED_COLUMNS = ["yardstick", "scaled_vs_best", "scaled_within", "scaled_slower", "default_spread",
                  "default_spread_scaled"]
PLACED_COLUMNS = ["placed_rounds", "placed_best", "placed_vs_best", "placed_within", "placed_slower",
                  "placed_chance_slower"]
# A launch whose CPUs moved between sharing a cache and not is like neither.
STEADY = ("shared a cache", "did not")


def placement_of(json_path):
    """Where tune_library.sh measured whether a launch's CPUs shared a cache before and
    after it: 'shared a cache', 'did not' or 'moved during the launch'; else None."""
    base = json_path[:-len(".json")]
    try:
        return cpu_placement(handoff(base + ".cpus-before.txt"), handoff(base + ".cpus-after.txt"))
    except (OSError, KeyError, ValueError):
        return None


def rows_of(path):
    with open(path) as f:
        doc = json.load(f)
    runs = doc.get("runs") or [doc.get("metadata", {})]
    return doc.get("rows", []), runs


def collect(outdir):
    """{(collective, ranks, bytes): {label: {round: p50}}}, wrong elements, metadata, the
    (point, label)s of forced rows measured in the default's own launch, and each launch's
    CPU placement where recorded: per point, {(point, round, "tuned" or "default"): text}
    (a round's sweep may be split between several launch pairs: scripts/tune_library.sh
    JUDGE_SIZES), and per launch, {"tuned" or "default": [text]}.
    Forced rows measured in the tuned library's own launch (an MPICH run switching its
    algorithms inside the launch) are kept apart, as "tuned:mpi[NAME]": the tuned library
    is judged against them, launch by launch. collbench's own algorithms are "own:NAME"
    (a yardstick run in both launches where the tuned library runs alone)."""
    points, errors, runs, with_default, placements = {}, 0, [], set(), {}
    launch_placements = {"default": [], "tuned": []}
    # A smaller communicator's launches, one per algorithm, sit in round-N/ranks-K/parts.
    for parts in sorted(glob.glob(os.path.join(outdir, "evaluate", "round-*", "parts")) +
                        glob.glob(os.path.join(outdir, "evaluate", "round-*", "ranks-*", "parts"))):
        rnd = int(re.search(r"round-(\d+)", parts).group(1)) - 1
        for path in sorted(glob.glob(os.path.join(parts, "*.json"))):
            rows, meta = rows_of(path)
            runs.extend(meta)
            tuned_launch = any(r["algorithm"] == "mpi[tuned]" for r in rows)
            default_launch = any(r["algorithm"] == "mpi" for r in rows)
            kind, placement = "tuned" if tuned_launch else "default", placement_of(path)
            if placement:
                launch_placements[kind].append(placement)
            for r in rows:
                key = (r["collective"], int(r["ranks"]), int(r["bytes"]))
                if placement:
                    placements[(key, rnd, kind)] = placement
                label = r["algorithm"]
                if label == "nccl":
                    continue
                if label != "mpi" and not label.startswith("mpi["):
                    label = "own:" + label
                errors += max(0, int(r["errors"]))
                if int(r["errors"]) != 0:
                    continue  # a wrong result is no time
                if tuned_launch and label != "mpi[tuned]":
                    label = "tuned:" + label
                if default_launch and label.startswith("mpi["):
                    with_default.add((key, label))
                points.setdefault(key, {}).setdefault(label, {})[rnd] = float(r["p50_us"])
    return points, errors, runs, with_default, placements, launch_placements


def choices(outdir):
    """What the file chose at each measured size, and the algorithm the library's own
    selection runs there where tune knew it ("" otherwise), from tune's lines (tune.txt)."""
    out = {}
    path = os.path.join(outdir, "tune.txt")
    if not os.path.exists(path):
        return out
    line_re = re.compile(r"^(\w+), (\d+) ranks, (\d+) B: default \S+ us(?: \(the library's ([\w-]+)\))?.*? us: "
                         r"(default kept|[\w:=-]+) \(")
    with open(path) as f:
        for line in f:
            m = line_re.match(line)
            if m:
                choice = "default" if m.group(5) == "default kept" else m.group(5)
                out[(m.group(1), int(m.group(2)), int(m.group(3)))] = (choice, m.group(4) or "")
    return out


def best_of(forced):
    """The forced algorithm with the lowest median over rounds (ties to the name)."""
    med = {name: statistics.median(v.values()) for name, v in forced.items()}
    return min(med, key=lambda n: (med[n], n)), med


def ratio(a, b, same_launches):
    """a over b: the median of the rounds' ratios where each round measured both in one
    launch, else (launches of their own) the ratio of the medians."""
    if same_launches and set(a) == set(b):
        return statistics.median(per_round(a, b).values())
    return statistics.median(a.values()) / statistics.median(b.values())


def per_round(a, b):
    """{round: a / b} over the rounds that measured both."""
    return {r: a[r] / b[r] for r in a if r in b}


def paired_difference(a, b):
    """The median over rounds of a - b, both from the same launches."""
    common = [r for r in a if r in b]
    return statistics.median(a[r] - b[r] for r in common) if common else None


def judge(variants, chosen=("", ""), with_default=(), placed=None):
    """One point's verdict from {label: {round: p50}}, the file's (choice, library's own
    algorithm), the labels of forced rows measured in the default's own launches and the
    CPU placement of each round's launches, {round: (default's, tuned's)}; None where a
    variant is missing."""
    default, tuned = variants.get("mpi"), variants.get("mpi[tuned]")
    forced = {k[4:-1]: v for k, v in variants.items() if k.startswith("mpi[") and k != "mpi[tuned]"}
    beside = {k[10:-1]: v for k, v in variants.items() if k.startswith("tuned:mpi[")}
    if not default or not tuned or not (forced or beside):
        return None
    # Against the algorithms of its own launches where it ran beside them.
    best, med = best_of(beside or forced)
    d, t, b = statistics.median(default.values()), statistics.median(tuned.values()), med[best]
    vs_best = ratio(tuned, (beside or forced)[best], bool(beside)) - 1
    choice, own = chosen
    # How much faster the best algorithm is than the default's own, both forced in the
    # default's launches where known (a forced call skips the selection, so the default
    # row against a forced one would count the selection as the algorithm's gain); else
    # the default row itself. An MPICH launch measures the default beside them.
    fastest_beside_default = best_of(forced)[0] if forced else None
    if beside and own in forced:
        default_gap = ratio(forced[own], forced[fastest_beside_default], True) - 1
    elif forced:
        default_gap = ratio(default, forced[fastest_beside_default], bool(beside)) - 1
    else:
        default_gap = d / b - 1
    runs = own if choice == "default" else choice
    # A switched (forced) call skips the selection that every call of the default and of
    # the tuned library makes: measured as each one against the algorithm it runs, forced
    # beside it in the same launch.
    selection = paired_difference(tuned, beside[runs]) if runs in beside else None
    default_selection = paired_difference(default, forced[own]) if beside and own in forced else None
    choice_vs_best = ratio(beside[runs], beside[best], True) - 1 if runs in beside else None
    # Where the tuned library ran alone (Open MPI 4.1: its rules file wins over a forced
    # algorithm) but the forced algorithms ran in the default's own launches, the choice
    # is judged there: what it runs (the default row where the file keeps the default and
    # its algorithm is unknown) against the best, launch by launch.
    if not beside and forced and all(f"mpi[{n}]" in with_default for n in forced):
        fastest = forced[fastest_beside_default]
        if runs in forced:
            choice_vs_best = ratio(forced[runs], fastest, True) - 1
        elif choice == "default":
            choice_vs_best = ratio(default, fastest, True) - 1
    # The tuned library against the default: every tuned round slower than every default
    # round. Where both ran beside the default's own algorithm, each is first divided by
    # it, launch by launch: whole launches run fast or slow here, and the tuned library
    # and the default are never in the same launch.
    if beside and own in beside and own in forced:
        tuned_vs, default_vs = per_round(tuned, beside[own]), per_round(default, forced[own])
    else:
        tuned_vs, default_vs = tuned, default
    slower = min(tuned_vs.values()) > max(default_vs.values())
    gain = statistics.median(default_vs.values()) / statistics.median(tuned_vs.values())
    scaled = launch_scaled(variants, forced, fastest_beside_default) if not beside else None
    alike = placed_alike(variants, forced, placed or {}) if not beside and forced else None
    return {
        "default_us": d,
        "tuned_us": t,
        "best": best,
        "best_us": b,
        "tuned_vs_best": vs_best,
        "within": vs_best <= WITHIN,
        "slower_than_default": slower,
        "default_gap": default_gap,
        "gain": gain if default_gap >= GAP else None,
        "rounds": len(tuned),
        "chance_slower": chance_all_above(len(tuned_vs), len(default_vs)),
        "library": own,
        "choice_vs_best": choice_vs_best,
        "selection_us": selection,
        "default_selection_us": default_selection,
        "beside": bool(beside),
        **(scaled or {}),
        **(alike or {}),
    }


def placed_alike(variants, forced, placed):
    """Where the tuned library ran alone, the verdicts over the rounds whose default and
    tuned launches ran with their CPUs placed alike (both sharing a cache throughout, or
    both not): the tuned library against the best forced algorithm of those rounds, round
    by round, and slower than the default where every such tuned round was. None where no
    round was."""
    rounds = {r for r, (d, t) in placed.items() if d == t and d in STEADY}
    tuned, default = variants["mpi[tuned]"], variants["mpi"]
    rounds = {r for r in rounds if r in tuned and r in default}
    timed = {n: {r: v[r] for r in rounds if r in v} for n, v in forced.items()}
    timed = {n: v for n, v in timed.items() if len(v) == len(rounds)}
    if not rounds or not timed:
        return None
    best, _ = best_of(timed)
    vs_best = statistics.median(tuned[r] / timed[best][r] for r in rounds) - 1
    return {
        "placed_rounds": len(rounds),
        "placed_best": best,
        "placed_vs_best": vs_best,
        "placed_within": vs_best <= WITHIN,
        "placed_slower": min(tuned[r] for r in rounds) > max(default[r] for r in rounds),
        "placed_chance_slower": chance_all_above(len(rounds), len(rounds)),
    }


def chance_all_above(a, b):
    """How often a rounds of one variant all fall above b rounds of another by chance alone,
    where both are alike (every order of the a + b values equally likely)."""
    return 1 / math.comb(a + b, a)


def spread(values):
    """Largest over smallest, less 1."""
    return max(values) / min(values) - 1


def launch_scaled(variants, forced, best):
    """Where the tuned library ran alone, the verdicts with every launch's times divided by
    the yardstick (one of collbench's own algorithms, run in both launches): whole launches
    run fast or slow here, and an algorithm that does not change between the launches
    shows by how much. None without a yardstick in both launches of a round; with it, the
    default's spread over its launches before and after, to show whether it tracks them."""
    yard = next((k[4:] for k in sorted(variants) if k.startswith("own:") and "tuned:" + k in variants), None)
    if not yard or not best:
        return None
    in_default, in_tuned = variants["own:" + yard], variants["tuned:own:" + yard]
    tuned = per_round(variants["mpi[tuned]"], in_tuned)
    default = per_round(variants["mpi"], in_default)
    fastest = per_round(forced[best], in_default)
    vs_best = per_round(tuned, fastest)
    if not vs_best or not default:
        return None
    scaled_vs_best = statistics.median(vs_best.values()) - 1
    return {
        "yardstick": yard,
        "scaled_vs_best": scaled_vs_best,
        "scaled_within": scaled_vs_best <= WITHIN,
        "scaled_slower": min(tuned.values()) > max(default.values()),
        "default_spread": spread(variants["mpi"].values()),
        "default_spread_scaled": spread(default.values()),
    }


def size_text(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: summarize_tune.py OUTDIR")
    outdir = argv[1]
    points, errors, runs, with_default, placements, launch_placements = collect(outdir)
    chosen = choices(outdir)

    def placed(point):
        """{round: (the default launch's placement, the tuned launch's)} where both were recorded."""
        return {r: (p, placements[(point, r, "tuned")]) for (k, r, kind), p in placements.items()
                if (k, kind) == (point, "default") and (point, r, "tuned") in placements}

    verdicts = {k: judge(v, chosen.get(k, ("", "")), {label for key, label in with_default if key == k}, placed(k))
                for k, v in sorted(points.items())}
    judged = {k: v for k, v in verdicts.items() if v}
    library = next((r["mpi"]["library"] for r in runs if "mpi" in r), "?")
    tuning = next((r["mpi"]["tuning_file"] for r in runs if "mpi" in r and "tuning_file" in r["mpi"]), None)
    revision = next((r.get("git_revision") for r in runs if r.get("git_revision")), "?")
    scaled = any("yardstick" in v for v in judged.values())
    alike = any("placed_rounds" in v for v in judged.values())

    def fmt(x, spec):
        return "" if x is None else format(x, spec)

    with open(os.path.join(outdir, "comparison.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["collective", "ranks", "bytes", "choice", "default_us", "best", "best_us", "tuned_us",
                    "tuned_vs_best", "within_5pct", "slower_than_default", "default_gap", "gain", "rounds",
                    "library_algorithm", "choice_vs_best", "selection_us", "default_selection_us"]
                   + (SCALED_COLUMNS if scaled else []) + (PLACED_COLUMNS if alike else []))
        for (c, n, b), v in judged.items():
            w.writerow([c, n, b, chosen.get((c, n, b), ("", ""))[0], v["default_us"], v["best"], v["best_us"],
                        v["tuned_us"], v["tuned_vs_best"], v["within"], v["slower_than_default"], v["default_gap"],
                        v["gain"] if v["gain"] else "", v["rounds"], v["library"], fmt(v["choice_vs_best"], ""),
                        fmt(v["selection_us"], ""), fmt(v["default_selection_us"], "")]
                       + ([v.get(k, "") for k in SCALED_COLUMNS] if scaled else [])
                       + ([v.get(k, "") for k in PLACED_COLUMNS] if alike else []))
    beside = any(v["beside"] for v in judged.values())
    choice_known = any(v["choice_vs_best"] is not None for v in judged.values())
    print("# The tuned MPI library against its default and its own best algorithm\n")
    print(f"{library}, collbench {revision}; machine: machine.txt. The tuning file was written by "
          "`collbench tune` from the measure/ launches and judged on the evaluate/ launches "
          f"({max((v['rounds'] for v in judged.values()), default=0)} rounds, each the default, every forced "
          "algorithm and then the tuned library, per collective); p50 is each launch's median, a point's value the "
          "median over rounds."
          + (" The library switches its algorithms inside a run (MPICH): each round is two launches, the default "
             "and the tuned library, each with every algorithm interleaved beside it, and the tuned library is "
             "judged against the algorithms of its own launch (the median of the rounds' ratios)." if beside else "")
          + (" The default ran with every algorithm switched beside it, the tuned library alone (the library "
             "lets its file win over a switched algorithm: Open MPI 4.1), so the tuned library is judged against "
             "the algorithms of other launches (ratio of the medians), and whole launches run fast or slow here; "
             "*choice / best* is what the file runs, forced (or the default row where the file keeps the "
             "default), against the best, in the default's own launches: how good the choice is, launch modes "
             "aside." if choice_known and not beside else "")
          + (f" Tuning file: {tuning['bytes']} bytes, FNV-1a {tuning['fnv1a']}." if tuning else "") + "\n")
    if scaled:
        yards = sorted({(c, v["yardstick"]) for (c, n, b), v in judged.items() if "yardstick" in v})
        print("Yardstick: " + ", ".join(f"collbench's own {y} ({c})" for c, y in yards) + " ran in both launches of "
              "every round, interleaved with the library's calls; the *scaled* verdicts divide every launch's times "
              "by it (the tuned library's by its launch's, the default's and the forced algorithms' by theirs), "
              "taking out a launch's fast or slow mode as far as the yardstick shares it. Whether it does: the "
              "default's spread over its launches (largest / smallest − 1), median over sizes, raw and divided "
              "by the yardstick: "
              + "; ".join(f"{c} {statistics.median(v['default_spread'] for v in vs):.1%} and "
                          f"{statistics.median(v['default_spread_scaled'] for v in vs):.1%}"
                          for c in sorted({c for c, _ in yards})
                          for vs in [[v for (cc, n, b), v in judged.items() if cc == c and "yardstick" in v]])
              + ". The raw verdicts decide *met*.\n")
    if placements:
        print(placement_text(outdir, launch_placements, alike))
    print(f"Targets: tuned within {WITHIN:.0%} of the best forced algorithm at every size; never slower than the "
          "default beyond the spread (every tuned round slower than every default round"
          + (", each first divided by the default's own algorithm forced in the same launch, as whole launches run "
             "fast or slow here; the gain below likewise" if beside else "")
          + "); *by chance* is how many sizes chance alone would flag so where the tuned library and the default "
            "were alike (per size one in C(tuned rounds + default rounds, tuned rounds)): a count near it says "
            f"nothing of the file. Wrong elements in every evaluated row: {errors}.\n")
    if beside:
        print("A forced call skips the library's per-call selection, which every call of the default and of the "
              "tuned library makes: *selection* is the tuned library's p50 less that of the algorithm it runs, "
              "forced beside it (the default's likewise, against its own algorithm), and *choice / best* is the "
              "algorithm the file runs against the best, both forced: how good the choice is, the selection "
              "aside.\n")
    print("| collective | ranks | sizes | within 5% of the best | "
          + ("choice within 5% of the best | " if choice_known else "") + "slower than the default | by chance | "
          + ("within 5%, scaled | slower, scaled | " if scaled else "")
          + ("sizes judged with CPUs alike | within 5%, CPUs alike | slower, CPUs alike | by chance, CPUs alike | "
             if alike else "") + "met |")
    print("|---|---:|---:|---:|" + ("---:|" if choice_known else "") + "---:|---:|" + ("---:|---:|" if scaled else "")
          + ("---:|---:|---:|---:|" if alike else "") + "---|")
    groups = {}
    for (c, n, b), v in judged.items():
        groups.setdefault((c, n), []).append(v)
    for (c, n), vs in groups.items():
        within = sum(v["within"] for v in vs)
        choice_within = sum(v["choice_vs_best"] is not None and v["choice_vs_best"] <= WITHIN for v in vs)
        slower = sum(v["slower_than_default"] for v in vs)
        met = within == len(vs) and slower == 0 and errors == 0
        scaled_counts = (f"{sum(v.get('scaled_within', False) for v in vs)} | "
                         f"{sum(v.get('scaled_slower', False) for v in vs)} | ") if scaled else ""
        alike_counts = (f"{sum('placed_rounds' in v for v in vs)} | {sum(v.get('placed_within', False) for v in vs)} | "
                        f"{sum(v.get('placed_slower', False) for v in vs)} | "
                        f"{sum(v.get('placed_chance_slower', 0) for v in vs):.1f} | ") if alike else ""
        print(f"| {c} | {n} | {len(vs)} | {within} | " + (f"{choice_within} | " if choice_known else "")
              + f"{slower} | {sum(v['chance_slower'] for v in vs):.1f} | " + scaled_counts + alike_counts
              + f"{'yes' if met else '**no**'} |")
    missing = [k for k, v in verdicts.items() if not v]
    if missing:
        print(f"\nNot judged (a variant missing at the size): {len(missing)} points.")
    gains = [(k, v) for k, v in judged.items() if v["gain"]]
    if gains:
        print("\nWhere the default" + ("'s own algorithm" if beside else "") + " was 10% or more slower than the "
              "best forced algorithm:\n")
        print("| collective | ranks | size | " + ("default's algorithm / best (forced)" if beside else "default / best")
              + " | default / tuned |")
        print("|---|---:|---|---:|---:|")
        for (c, n, b), v in gains:
            print(f"| {c} | {n} | {size_text(b)} | {1 + v['default_gap']:.2f} | {v['gain']:.2f} |")
    print("\nPer size (medians over rounds, µs):\n")
    extra_head = (" library's own | choice / best − 1 | selection (tuned) | selection (default) |" if beside
                  else " choice / best − 1 |" if choice_known else "")
    extra_head += " tuned / best − 1, scaled | slower, scaled |" if scaled else ""
    extra_head += " tuned / best − 1, CPUs alike (rounds) | slower, CPUs alike |" if alike else ""
    print("| collective | ranks | size | file's choice | default | best forced | best | tuned | tuned / best − 1 | "
          "slower than default |" + extra_head)
    print("|---|---:|---|---|---:|---|---:|---:|---:|---|"
          + ("---|---:|---:|---:|" if beside else "---:|" if choice_known else "") + ("---:|---|" if scaled else "")
          + ("---:|---|" if alike else ""))
    for (c, n, b), v in judged.items():
        extra = (f" {v['library']} | {fmt(v['choice_vs_best'], '+.1%')} | {fmt(v['selection_us'], '+.3f')} | "
                 f"{fmt(v['default_selection_us'], '+.3f')} |") if beside else (
                     f" {fmt(v['choice_vs_best'], '+.1%')} |" if choice_known else "")
        if scaled:
            extra += (f" {fmt(v.get('scaled_vs_best'), '+.1%')}{'' if v.get('scaled_within', True) else ' **'} | "
                      + ("**yes** |" if v.get("scaled_slower") else "no |" if "yardstick" in v else " |"))
        if alike:
            extra += (f" {fmt(v.get('placed_vs_best'), '+.1%')}{'' if v.get('placed_within', True) else ' **'}"
                      + (f" ({v['placed_rounds']})" if "placed_rounds" in v else "") + " | "
                      + ("**yes** |" if v.get("placed_slower") else "no |" if "placed_rounds" in v else " |"))
        print(f"| {c} | {n} | {size_text(b)} | {chosen.get((c, n, b), ('', ''))[0]} | {v['default_us']:.4g} | "
              f"{v['best']} | {v['best_us']:.4g} | {v['tuned_us']:.4g} | "
              f"{v['tuned_vs_best']:+.1%}{'' if v['within'] else ' **'} | "
              f"{'**yes**' if v['slower_than_default'] else 'no'} |" + extra)


def placement_text(outdir, judging, alike):
    """How each launch's CPUs were placed (measure/, and evaluate/'s from collect), and what
    the verdicts *with CPUs alike* are."""
    def counts(kinds):
        return ", ".join(f"{sum(k == p for k in kinds)} {p}" for p in STEADY + ("moved during the launch",)
                         if any(k == p for k in kinds)) or "none recorded"
    measured = [placement_of(p) for p in glob.glob(os.path.join(outdir, "measure", "**", "*.json"), recursive=True)]
    text = ("CPU placement (collbench-core-handoff on CPUs 0 and 1 before and after every launch: a cache shared "
            "where both handoffs took under 60 ns, not where both took over 100 ns; launches here run fast or slow "
            f"by it, results/core-placement): measuring launches {counts([m for m in measured if m])}; judging "
            f"launches of the default {counts(judging['default'])}, of the tuned library {counts(judging['tuned'])}.")
    if alike:
        text += (" Where the tuned library ran alone, *CPUs alike* judges it over the rounds whose default and tuned "
                 "launches both shared a cache throughout or both did not: against the best forced algorithm of "
                 "those rounds, round by round, and slower than the default where every such tuned round was.")
    return text + "\n"


if __name__ == "__main__":
    main(sys.argv)
