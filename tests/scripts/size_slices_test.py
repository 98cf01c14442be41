#!/usr/bin/env python3
"""size_slices.py: slices of a sweep step through exactly the sweep's sizes, N to a slice,
and 'rest' drops -b and -e in every spelling while keeping -f and everything else."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "size_slices.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
from size_slices import steps  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, check=True).stdout.split("\n")


class SizeSlices(unittest.TestCase):
    def slices(self, per, *args):
        return [tuple(int(x) for x in line.split()) for line in run("slices", str(per), *args) if line]

    def test_slices_cover_the_sweep_exactly(self):
        for per, args, lo, hi, f in ((6, ["-b", "8", "-e", "64M"], 8, 64 << 20, 2),
                                     (3, ["--minbytes=64", "-e", "300", "-f1.5"], 64, 300, 1.5),
                                     (4, ["-b", "1K", "--maxbytes", "64KB", "-f", "4"], 1024, 65536, 4),
                                     (30, [], 8, 64 << 20, 2)):
            got = self.slices(per, *args)
            joined = [s for a, b in got for s in steps(a, b, f)]
            self.assertEqual(joined, steps(lo, hi, f), args)
            self.assertTrue(all(len(steps(a, b, f)) == per for a, b in got[:-1]), got)
        self.assertEqual(self.slices(6, "-b", "8", "-e", "64M")[:2], [(8, 256), (512, 16384)])

    def test_sizes_a_slice_cannot_start_at_are_refused(self):
        # 8 x 1.5 = 12: not whole elements of an 8-byte datatype.
        r = subprocess.run([sys.executable, SCRIPT, "slices", "2", "-b", "8", "-e", "64", "-f", "1.5"],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("size 12 is not a multiple of 8 bytes", r.stderr)

    def test_sizes_that_are_not_sizes_are_refused_in_one_line(self):
        for args, says, bad in ((["-b", "eight", "-e", "64"], "-b must be a size", "eight"),
                                (["-b", "8", "-e", "64Q"], "-e must be a size", "64Q"),
                                (["-f", "x"], "-f must be a number", "x")):
            r = subprocess.run([sys.executable, SCRIPT, "slices", "2", *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1, args)
            self.assertNotIn("Traceback", r.stderr)
            # Only the bad value is named.
            self.assertRegex(r.stderr, "^size_slices.py: " + says + r"[^']*'" + bad + "'\n$")

    def test_a_sweep_from_zero_is_one_slice(self):
        self.assertEqual(self.slices(2, "-b", "0", "-e", "64"), [(0, 64)])

    def test_rest_drops_the_bounds_and_keeps_the_rest(self):
        rest = [a for a in run("rest", "-b", "8", "-e64M", "--minbytes=1", "--maxbytes", "9", "-n", "20", "-f", "2",
                               "--stepfactor=3", "--rounds", "3") if a]
        self.assertEqual(rest, ["-n", "20", "-f", "2", "--stepfactor=3", "--rounds", "3"])


if __name__ == "__main__":
    unittest.main()
