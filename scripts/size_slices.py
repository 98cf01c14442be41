#!/usr/bin/env python3
"""Splits a collbench run's size sweep into slices of N sizes, so that one long launch can
be several short ones measuring the same sizes (scripts/tune_library.sh, JUDGE_SIZES).

  size_slices.py rest ARGS...       ARGS without -b/--minbytes and -e/--maxbytes, one per line
  size_slices.py slices N ARGS...   per slice "MIN MAX": -b and -e that make collbench's
                                    sweep (harness/common/sizes.cpp) step through the same
                                    sizes, N to a slice

Sizes follow collbench's sweep: from -b, each the previous times -f, rounded down (at
least one more), up to -e; defaults 8, 64M and 2 as collbench's. A slice's -b and -e must
be whole elements of any datatype, so every size must be a multiple of 8 bytes (refused
otherwise: collbench would round sizes to the datatype, which a slice cannot follow). A
sweep from 0 is one slice.
"""
import math
import sys

SHIFT = {"K": 10, "M": 20, "G": 30}
OPTIONS = {"-b": "min", "--minbytes": "min", "-e": "max", "--maxbytes": "max", "-f": "factor",
           "--stepfactor": "factor"}


def parse_size(text):
    """collbench's parse_size: a whole number of bytes, optionally K, M or G (and B)."""
    digits = text.rstrip("bB") if text[-1:] in "bB" and text[-2:-1].upper() in SHIFT else text
    unit = digits[-1:].upper()
    if unit in SHIFT:
        return int(digits[:-1]) << SHIFT[unit]
    return int(digits)


def split(args):
    """({'min'|'max'|'factor': text}, the arguments other than -b and -e)."""
    found, rest, i = {}, [], 0
    while i < len(args):
        a, taken = args[i], [args[i]]
        name, _, value = a.partition("=")
        if name in OPTIONS and name.startswith("--") and value:
            found[OPTIONS[name]] = value
        elif a in OPTIONS and i + 1 < len(args):
            found[OPTIONS[a]] = args[i + 1]
            taken.append(args[i + 1])
            i += 1
        elif a[:2] in OPTIONS and len(a) > 2 and not a.startswith("--"):
            found[OPTIONS[a[:2]]] = a[2:]
        else:
            taken = []
            rest.append(a)
        if taken and OPTIONS.get(name if name.startswith("--") else a[:2]) == "factor":
            rest.extend(taken)
        i += 1
    return found, rest


def steps(lo, hi, factor):
    """The sweep's unrounded steps from lo up to hi (collbench aligns each to the datatype
    afterwards, so a slice starting at one of these continues the same sweep)."""
    out, s = [], lo
    while s <= hi:
        out.append(s)
        if factor <= 1:
            break
        s = max(s + 1, math.floor(s * factor))
    return out


def main(argv):
    if len(argv) >= 2 and argv[1] == "rest":
        rest = split(argv[2:])[1]
        if rest:
            print("\n".join(rest))
        return
    if len(argv) < 3 or argv[1] != "slices" or not argv[2].isdigit() or int(argv[2]) < 1:
        sys.exit(__doc__)
    per, (found, _) = int(argv[2]), split(argv[3:])
    # collbench itself would refuse these; say which here rather than with a traceback.
    values = {}
    for key, flag, default, parse in (("min", "-b", "8", parse_size), ("max", "-e", "64M", parse_size),
                                      ("factor", "-f", "2", float)):
        try:
            values[key] = parse(found.get(key, default))
        except ValueError:
            sys.exit(f"size_slices.py: {flag} must be " + ("a number" if key == "factor" else
                     "a size (e.g. 8, 64K, 64M)") + f", not '{found[key]}'")
    lo, hi = values["min"], values["max"]
    sweep = steps(lo, hi, values["factor"]) if lo > 0 else []
    if not sweep:
        print(f"{lo} {hi}")
        return
    odd = [x for x in sweep if x % 8]
    if odd:
        sys.exit(f"size_slices.py: the sweep's size {odd[0]} is not a multiple of 8 bytes, so it cannot be split "
                 "into launches of their own (e.g. -b 8 -f 2)")
    for i in range(0, len(sweep), per):
        chunk = sweep[i:i + per]
        # The last slice keeps the sweep's own end; the others end at their last step.
        print(f"{chunk[0]} {hi if i + per >= len(sweep) else chunk[-1]}")


if __name__ == "__main__":
    main(sys.argv)
