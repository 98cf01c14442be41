#!/usr/bin/env python3
"""Summarises results/finalize/ (scripts/measure_finalize.sh): per arm, how many runs
exited 0, how many waited out collbench's MPI_Finalize deadline, how many hung until
the script's limit, how many exited non-zero, and whether every collbench run's results
were complete and right."""
import csv
import statistics
import sys
from pathlib import Path

ARMS = {
    "plain": "collbench-plain-loop: a plain MPI program, MPI_Finalize at once",
    "before": "collbench, COLLBENCH_FINALIZE_QUIET_MS=0 (MPI_Finalize at once, as before)",
    "nopairs": "collbench, COLLBENCH_FINALIZE_CONNECT=0 (barrier, 200 ms quiet, MPI_Finalize: before pairs)",
    "after": "collbench as it is now (every pair, barrier, 200 ms quiet, MPI_Finalize)",
}


def main(out, hosts, profile, args):
    rows = list(csv.DictReader(open(out / "runs.csv")))
    lines = [f"# Clean exits across {hosts} emulated hosts (MPICH over UCX's TCP transport)\n",
             f"One run of `scripts/measure_finalize.sh` ({hosts} hosts x 1 rank, profile {profile}; "
             f"collbench `{args}`); the arms take turns, run by run. "
             "Machine and packages: `machine.txt`; every run: `runs.csv`.\n",
             "| arm | runs | exit 0 | waited out the 20 s deadline | hung to the script's limit | non-zero exit | "
             "results complete and right | median s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    arms = dict(ARMS)
    for arm in dict.fromkeys(r["arm"] for r in rows):
        if arm.startswith("quiet-"):
            arms[arm] = (f"collbench, COLLBENCH_FINALIZE_QUIET_MS={arm[6:-2]} COLLBENCH_FINALIZE_CONNECT=0 "
                         f"(barrier, {arm[6:]} quiet, MPI_Finalize)")
    quiet = sorted((a for a in arms if a.startswith("quiet-")), key=lambda a: int(a[6:-2]))
    order = ["plain", "before"] + quiet + ["nopairs", "after"]
    for arm in order:
        what = arms[arm]
        rs = [r for r in rows if r["arm"] == arm]
        if not rs:
            continue
        ok = sum(r["exit"] == "0" for r in rs)
        deadline = sum(int(r["deadline_exits"]) > 0 for r in rs)
        hung = sum(r["hung"] == "1" for r in rs)
        bad = sum(r["exit"] != "0" and r["hung"] != "1" for r in rs)
        if arm == "plain":
            right = "n/a"
        else:
            right = f"{sum(r['completed'] == '1' and r['wrong'] == '0' and int(r['rows'] or 0) > 0 for r in rs)}"
        median = statistics.median(float(r["seconds"]) for r in rs)
        lines.append(f"| {what} | {len(rs)} | {ok} | {deadline} | {hung} | {bad} | {right} | {median:.1f} |")
    lines.append("\nA run 'waited out the deadline' when some rank printed that MPI_Finalize had not "
                 "returned in 20 s and exited with the run's status; 'hung' runs were interrupted by the "
                 "script (plain MPI programs have no deadline).")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: summarize_finalize.py DIR HOSTS PROFILE ARGS")
    main(Path(sys.argv[1]), *sys.argv[2:])
