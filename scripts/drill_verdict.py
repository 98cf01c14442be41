#!/usr/bin/env python3
"""Judges one fault drill (scripts/fault_drills.sh) from its facts and files, and prints
one JSON record: what happened, the time to detect, rows kept, wrong results, and the
verdict against what a user must be able to rely on.

usage: drill_verdict.py DRILL KEY=VALUE...
Facts: exit, hung, start, end, csv, json, log, ranks_left (still running grace_s after
the launcher returned), ranks_at_exit (as it returned), ranks_gone_s, grace_s, and per drill fault_start,
fault_end, rows_before, healthy (a healthy run's JSON), watchdog, cut_host, offset,
moved_host, killed, relaunched, library, kill_on_bad_exit, launcher, skipped."""
import csv
import json
import os
import re
import statistics
import sys

SLACK_S = 30       # a fault must end the run within --watchdog + this
SAME_SPEED = 1.5   # a row's p50 within this factor of the healthy run's: not slowed
SLOWER = 3         # rows after a cut to a tenth of the rate: at least this much slower
ENDING_FAULTS = ("link_down_long", "host_killed", "writer_host_killed", "slurm_host_killed", "hostname_clash")


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f), ""
    except FileNotFoundError:
        return None, "no JSON"
    except ValueError as e:
        return None, f"the JSON is not a valid document ({e})"


