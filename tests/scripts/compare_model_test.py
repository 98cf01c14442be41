#!/usr/bin/env python3
"""compare_model.py on a synthetic validation: the links and every collective slow down
2x in round 2. The same-run error must cancel the drift, fit-once must carry it, the
ratio error must stay zero, leaving a cost out must show its effect, and an
oversubscribed layout must be reported, not judged. Where the sweep's launch probed its
own links and its probe launch missed the slowdown, the layout is judged by the former."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "compare_model.py")
# Two algorithms whose measured time is exactly what the model says, times the drift.
TRUE_US = {("ring", 65536): 100.0, ("tree", 65536): 150.0, ("ring", 1024): 10.0, ("tree", 1024): 8.0}


def write(path, rows):
    with open(path, "w") as f:
        json.dump({"metadata": {"git_revision": "test"}, "rows": rows}, f)


def model(path):
    link = {"ranges": [{"alpha_us": 1.0, "beta_gbps": 1.0}]}
    with open(path, "w") as f:
        json.dump({"ranks_per_node": 1, "intra_host": link, "inter_host": link}, f)


def fake_run(raw, label, ranks, drift_of_round, predicted_of_round, launch_of_round=None, true_us=TRUE_US,
             measured_us=None):
    """`true_us` predicted (times the round's prediction factor) and, unless `measured_us` is
    given, measured (times the round's drift)."""
    measured = measured_us or true_us
    for rnd, drift in drift_of_round.items():
        f = f"{raw}/{label}-r{rnd}"
        write(f"{f}-p2p.json", [{"kind": "measured", "test": "latency", "link": "inter-host", "bytes": b,
                                 "p50_us": drift * b / 1000} for b in (1024, 65536)])
        model(f"{f}-model.json")
        pred = predicted_of_round[rnd]
        write(f"{f}-allreduce-predicted.json",
              [{"algorithm": a, "bytes": b, "predicted_us": us * pred} for (a, b), us in true_us.items()])
        # The same fit without an added cost: everything predicted at half the time.
        write(f"{f}-allreduce-predicted-no-written.json",
              [{"algorithm": a, "bytes": b, "predicted_us": us * pred / 2} for (a, b), us in true_us.items()])
        write(f"{f}-allreduce-run-all.json",
              [{"algorithm": a, "bytes": b, "ranks": ranks, "p50_us": us * drift, "errors": 0}
               for (a, b), us in measured.items()])
        if launch_of_round:
            # The sweep's own launch probed its links (run --probe-links) and saw `launch`.
            launch = launch_of_round[rnd]
            write(f"{f}-allreduce-run-all-links.json", [{"kind": "measured", "test": "exchange", "link": "inter-host",
                                                         "bytes": 65536, "p50_us": launch * 65.536}])
            write(f"{f}-allreduce-run-all-links-predicted.json",
                  [{"algorithm": a, "bytes": b, "predicted_us": us * launch} for (a, b), us in true_us.items()])
            write(f"{f}-p2p.json", [{"kind": "measured", "test": "exchange", "link": "inter-host", "bytes": 65536,
                                     "p50_us": predicted_of_round[rnd] * 65.536}])


class CompareModel(unittest.TestCase):
    def run_on(self, judged, launch=False, env=None):
        d = tempfile.mkdtemp()
        raw = os.path.join(d, "raw")
        os.makedirs(raw)
        with open(f"{raw}/layouts.txt", "w") as f:
            # validate_model.sh's env column came later: a file without it still reads.
            f.write("label hosts ranks_per_host profile from_bytes to_bytes judged" + (" env" if env else "") + "\n")
            f.write(f"lay 2 1 1gbe 1024 65536 {judged}" + (f" {env}" if env else "") + "\n")
        if launch:
            # Rounds 2 and 3 are 2x slower; their probe launches missed it, the sweep's own launch did not.
            fake_run(raw, "lay", 2, {1: 1.0, 2: 2.0, 3: 2.0}, {1: 1.0, 2: 1.0, 3: 1.0}, {1: 1.0, 2: 2.0, 3: 2.0})
        else:
            # Round 2 is 2x slower, and its probe saw it: same-run predicts it, fit-once does not.
            fake_run(raw, "lay", 2, {1: 1.0, 2: 2.0, 3: 2.0}, {1: 1.0, 2: 2.0, 3: 2.0})
        r = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True)
        # Without matplotlib it writes everything but the plot, says so and exits 1.
        self.assertTrue(r.returncode == 0 or "no plot" in r.stderr, r.stderr)
        with open(os.path.join(d, "SUMMARY.md")) as f:
            return d, f.read()

    def test_same_run_cancels_drift_fit_once_carries_it(self):
        _, summary = self.run_on("yes")
        row = next(l for l in summary.splitlines() if l.startswith("| lay | ≥ 64 KiB |"))
        cells = [c.strip() for c in row.split("|")[1:-1]]
        self.assertEqual(cells[3], "probe launch")
        self.assertEqual(cells[4], "0.0%")   # same run median
        self.assertEqual(cells[6], "0.0%")   # the probe launch: the same predictions here
        self.assertEqual(cells[8], "50.0%")  # fit once: predicts round 1's speed for 2x slower rounds
        self.assertEqual(cells[10], "yes")
        ratio = next(l for l in summary.splitlines() if l.startswith("| lay | 2 |"))
        self.assertIn("| 0.0% |", ratio)
        drift = next(l for l in summary.splitlines() if l.startswith("| lay | latency | inter-host | 2 |"))
        self.assertIn("2.00", drift)

    def test_pairs_priced_alike_show_what_the_measurement_alone_adds(self):
        # ring and tree predicted alike at 64 KiB, ring measured 10% slower: that pair's error
        # is the measurement's; at 1 KiB they are priced apart and do not count.
        d = tempfile.mkdtemp()
        raw = os.path.join(d, "raw")
        os.makedirs(raw)
        with open(f"{raw}/layouts.txt", "w") as f:
            f.write("label hosts ranks_per_host profile from_bytes to_bytes judged\nlay 2 1 1gbe 1024 65536 yes\n")
        alike = {("ring", 65536): 100.0, ("tree", 65536): 100.0, ("ring", 1024): 10.0, ("tree", 1024): 8.0}
        measured = dict(alike)
        measured[("ring", 65536)] = 110.0
        fake_run(raw, "lay", 2, {1: 1.0, 2: 1.0, 3: 1.0}, {1: 1.0, 2: 1.0, 3: 1.0}, true_us=alike,
                 measured_us=measured)
        r = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True)
        self.assertTrue(r.returncode == 0 or "no plot" in r.stderr, r.stderr)
        with open(os.path.join(d, "SUMMARY.md")) as f:
            ratio = next(l for l in f.read().splitlines() if l.startswith("| lay | 2 |"))
        cells = [c.strip() for c in ratio.split("|")[1:-1]]
        self.assertEqual(cells[-2], "10.0% (1)")

    def test_links_of_the_sweeps_own_launch_judge_it(self):
        _, summary = self.run_on("yes", launch=True)
        row = next(l for l in summary.splitlines() if l.startswith("| lay | ≥ 64 KiB |"))
        cells = [c.strip() for c in row.split("|")[1:-1]]
        self.assertEqual(cells[3], "same launch")
        self.assertEqual(cells[4], "0.0%")   # judged: the sweep's own links saw the slowdown
        self.assertEqual(cells[6], "50.0%")  # the probe launch did not
        self.assertEqual(cells[10], "yes")
        # Round 2's sweep launch met links 2x slower than its probe launch.
        self.assertIn("| lay | 2 | allreduce-run-all | – | 2.00 | – | – |", summary)

    def test_each_added_cost_shows_its_effect(self):
        _, summary = self.run_on("yes")
        self.assertIn("| layout | sizes | with all | without written |", summary)
        row = next(l for l in summary.splitlines() if l.startswith("| lay | ≥ 64 KiB | 0.0% (0.0%) |"))
        self.assertTrue(row.endswith("| 50.0% (50.0%) |"), row)

    def test_a_layouts_variables_are_named(self):
        _, summary = self.run_on("yes", env="UCX_RNDV_THRESH=inf")
        line = next(l for l in summary.splitlines() if l.startswith("- **lay**"))
        self.assertIn("every launch with UCX_RNDV_THRESH=inf", line)
        _, summary = self.run_on("yes", env="-")
        self.assertNotIn("every launch with", summary)

    def test_oversubscribed_layout_is_reported_not_judged(self):
        _, summary = self.run_on("no")
        row = next(l for l in summary.splitlines() if l.startswith("| lay | ≥ 64 KiB |"))
        self.assertTrue(row.endswith("| not judged |"))

    def test_errors_csv_has_one_row_per_point(self):
        d, _ = self.run_on("yes")
        with open(os.path.join(d, "errors.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 1 + len(TRUE_US))


class ScaleSummary(unittest.TestCase):
    """--scale's model best table: a size is answered only where no algorithm was refused."""

    def test_a_refused_algorithm_leaves_its_size_unanswered(self):
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw")
            os.makedirs(raw)
            row = {"algorithm": "ring", "bytes": 1024, "method": "symmetric", "symmetry": "", "predict_seconds": 0.5}
            for order in ("steps", "dataflow"):
                for coll in ("allreduce", "broadcast", "reduce"):
                    write(f"{raw}/scale-{coll}-{order}.json", [dict(row, collective=coll)])
            write(f"{raw}/best-broadcast-65536.json",
                  [{"algorithm": a, "bytes": b, "place": 1} for a in ("binomial", "scatter_allgather")
                   for b in (1024, 8192)] + [{"algorithm": "binomial", "bytes": 65536, "place": 1}])
            with open(f"{raw}/best-broadcast-65536.stderr", "w") as f:
                f.write("collbench: cannot predict scatter_allgather at 65536 bytes: too many\n"
                        "collbench: error: some predictions are missing (see above); the others are written\n")
            with open(f"{raw}/best-broadcast-65536.ms", "w") as f:
                f.write("2500\n")
            subprocess.run([sys.executable, SCRIPT, "--scale", d], check=True)
            with open(os.path.join(d, "SUMMARY.md")) as f:
                summary = f.read()
            self.assertIn("| 65536 | broadcast | 3 | 2 | scatter_allgather at 64 KiB | 2.5 |", summary)
            self.assertNotIn("| 8192 |", summary)


if __name__ == "__main__":
    unittest.main()
