#!/usr/bin/env python3
"""Every test of a build tree has a ctest TIMEOUT of at most 10 minutes, so a hang fails
in minutes rather than at CI's limit. Usage: every_test_has_timeout.py BUILD_DIR"""
import json
import subprocess
import sys

MOST_SECONDS = 600


def without_timeout(tests):
    """The names of tests with no TIMEOUT, or one above MOST_SECONDS, with why."""
    out = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        limit = props.get("TIMEOUT")
        if limit is None:
            out.append(f"{t['name']}: no TIMEOUT")
        elif float(limit) > MOST_SECONDS:
            out.append(f"{t['name']}: TIMEOUT {limit} s, more than {MOST_SECONDS}")
    return out


def main():
    shown = subprocess.run(["ctest", "--test-dir", sys.argv[1], "--show-only=json-v1"],
                           capture_output=True, text=True, check=True)
    tests = json.loads(shown.stdout)["tests"]
    bad = without_timeout(tests)
    for line in bad:
        print(line)
    print(f"{len(tests)} tests, {len(bad)} without a TIMEOUT of at most {MOST_SECONDS} s")
    return 1 if bad or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