def csv_rows(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def key(r):
    return (r["algorithm"], int(r["bytes"]))


def main():
    drill, facts = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
    rec = {"drill": drill}
    for k in ("library", "kill_on_bad_exit", "launcher"):
        if k in facts:
            rec[k] = facts[k]
    if "skipped" in facts:
        rec.update(verdict="skipped", why=facts["skipped"])
        print(json.dumps(rec))
        return
    problems = []
    rc, hung = int(facts["exit"]), facts["hung"] == "1"
    doc, json_problem = load_json(facts["json"])
    rows = csv_rows(facts["csv"])
    json_rows = doc["rows"] if doc else []
    wrong = sum(max(int(r["errors"]), 0) for r in rows)
    log = open(facts["log"], errors="replace").read()
    fault_start = float(facts.get("fault_start", facts["start"]))
    rec.update(exit=rc, hung=hung, seconds=round(float(facts["end"]) - float(facts["start"]), 1),
               rows_in_csv=len(rows), rows_in_json=len(json_rows), wrong=wrong,
               ranks_left=int(facts["ranks_left"]), ranks_at_launcher_exit=int(facts["ranks_at_exit"]),
               ranks_gone_s=float(facts["ranks_gone_s"]))
    if "rows_before" in facts:
        rec["rows_before_fault"] = int(facts["rows_before"])
    if drill in ENDING_FAULTS:  # the fault must end the run: how long that took
        rec["detect_s"] = round(float(facts["end"]) - fault_start, 1)
    if hung:
        problems.append("still running at the script's limit (a hang)")
    if rec["ranks_left"]:
        problems.append(f"{rec['ranks_left']} rank(s) left running {facts['grace_s']} s after the launcher returned")
    if wrong:
        problems.append(f"{wrong} wrong elements")
    healthy = {}
    if "healthy" in facts:
        hdoc, _ = load_json(facts["healthy"])
        healthy = {key(r): float(r["p50_us"]) for r in (hdoc["rows"] if hdoc else [])}

    def finished_ok():
        if rc != 0:
            problems.append(f"exit status {rc}, want 0")
        if not doc or not doc.get("completed"):
            problems.append(json_problem or "the JSON does not say completed")
        if healthy and len(rows) != len(healthy):
            problems.append(f"{len(rows)} rows, the healthy run had {len(healthy)}")

    def rows_kept():
        before = int(facts["rows_before"])
        if len(rows) < before:
            problems.append(f"{before - len(rows)} finished row(s) lost from the CSV")
        if doc is None:
            problems.append(json_problem)
        elif len(json_rows) != len(rows):
            problems.append(f"CSV and JSON disagree ({len(rows)} and {len(json_rows)} rows)")
        elif doc.get("completed"):
            problems.append("the JSON says completed")

    def ended_in_time():
        limit = float(facts.get("watchdog", 180)) + SLACK_S
        if rec["detect_s"] > limit:
            problems.append(f"ended {rec['detect_s']} s after the fault, over --watchdog + {SLACK_S} s")

    def speeds():  # each row's p50 against the healthy run's
        return {f"{a} {b}": round(float(r["p50_us"]) / healthy[(a, b)], 2)
                for r in rows for a, b in [key(r)] if (a, b) in healthy}

    def same_speed(why):  # a completed run whose p50s are the healthy run's
        finished_ok()
        rec["p50_vs_healthy"] = speeds()
        slowed = [k for k, v in rec["p50_vs_healthy"].items() if v > SAME_SPEED]
        if slowed:
            problems.append(f"p50 beyond {SAME_SPEED}x the healthy run's: {slowed} ({why})")

    if drill == "healthy":
        finished_ok()
        rec["what"] = "the sweep without a fault: the reference for speeds"
    elif drill == "srun_sweep":
        finished_ok()
        m = doc["metadata"] if doc else {}
        launcher = m.get("launcher", {})
        job = launcher.get("slurm", {})
        if launcher.get("kind") != "srun" or not job.get("job_id"):
            problems.append(f"the metadata does not name srun and Slurm's job: {launcher}")
        if len(m.get("hosts", {})) != 3:
            problems.append(f"hosts {m.get('hosts')}, want 3")
        rec["what"] = (f"completed, right: {len(rows)} rows from {m.get('mpi', {}).get('library', '?')} on "
                       f"{', '.join(sorted(m.get('hosts', {})))}; job {job.get('job_id')}, {job.get('tasks')} tasks, "
                       f"{job.get('tasks_per_node')} per node, plugin {job.get('mpi_plugin')}")
    elif drill == "link_flap":
        same_speed("the stall reported as speed")
        stalled = [r for r in rows if key(r) in healthy and
                   float(r["max_us"]) > 3 * healthy[key(r)] and float(r["max_us"]) - healthy[key(r)] >= 2e5]
        unmarked = [f"{r['algorithm']} {r['bytes']}" for r in stalled if int(r["outliers"]) == 0]
        if unmarked:
            problems.append(f"rows holding the stall without the outlier mark: {unmarked}")
        marked = [f"{r['algorithm']} {r['bytes']}" for r in rows if int(r["outliers"]) > 0]
        rec["marked_rows"] = marked
        rec["stall_s"] = round(max((float(r["max_us"]) - float(r["p50_us"]) for r in rows), default=0) / 1e6, 2)
        rec["what"] = (f"completed, right; the longest call {rec['stall_s']} s over its row's p50; rows marked: "
                       f"{', '.join(marked) if marked else 'none (the outage fell outside timed calls)'}")
    elif drill == "link_down_long":
        rows_kept()
        ended_in_time()
        if rc != 4:
            problems.append(f"exit status {rc}, want 4 (the watchdog)")
        stalls = [l for l in log.splitlines() if "watchdog:" in l and "made no progress" in l]
        cut = facts["cut_host"]
        if not stalls:
            problems.append("no rank said where it stalled")
        elif not any(re.search(r"rank \d+ on \S+ made no progress", l) for l in stalls):
            problems.append("no watchdog message names its host")
        elif not any(f"({cut})" in l or f"on {cut} " in l for l in stalls):
            problems.append(f"no watchdog message names the cut host {cut}")
        elif not any("exchanging with rank" in l and "algorithm ring" in l for l in stalls):
            problems.append("no watchdog message names the operation and the peer it waits on")
        if doc and "made no progress" not in str(doc.get("stopped", "")):
            problems.append("the JSON does not say why it stopped")
        rec["messages"] = [l.split("watchdog: ", 1)[1].split(". Ending")[0] for l in stalls][:3]
        rec["what"] = f"exit {rc} after {rec['detect_s']} s; {len(stalls)} rank(s) said where they stalled"
    elif drill == "rate_cut":
        finished_ok()
        before = int(facts["rows_before"])
        ratios = speeds()
        after = list(ratios.values())[before + 1:]  # rows begun after the cut (the one in progress is mixed)
        rec["p50_vs_healthy"] = ratios
        rec["slowdown_after_cut"] = round(statistics.median(after), 2) if after else None
        if not after:
            problems.append("no row was measured wholly after the cut")
        elif statistics.median(after) < SLOWER:
            problems.append(f"rows after the cut only {statistics.median(after):.2f}x slower (want {SLOWER}x or more)")
        late = ", ".join(f"{k} {v:.1f}x" for k, v in list(ratios.items())[before:])
        rec["what"] = f"completed, right; p50 against the healthy run's, rows from the cut to {facts['rate_to']} on: {late}"
    elif drill in ("host_killed", "writer_host_killed", "slurm_host_killed"):
        rows_kept()
        ended_in_time()
        if rc == 0:
            problems.append("exit status 0 after a host's ranks were killed")
        if int(facts["killed"]) == 0:
            problems.append("found no rank to kill")
        ended_by = "the watchdog" if "made no progress" in log else \
            "MPI's own error" if "Fatal error" in log or "MPI_ABORT" in log else \
            "Slurm (--kill-on-bad-exit)" if facts.get("kill_on_bad_exit") == "1" else \
            "the launcher (Hydra)" if "BAD TERMINATION" in log else "the launcher"
        rec["what"] = f"exit {rc} {rec['detect_s']} s after the kill, ended by {ended_by}"
        if "relaunched" in facts:  # the first launch ended by itself before a row (fault_drills.sh kill_host)
            rec["relaunched"] = facts["relaunched"]
            rec["what"] += f" (second launch: the first ended with {facts['relaunched']})"
    elif drill == "hostname_clash":
        if rc != 2:
            problems.append(f"exit status {rc}, want 2 (refused)")
        if "both report host name" not in log:
            problems.append("no message naming the clash")
        if rows:
            problems.append("rows were measured")
        rec["what"] = f"refused (exit {rc}) before measuring: " + next(
            (l.split("error: ", 1)[1][:120] + "..." for l in log.splitlines() if "both report host name" in l), "no message")
    elif drill == "clock_offset":
        same_speed("times changed with the clock")
        hosts = doc["metadata"]["clocks"]["hosts"] if doc else {}
        seen = (hosts.get(facts["moved_host"]) or {}).get("monotonic_offset_s")
        rec["reported_offset_s"] = seen
        if seen is None or abs(seen - float(facts["offset"])) > 1:
            problems.append(f"the metadata reports offset {seen}, moved by {facts['offset']}")
        if "monotonic clock is +" not in log:
            problems.append("no warning in the table header")
        rec["what"] = f"completed, right, times as healthy; reported: {facts['moved_host']} monotonic {seen:+.0f} s" \
            if seen is not None else "no offset reported"
    else:
        problems.append(f"unknown drill {drill}")
    rec["verdict"] = "fail: " + "; ".join(problems) if problems else "pass"
    rec["facts"] = facts
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
