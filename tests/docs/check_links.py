#!/usr/bin/env python3
"""Every relative link and image in the repository's Markdown files resolves: the file
exists, and a #fragment names a heading of the file it points into (GitHub's anchors:
lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats).
External links (http, https, mailto) are not fetched.

usage: check_links.py REPO_ROOT
Exit 0 when every link resolves; otherwise one line per broken link and exit 1."""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def anchors(path, cache={}):
    if path not in cache:
        seen, out, fenced = {}, set(), False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            m = None if fenced else HEADING.match(line)
            if not m:
                continue
            text = re.sub(r"`|\*|_(?=\w)|(?<=\w)_|\[|\]\([^)]*\)|\]", "", m.group(2))
            slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = out
    return cache[path]


def links(path):
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            for m in LINK.finditer(line):
                yield number, m.group(1)


def main(root):
    root = pathlib.Path(root).resolve()
    files = subprocess.run(["git", "-C", str(root), "ls-files", "*.md"], capture_output=True, text=True,
                           check=True).stdout.split()
    broken = 0
    checked = 0
    for name in files:
        md = root / name
        for number, target in links(md):
            if re.match(r"[a-z]+:", target):
                continue
            checked += 1
            file_part, _, fragment = target.partition("#")
            dest = (md.parent / file_part).resolve() if file_part else md
            problem = None
            if not dest.exists():
                problem = "no such file"
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                problem = f"no heading #{fragment} in {dest.relative_to(root)}"
            if problem:
                broken += 1
                print(f"{name}:{number}: {target}: {problem}")
    print(f"{checked} relative links in {len(files)} Markdown files: {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
