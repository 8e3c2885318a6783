#!/usr/bin/env python3
"""Size limits of the project's sources: no file over 600 lines, no host or __device__ function
over 80, no __global__ function over 220.

    tests/cli/source_sizes.py <source root>          (ctest: cli.source_sizes)

Scans kernels/ profiler/ record/ experiments/ reports/ common/ (C++, CUDA and Python files).
A function is found by a brace-depth scanner that skips comments, strings, character literals
and preprocessor lines: a brace block at namespace or class level whose header ends in a
parameter list (plus qualifiers) is a function. A kernel (__global__) composes its parts and may
take up to 220 lines; __device__ functions are held to the host functions' limit. What is still too big is listed in source_sizes_allow.txt with the reason;
an entry that is no longer over its limit fails too, so the list only shrinks.
Prints one line per problem and exits 1, or prints a summary line and exits 0.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_KERNEL_LINES = 220
LIMITS = {"function": MAX_FUNCTION_LINES, "device": MAX_FUNCTION_LINES, "global": MAX_KERNEL_LINES}
FOLDERS = ["kernels", "profiler", "record", "experiments", "reports", "common"]
CPP = {".cpp", ".hpp", ".cu", ".cuh", ".inc", ".h"}
SUFFIXES = CPP | {".py"}

# A function's header: a parameter list, then qualifiers, a trailing return type or a
# constructor's initialiser list.
FUNCTION_TAIL = re.compile(
    r"\)\s*(const|noexcept|override|final|mutable|&|\s)*(->\s*[\w:<>,\s*&]+)?$|\)\s*:\s*[\w:]+[({].*[)}]$")
CLASS_HEAD = re.compile(r"\b(struct|class|union|enum)\b[^()]*$")
NAME = re.compile(r"([~\w:]+)\s*\($")


TEMPLATE_HEAD = re.compile(r"^template\s*<[^<>]*(<[^<>]*>[^<>]*)*>\s*")
LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^()]*\)")


def signature(h):
    """A declaration's header without its template head (default template arguments hold '=')
    and without __launch_bounds__(...), so that the first '(' opens the parameter list."""
    return LAUNCH_BOUNDS.sub("", TEMPLATE_HEAD.sub("", h))


def code_only(text):
    """The text with comments, string and character literals blanked and preprocessor lines
    (with their continuations) emptied; line breaks kept so that line numbers hold."""
    out, i, n = [], 0, len(text)
    at_line_start, in_directive = True, False
    while i < n:
        c = text[i]
        if c == "\n":
            in_directive = in_directive and i > 0 and text[i - 1] == "\\"
            at_line_start = True
            out.append(c)
            i += 1
            continue
        if in_directive:
            i += 1
            continue
        if at_line_start and c == "#":
            in_directive = True
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000) is no character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(text):
    """(name, first line, line count) of every host function at namespace or class level."""
    code = code_only(text)
    found = []
    stack = []  # per open brace: "scope" (namespace, class, extern) or "other"
    header_start, header = None, []
    line = 1
    for c in code:
        if c == "\n":
            line += 1
            if header:
                header.append(" ")
            continue
        inside_function = any(k in LIMITS for k, _ in stack)
        if c == "{":
            h = " ".join("".join(header).split())
            if inside_function:
                kind = "other"
            elif h.startswith("namespace") or h.startswith('extern ""') or CLASS_HEAD.search(h):
                kind = "scope"
            elif FUNCTION_TAIL.search(h) and "=" not in signature(h).split("(")[0]:
                kind = "global" if "__global__" in h else "device" if "__device__" in h else "function"
            else:
                kind = "other"
            stack.append((kind, (header_start or line, h)))
            header_start, header = None, []
        elif c == "}":
            if stack:
                kind, (start, h) = stack.pop()
                if kind in LIMITS:
                    sig = signature(h)
                    name = NAME.search(sig[: sig.index("(") + 1]) if "(" in sig else None
                    found.append((name.group(1) if name else h[:40], start, line - start + 1, kind))
            header_start, header = None, []
        elif c == ";":
            if not inside_function:
                header_start, header = None, []
        elif not inside_function and not (stack and stack[-1][0] == "other"):
            if not header and not c.isspace():
                header_start = line
            header.append(c)
    return found


def python_functions(text):
    """(name, first line, line count) of every def, up to the next line at its indentation or less."""
    lines = text.split("\n")
    found = []
    for i, l in enumerate(lines):
        m = re.match(r"(\s*)def (\w+)", l)
        if not m:
            continue
        indent = len(m.group(1))
        end = i + 1
        while end < len(lines):
            s = lines[end]
            if s.strip() and len(s) - len(s.lstrip()) <= indent:
                break
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        found.append((m.group(2), i + 1, end - i, "function"))
    return found


def read_allow_list(path):
    allowed = {}
    for raw in path.read_text().splitlines():
        entry = raw.split("#", 1)[0].strip()
        if entry:
            allowed[entry] = raw
    return allowed


def main():
    if len(sys.argv) != 2:
        print("usage: source_sizes.py <source root>", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    allowed = read_allow_list(pathlib.Path(__file__).with_name("source_sizes_allow.txt"))
    over = {}  # allow-list key -> problem line
    files = functions_seen = 0
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            if "/h100/" in rel or "/h200/" in rel or "/cpu-2core/" in rel:
                continue  # committed reports and records, not sources
            text = path.read_text(errors="replace")
            files += 1
            n = text.count("\n") + (0 if text.endswith("\n") else 1)
            if n > MAX_FILE_LINES:
                over[rel] = f"{rel}: {n} lines (limit {MAX_FILE_LINES})"
            fs = python_functions(text) if path.suffix == ".py" else functions(text)
            functions_seen += len(fs)
            for name, start, length, kind in fs:
                if length > LIMITS[kind]:
                    key = f"{rel}:{name}"
                    over[key] = f"{rel}:{start}: {name}: {length} lines (limit {LIMITS[kind]})"
    problems = [line for key, line in sorted(over.items()) if key not in allowed]
    problems += [f"source_sizes_allow.txt: '{key}' is within its limit now: drop it from the list"
                 for key in sorted(allowed) if key not in over]
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok: {files} files, {functions_seen} functions; {len(allowed)} allowed over the limits "
          f"(source_sizes_allow.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
