#!/usr/bin/env python3
"""Writes SUMMARY.md and drills.csv for a fault-drill run (scripts/fault_drills.sh DIR)
from DIR/drills.jsonl, and prints the table."""
import csv
import json
import sys
from pathlib import Path

FAULTS = {
    "healthy": "none (the reference sweep)",
    "srun_sweep": "none: the sweep through srun on the emulated Slurm",
    "link_flap": "host 3's link down for 2 s mid-sweep, then up",
    "link_down_long": "host 3's link down for longer than --watchdog",
    "rate_cut": "host 3's link cut to a tenth of its rate mid-sweep (tc)",
    "host_killed": "every rank of host 3 killed (SIGKILL), Hydra",
    "writer_host_killed": "every rank of host 1 (rank 0, the writer) killed, Hydra",
    "hostname_clash": "host 3 reports host 1's name",
    "clock_offset": "host 3's monotonic clock moved by +10^6 s (time namespace)",
    "slurm_host_killed": "every rank of host 3 killed (SIGKILL), srun",
}
COLUMNS = ["drill", "launcher", "fault", "what happened", "exit", "time to detect (s)", "rows kept (before fault)",
           "wrong", "ranks left", "verdict"]


def row(r):
    launcher = "Hydra (mpiexec)"
    if r["drill"] == "slurm_host_killed":
        launcher = f"srun, {r.get('library', '?')}, --kill-on-bad-exit={r.get('kill_on_bad_exit', '?')}"
    elif r["drill"] == "srun_sweep":
        launcher = f"srun, {r.get('library', '?')}"
    kept = ""
    if "rows_in_csv" in r:
        kept = f"{r['rows_in_csv']} CSV / {r['rows_in_json']} JSON"
        if "rows_before_fault" in r and r["drill"] not in ("hostname_clash",):
            kept += f" ({r['rows_before_fault']})"
    return {"drill": r["drill"], "launcher": launcher, "fault": FAULTS.get(r["drill"], r["drill"]),
            "what happened": r.get("what", r.get("why", "")), "exit": r.get("exit", ""),
            "time to detect (s)": r.get("detect_s", ""), "rows kept (before fault)": kept, "wrong": r.get("wrong", ""),
            "ranks left": r.get("ranks_left", ""), "verdict": r["verdict"]}


def main(out):
    records = [json.loads(l) for l in open(out / "drills.jsonl") if l.strip()]
    table = [row(r) for r in records]
    with open(out / "drills.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(table)
    lines = ["# Fault drills on 3 emulated hosts\n",
             "One run of `scripts/fault_drills.sh` (machine and packages: `machine.txt`; every run's output, CSV and "
             "JSON: `raw/`; one record per drill with every fact judged: `drills.jsonl`). Time to detect: from the "
             "fault to the end of the run, for the faults that must end it. Rows kept: rows in the CSV and the JSON afterwards (rows finished "
             "before the fault).\n",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for t in table:
        lines.append("| " + " | ".join(str(t[c]).replace("|", "/") for c in COLUMNS) + " |")
    passed = sum(r["verdict"] == "pass" for r in records)
    failed = sum(r["verdict"].startswith("fail") for r in records)
    lines.append(f"\n{passed} passed, {failed} failed, {len(records) - passed - failed} skipped.")
    text = "\n".join(lines) + "\n"
    (out / "SUMMARY.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
