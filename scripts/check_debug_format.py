"""Checks that no line a user sees is written with Debug formatting (`{x:?}`, `{:#?}`).

Reads the tracked Rust files under `crates/*/src/` (tests, benches and examples are not
shipped), leaves out the items marked `#[cfg(test)]` and the bodies of `impl ... Debug for`
blocks (they are Debug output by design), and prints each `?` placeholder found in a string
literal elsewhere. A placeholder is allowed inside the message of `panic!`, `assert!`,
`assert_eq!`, `assert_ne!`, their `debug_` forms, `unreachable!` and `.expect(...)`, which only
a developer reads, and on a line that carries, or follows, a comment giving a reason as
`// debug-format: REASON` (for a type with no Display, where nothing else works).
Exits 1 when one is found. Run from anywhere: `python3 scripts/check_debug_format.py`.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = re.compile(r"crates/[^/]+/src/.+\.rs")
ALLOWED = re.compile(r"(debug_)?assert(_eq|_ne)?|panic|unreachable")
MARKER = re.compile(r"^//\s*debug-format:\s*\S")
TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<string>b?r(?P<hashes>\#*)".*?"(?P=hashes)|b?"(?:[^"\\]|\\.)*")
    |(?P<char>b?'(?:\\(?:u\{[0-9a-fA-F]+\}|x..|.)|[^\\'\n])')
    |(?P<word>[A-Za-z_]\w*)
    |(?P<other>\S)""",
    re.DOTALL | re.VERBOSE,
)


def tokens(text):
    """The tokens of `text` as (kind, text, line of their first character)."""
    line = 1
    last = 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", last, m.start())
        last = m.start()
        yield m.lastgroup, m.group(), line


def debug_placeholders(literal, line):
    """The lines of the Debug placeholders (`{x:?}`, `{:#?}`, `{:x?}`) in a string literal."""
    i = 0
    while i < len(literal):
        if literal.startswith("{{", i):
            i += 2
        elif literal[i] == "{":
            end = literal.find("}", i)
            if end < 0:
                return
            spec = literal[i + 1 : end]
            if ":" in spec and spec.endswith("?") and "\n" not in spec:
                yield line + literal.count("\n", 0, i)
            i = end + 1
        else:
            i += 1


def item_header(words, n):
    """The words of the item that starts at `words[n]`, up to its `{` or `;`."""
    end = n
    while end < len(words) and words[end] not in ("{", ";"):
        end += 1
    return words[n:end]


def offences(text):
    """The lines of `text` that hold a Debug placeholder outside the places allowed."""
    toks = list(tokens(text))
    marked = {line + i for kind, t, line in toks if kind == "comment" and MARKER.match(t) for i in (0, 1)}
    toks = [tok for tok in toks if tok[0] != "comment"]
    words = [t for _, t, _ in toks]
    stack = []  # one entry per open bracket: "skip", "allowed" or None
    pending = None  # depth at which a skipped item (cfg(test), impl Debug) waits for its `{`
    for n, (kind, t, line) in enumerate(toks):
        before = words[max(0, n - 6) : n]
        if t == "]" and "".join(before) == "#[cfg(test)":
            pending = len(stack)
        elif t == "impl":
            header = item_header(words, n)
            if any(a == "Debug" and b == "for" for a, b in zip(header, header[1:])):
                pending = len(stack)
        elif t == ";" and pending == len(stack):
            pending = None
        elif kind == "other" and t in ("(", "[", "{"):
            if t == "{" and pending == len(stack):
                stack.append("skip")
                pending = None
            elif before[-2:] == [".", "expect"] or len(before) > 1 and before[-1] == "!" and ALLOWED.fullmatch(before[-2]):
                stack.append("allowed")
            else:
                stack.append(None)
        elif kind == "other" and t in (")", "]", "}") and stack:
            stack.pop()
        elif kind == "string" and "skip" not in stack and "allowed" not in stack:
            yield from (at for at in debug_placeholders(t, line) if at not in marked)


def main():
    files = subprocess.run(["git", "ls-files", "crates"], cwd=ROOT, capture_output=True, text=True, check=True)
    paths = [p for p in files.stdout.split() if SOURCE.fullmatch(p)]
    found = []
    for path in paths:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            found += [f"{path}:{line}" for line in sorted(set(offences(f.read())))]
    for f in found:
        print(f)
    print(f"check_debug_format: {len(found)} Debug placeholders in {len(paths)} source files")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
