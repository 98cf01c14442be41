#!/usr/bin/env python3
"""Compares two collbench result files (CSV, with the JSON next to it) apart from what
a run measures: the same CSV columns, the same rows with the same keys (every
column but timings, bandwidths and what follows from them), 0 errors, and the same
JSON keys per row. For checking that a change of the code left the output alone.

usage: compare_results.py BEFORE.csv AFTER.csv
Exit 0 when they agree; otherwise prints every difference and exits 1."""
import csv
import json
import re
import sys

# Columns whose values are measurements (they differ from run to run).
MEASURED = re.compile(r"(_us|_gbps|^gbps$|^outliers$|^predict_seconds$|^of_bound$|^fit_(rms|max)_err$|^efficiency$|^(comm|exposed|step|hidden_comm)_ms|^step_ms_(min|p50|max)$|"
                      r"^staleness_(max|mean)$|^server_(ingress|egress)_bytes_per_step$|^server_ingress_imbalance$|"
                      r"^worker_(sent|received)_bytes_per_step$|^sent_vs_ring$)")


def is_fit(row):
    """A p2p fit row: how many ranges a piecewise fit needs, and where it cuts them,
    follows from the measured times, so only which (test, link) pairs were fitted is
    compared."""
    return row.get("kind") == "fit"


def rows(path):
    with open(path) as f:
        reader = csv.DictReader(f)
        every = list(reader)
    fits = sorted({(r["test"], r["link"]) for r in every if is_fit(r)})
    return reader.fieldnames, [r for r in every if not is_fit(r)], fits


def json_keys(path):
    doc = json.load(open(path[: -len(".csv")] + ".json"))
    return sorted({tuple(sorted(r.keys())) for r in doc["rows"]}) if any(r.get("kind") == "fit" for r in doc["rows"]) \
        else [sorted(r.keys()) for r in doc["rows"]]


def main(before, after):
    problems = []
    cols_b, rows_b, fits_b = rows(before)
    cols_a, rows_a, fits_a = rows(after)
    if fits_b != fits_a:
        problems.append(f"fitted (test, link) pairs differ:\n  before {fits_b}\n  after  {fits_a}")
    if cols_b != cols_a:
        problems.append(f"CSV columns differ:\n  before {cols_b}\n  after  {cols_a}")
    keys = [c for c in cols_b if not MEASURED.search(c)]
    if len(rows_b) != len(rows_a):
        problems.append(f"{len(rows_b)} rows before, {len(rows_a)} after")
    for i, (b, a) in enumerate(zip(rows_b, rows_a)):
        diff = {k: (b.get(k), a.get(k)) for k in keys if b.get(k) != a.get(k)}
        if diff:
            problems.append(f"row {i + 2}: {diff}")
        if a.get("errors") not in ("0", "-1", "", None):  # -1 or "": a row that checks nothing (the bound, a p2p fit)
            problems.append(f"row {i + 2} after: errors {a.get('errors')}")
    if json_keys(before) != json_keys(after):
        problems.append("JSON rows carry different keys")
    for p in problems:
        print(p)
    print(f"{before} vs {after}: {len(rows_a)} rows, {len(keys)} key columns compared: "
          + ("same" if not problems else f"{len(problems)} difference(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
