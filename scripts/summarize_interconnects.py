#!/usr/bin/env python3
"""Summarises a measure_interconnects.sh run (DIR/raw/<label>-<what>.json) as Markdown:
the runs and their layouts (oversubscription, whether MPI_COMM_TYPE_SHARED and the host
names agree), the emulator's overhead against raw TCP on the shaped link, the p2p
alpha/beta fits, and per collective and size the fastest algorithm on each interconnect
with its margin over the runner-up and the per-round spread of that margin.

Usage: summarize_interconnects.py DIR
"""
import json
import os
import re
import sys

LABELS = ["ucx-shm", "tcp-loopback", "1gbe-2x1", "1gbe-2x2"]
COLLECTIVES = ["allreduce", "broadcast", "reduce"]
KIB, MIB = 1024, 1024 * 1024
TARGET = 0.85  # of raw TCP
SETTLED = 1.02  # a winner is settled when it beat the runner-up by this much in every round


def size(b):
    b = int(b)
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", KIB)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b} B"


def load(raw, label, what):
    path = os.path.join(raw, f"{label}-{what}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def topology_check(m):
    """Whether MPI_COMM_TYPE_SHARED's nodes are exactly the host names' groups."""
    by_name = {}
    for host, ranks in m["hosts"].items():
        for r in ranks:
            by_name[r] = host
    node_of_rank = m["topology"]["node_of_rank"]
    same = all((node_of_rank[a] == node_of_rank[b]) == (by_name[a] == by_name[b])
               for a in range(len(node_of_rank)) for b in range(len(node_of_rank)))
    verdict = "agree" if same else "**disagree**"
    return f"{m['topology']['nodes']} node(s) by {m['topology']['source']}, {len(m['hosts'])} host name(s): {verdict}"


def runs_section(raw):
    out = ["## Runs", "",
           "| interconnect | ranks | hosts × ranks | UCX_TLS | oversubscribed | MPI_COMM_TYPE_SHARED vs host names |",
           "|---|---:|---|---|---|---|"]
    first = None
    for label in LABELS:
        doc = load(raw, label, "allreduce") or load(raw, label, "p2p")
        if not doc:
            continue
        m = doc["metadata"]
        first = first or m
        hosts = m["hosts"]
        per = max(len(r) for r in hosts.values())
        over = m["oversubscription"]
        machines = over.get("machines", {})
        total = max((v["ranks"] for v in machines.values()), default=m["ranks"])
        cores = max((v["cores"] for v in machines.values()), default=0)
        ov = f"yes: {total} ranks on {cores} cores" if over["oversubscribed"] else f"no ({total} on {cores} cores)"
        ucx = m["environment"].get("UCX_TLS", "(default)")
        out.append(f"| {m['interconnect']['name']} ({label}) | {m['ranks']} | {len(hosts)} × {per} | {ucx} | {ov} | "
                   f"{topology_check(m)} |")
    hangs = os.path.join(raw, "finalize_hangs.txt")
    if os.path.exists(hangs):
        lines = open(hangs).read().split("\n")
        n = len([x for x in lines if x.strip()])
        out += ["", f"{n} run(s) over UCX's TCP transport exited non-zero only because MPI_Finalize hung after every "
                    "result was written (openucx/ucx#8738; collbench ends it after 20 s); their results are complete and "
                    "checked, and are used (list in raw/finalize_hangs.txt)."]
    if first:
        out += ["", f"MPI: {first['mpi']['library']}; collbench {first['git_revision']}; started {first['started_utc']}; "
                    f"{first['timing_policy']['repetitions']}, {first['options']['rounds']} rounds."]
        if "1gbe-2x2" in LABELS:
            out += ["", "Oversubscribed runs (more ranks than the machine's cores) take turns on the cores: a rank "
                        "that waits yields its core between polls (MPIR_CVAR_POLLS_BEFORE_YIELD=1), and times include "
                        "waiting for a descheduled peer. Their small-message latencies measure the scheduler as much "
                        "as the network; their large-message bandwidths are still the shaped link's."]
    return out


def emulator_text(raw):
    path = os.path.join(raw, "emulator.txt")
    return open(path).read() if os.path.exists(path) else ""


def overhead_section(raw):
    text = emulator_text(raw)
    tcp = [int(x) for x in re.findall(r"tcp_bits_per_s=(\d+)", text)]
    mtu = re.search(r"mtu=(\d+)", text)
    ts = re.search(r"tcp_timestamps=(\d+)", text)
    rate = re.search(r"rate=(\d+)gbit", text)
    p2p, allreduce = load(raw, "1gbe-2x1", "p2p"), load(raw, "1gbe-2x1", "allreduce")
    if not tcp or not p2p or not allreduce:
        return ["## Emulator overhead", "", "Not measured in this run."]
    raw_gbps = sum(tcp) / len(tcp) / 8e9
    bw = [r for r in p2p["rows"] if r["kind"] == "measured" and r["test"] == "bandwidth" and r["link"] == "inter-host"]
    big = max(bw, key=lambda r: r["bytes"])
    mpi = [r for r in allreduce["rows"] if r["algorithm"] == "mpi" and r["bytes"] == 16 * MIB]
    out = ["## Emulator overhead on 1gbe (2 hosts × 1 rank)", "",
           f"Raw TCP (one python socket stream between the two emulated hosts, 3 s, on the shaped link) before and "
           f"after the 2×1 runs: {', '.join(f'{t / 8e9:.4f}' for t in tcp)} GB/s (mean {raw_gbps:.4f}).", "",
           "| measurement | GB/s | / raw TCP | target |", "|---|---:|---:|---|",
           f"| p2p bandwidth, inter-host, {size(big['bytes'])} | {big['gbps']:.4f} | {big['gbps'] / raw_gbps:.3f} | "
           f"≥ {TARGET} {'met' if big['gbps'] / raw_gbps >= TARGET else '**missed**'} |"]
    if mpi:
        r = mpi[0]
        out.append(f"| mpi allreduce busbw, 16 MiB | {r['busbw_gbps']:.4f} | {r['busbw_gbps'] / raw_gbps:.3f} | "
                   f"≥ {TARGET} {'met' if r['busbw_gbps'] / raw_gbps >= TARGET else '**missed**'} |")
    if mtu and rate:
        m = int(mtu.group(1))
        payload = m - 40 - (12 if ts and ts.group(1) != "0" else 0)
        # tbf counts a frame as its Ethernet header plus IP packet (no preamble, FCS or gap).
        expected = int(rate.group(1)) * 1e9 / 8 * payload / (m + 14) / 1e9
        out += ["", f"Line rate minus TCP/IP overhead: {rate.group(1)} Gbit/s × {payload}/{m + 14} (TCP payload per "
                    f"frame as tbf counts it: MTU {m}, IP+TCP headers{' and timestamps' if payload < m - 40 else ''}, "
                    f"Ethernet header) = {expected:.4f} GB/s. The p2p bandwidth at {size(big['bytes'])} is "
                    f"{big['gbps'] / expected:.3f} of it ({100 * (big['gbps'] / expected - 1):+.1f}%; target within "
                    f"±10%). A real 1GbE NIC also sends a preamble, FCS and inter-frame gap (38 bytes per frame): "
                    f"{int(rate.group(1)) * 1e9 / 8 * payload / (m + 38) / 1e9:.4f} GB/s."]
    return out


def p2p_section(raw):
    out = ["## Point-to-point: alpha and beta per size range", "",
           "Fitted to each size's p50 (collbench p2p; latency: half a ping-pong, bandwidth: a window of messages). "
           "Empty beta: the range's times do not grow with size.", "",
           "| interconnect | link | test | sizes | alpha µs | beta GB/s | rms err | largest size GB/s |",
           "|---|---|---|---|---:|---:|---:|---:|"]
    for label in LABELS:
        doc = load(raw, label, "p2p")
        if not doc:
            continue
        rows = doc["rows"]
        for link in ("intra-host", "inter-host"):
            for test in ("latency", "bandwidth"):
                fits = [r for r in rows if r["kind"] == "fit" and r["link"] == link and r["test"] == test]
                meas = [r for r in rows if r["kind"] == "measured" and r["link"] == link and r["test"] == test]
                if not meas:
                    continue
                top = max(meas, key=lambda r: r["bytes"])
                for i, f in enumerate(fits):
                    beta = f"{f['beta_gbps']:.4g}" if f["beta_gbps"] is not None else ""
                    out.append(f"| {label} | {link} | {test} | {size(f['from_bytes'])} – {size(f['bytes'])} | "
                               f"{f['alpha_us']:.2f} | {beta} | {100 * f['fit_rms_err']:.1f}% | "
                               f"{top['gbps']:.4f} |" if i == 0 else
                               f"| | | | {size(f['from_bytes'])} – {size(f['bytes'])} | {f['alpha_us']:.2f} | {beta} | "
                               f"{100 * f['fit_rms_err']:.1f}% | |")
    return out


def winners(rows):
    """size -> (best, runner-up, margin, (lo, hi) per-round margin)"""
    by_size = {}
    for r in rows:
        by_size.setdefault(r["bytes"], []).append(r)
    out = {}
    for b, rs in by_size.items():
        rs = sorted(rs, key=lambda r: r["p50_us"])
        if len(rs) < 2:
            continue
        best, second = rs[0], rs[1]
        per_round = [s / f for f, s in zip(best["round_mean_us"], second["round_mean_us"]) if f > 0]
        out[b] = (best["algorithm"], second["algorithm"], second["p50_us"] / best["p50_us"],
                  (min(per_round), max(per_round)) if per_round else None)
    return out


def collective_section(raw, coll):
    table = {label: winners(doc["rows"]) for label in LABELS if (doc := load(raw, label, coll))}
    if not table:
        return []
    sizes = sorted({b for w in table.values() for b in w})
    out = [f"## {coll}: fastest algorithm per size", "",
           "Each cell: the fastest by p50 over all timed calls, × its margin over the runner-up, and the range of that "
           "margin over the rounds' means (algorithms ran interleaved round by round). *Italic*: not settled, some "
           f"round had the runner-up within {100 * (SETTLED - 1):.0f}% or faster. With 2 ranks every broadcast "
           "and reduce algorithm is one message and several allreduce algorithms send the same messages, so "
           "near-ties there are expected. On the oversubscribed 2×2 the rounds' means include scheduler stalls of "
           "whole ticks, so its spreads are wide and can sit far from the p50 margin.", "",
           "| bytes | " + " | ".join(table) + " |", "|---:|" + "---|" * len(table)]
    for b in sizes:
        cells = []
        for label, w in table.items():
            if b not in w:
                cells.append("")
                continue
            best, second, margin, spread = w[b]
            settled = spread is not None and spread[0] > SETTLED
            text = f"{best} ×{margin:.2f}" + (f" ({spread[0]:.2f}–{spread[1]:.2f})" if spread else "")
            cells.append(text if settled else f"*{text}*")
        out.append(f"| {size(b)} | " + " | ".join(cells) + " |")
    out.append("")
    for label, w in table.items():
        seq, changes = None, []
        for b in sorted(w):
            best, _, _, spread = w[b]
            if spread is None or spread[0] <= SETTLED:
                continue  # only settled winners mark a crossover
            if seq and best != seq:
                changes.append(f"{best} from {size(b)}")
            seq = best
        start = next((w[b][0] for b in sorted(w) if w[b][3] and w[b][3][0] > SETTLED), None)
        out.append(f"- {label}: " + (f"{start} first" + (", then " + ", ".join(changes) if changes else ", throughout")
                                     if start else "no settled winner") + " (settled winners only)")
    return out


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    raw = os.path.join(argv[1], "raw")
    lines = ["# Collectives across interconnects", "",
             "Generated by scripts/summarize_interconnects.py from one run of scripts/measure_interconnects.sh.", ""]
    lines += runs_section(raw) + [""] + overhead_section(raw) + [""] + p2p_section(raw)
    for coll in COLLECTIVES:
        section = collective_section(raw, coll)
        if section:
            lines += [""] + section
    errors = sum(max(r.get("errors", 0) or 0, 0) for label in LABELS for what in COLLECTIVES + ["p2p"]
                 if (doc := load(raw, label, what)) for r in doc["rows"])
    lines += ["", f"Wrong elements (collectives) and bytes (p2p) over every checked call: {errors}."]
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv)
