"""Checks that every repository path the documentation names exists in the repository.

Reads the tracked Markdown files and the comments of the tracked Rust, TOML, shell and Python
files; takes the targets of Markdown links and the words that start with one of the
repository's top folders (crates/, docs/, scripts/, configs/, tests/, .ci/), relative to the
repository root or, inside a crate, to the crate; and prints each one that names no tracked
file or folder. Names that stand for a family of files (`configs/NAME.toml`) are skipped.
Exits 1 when one is missing. Run from anywhere: `python3 scripts/check_paths.py`.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
KNOWN = set(FILES)
for f in FILES:
    d = os.path.dirname(f)
    while d:
        KNOWN.add(d)
        d = os.path.dirname(d)

LINK = re.compile(r"\]\(([^)#\s]+)")
WORD = re.compile(r"(?<![\w/.$~-])((?:crates|docs|scripts|configs|tests|\.ci)/[\w./-]*\w)")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]+\b")


def comment_lines(path):
    """The lines of `path` that are documentation: all of a Markdown file, the comments of code."""
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            text = line.lstrip()
            if path.endswith(".md") or (path.endswith(".rs") and text.startswith("//")) or text.startswith("#"):
                yield n, line


def named(path, line):
    """The repository paths `line` of `path` names, each with the folders it may be relative to."""
    for m in LINK.finditer(line):
        target = m.group(1)
        if "://" in target or "::" in target or target.startswith(("mailto:", "mod@")):
            continue
        yield target, [os.path.dirname(path)]
    crate = "/".join(path.split("/")[:2]) if path.startswith("crates/") else None
    for m in WORD.finditer(line):
        yield m.group(1), ["", crate] if crate else [""]


def main():
    missing = []
    for path in FILES:
        if not path.endswith((".md", ".rs", ".toml", ".sh", ".py")):
            continue
        for n, line in comment_lines(path):
            seen = set()
            for target, bases in named(path, line):
                if target in seen or PLACEHOLDER.search(target):
                    continue
                seen.add(target)
                if not any(os.path.normpath(os.path.join(b, target)) in KNOWN for b in bases if b is not None):
                    missing.append(f"{path}:{n}: {target}")
    for m in missing:
        print(m)
    print(f"check_paths: {len(missing)} missing paths in {len(FILES)} tracked files")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
