#!/usr/bin/env python3
"""Merges collbench result files (CSV + JSON pairs) into one CSV and one JSON.

Rows keep their order; the JSON keeps every run's metadata under "runs", so a merged
table of, say, our algorithms and each MPICH forced algorithm stays reproducible.
Usage: merge_results.py OUT_BASENAME IN1.csv [IN2.csv ...]   (each IN*.json beside its CSV)
"""
import csv
import json
import os
import sys


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: merge_results.py OUT_BASENAME IN1.csv [IN2.csv ...]")
    out, inputs = argv[1], argv[2:]
    header, rows, runs, json_rows = None, [], [], []
    for path in inputs:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            head = next(reader, None)
            if head is None:
                continue  # a run that failed before measuring anything
            if header is None:
                header = head
            elif head != header:
                sys.exit(f"merge_results.py: {path} has different columns than {inputs[0]}")
            rows.extend(reader)
        json_path = os.path.splitext(path)[0] + ".json"
        if os.path.exists(json_path):
            with open(json_path) as f:
                doc = json.load(f)
            runs.append(doc.get("metadata", {}))
            json_rows.extend(doc.get("rows", []))
    if header is None:
        sys.exit("merge_results.py: no input had any rows")
    with open(out + ".csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    with open(out + ".json", "w") as f:
        json.dump({"runs": runs, "rows": json_rows}, f, indent=1)
    print(f"merged {len(rows)} rows from {len(inputs)} file(s) into {out}.csv and {out}.json")


if __name__ == "__main__":
    main(sys.argv)
