#!/usr/bin/env python3
"""Sources say why the code is as it is now: no line names an issue, a probe, a session or a
numbered step of the work's history, and none points outside the repository.

    tests/cli/source_references.py <source root>     (ctest: cli.source_references)
    tests/cli/source_references.py --self-test        (ctest: cli.source_references_catches)

A reader of the repository can follow neither a tracker's number nor a path on another
machine: the reason goes into the comment in the present tense, the measurement that supports
it into kernels/NOTES.md under a stable heading (and into the commit message).
Scanned: every tracked source, build file, script and document (C++, CUDA, CMake, Make, shell,
Python, gnuplot, JSON outside tests/, markdown). Not scanned: kernels/NOTES.md, the history log
where such names belong; the evidence folders reports/<board>/ (what ran, as it ran); the report
tool's rendered golden outputs and the recorded data under tests/ (fixtures of runs).
A markdown document named in capitals (SEEDS.md) must be a file of the repository, and a
comment that cites a section of kernels/NOTES.md by its heading must name one it has.
Prints file:line and what it names for each problem and exits 1, or prints a summary, exit 0.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

# Folders under reports/ that hold the report tool's sources and inputs, not evidence.
REPORT_SOURCE_FOLDERS = {"run", "published"}
HISTORY_LOG = "kernels/NOTES.md"
SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".inc", ".py", ".sh", ".cmake", ".gp", ".in",
            ".txt", ".md", ".json", ".yml", ".yaml", ".toml", ".cfg"}
NAMES = {"Makefile", "Dockerfile", "CMakeLists.txt", ".gitignore", ".dockerignore"}
TEST_DATA_SUFFIXES = {".json", ".gp", ".dat", ".csv", ".jsonl"}

# What a line may not name; case-insensitive. "#30" only as a word of prose: not a colour
# ('#000000'), not a list index ("#1:"), not a preprocessor or shell token.
PATTERNS = [
    ("names an issue", re.compile(r"\bissues?[ _-]*#?\d+|(?:^|[\s(\[,;])#\d{1,4}\b(?![:\w])", re.I)),
    ("names a probe", re.compile(r"\bprobes?[ _-]*v?\d+", re.I)),
    ("names a session", re.compile(r"\bsessions?[ _-]*\d+|\bclosing note", re.I)),
    ("names a step of the history", re.compile(r"\bsteps?[ _-]*\d+", re.I)),
    ("points outside the repository",
     re.compile(r"\.\./shared/|(?<![\w.~$}])/(?:work|home|root|Users)/", re.I)),
]
# A relative path that climbs out of the repository from the file's own folder.
CLIMB = re.compile(r"(?<![\w./}$])((?:\.\./)+)[\w.-]")
# A document named the way the project names its own (NOTES.md, SEEDS.md): it must be one of
# the repository's files.
DOCUMENT = re.compile(r"\b[A-Z][A-Z0-9_-]*\.md\b")


def tracked_files(root, use_git=True):
    """The files git tracks under root, or, outside a git checkout, every file but hidden and
    build folders."""
    try:
        if not use_git:
            raise OSError("walk the tree")
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
            rel = pathlib.Path(folder).relative_to(root)
            files += [str(rel / n) if str(rel) != "." else n for n in names]
        return files


def scanned(rel):
    parts = pathlib.PurePosixPath(rel).parts
    path = pathlib.PurePosixPath(rel)
    if rel == HISTORY_LOG:
        return False
    if len(parts) > 2 and parts[0] == "reports" and parts[1] not in REPORT_SOURCE_FOLDERS:
        return False  # the evidence store: records, logs and rendered pages of a board
    if parts[0] == "tests" and (any(p.startswith("golden") for p in parts) or
                                path.suffix in TEST_DATA_SUFFIXES):
        return False  # rendered outputs and recorded runs the tests compare against
    return path.suffix in SUFFIXES or path.name in NAMES or path.suffix == ""


def problems_in(root, rel, names):
    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []  # binary or unreadable: no source
    if pathlib.PurePosixPath(rel).suffix == "" and pathlib.PurePosixPath(rel).name not in NAMES \
            and not text.startswith("#!"):
        return []  # an extensionless file is scanned only as a script
    found = []
    folder = os.path.dirname(rel)
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in PATTERNS:
            m = pattern.search(line)
            if m:
                found.append((rel, number, what, m.group(0).strip()))
                break
        else:
            for m in CLIMB.finditer(line):
                if os.path.normpath(os.path.join(folder, m.group(1))).startswith(".."):
                    found.append((rel, number, "points outside the repository", m.group(0)))
                    break
            else:
                for m in DOCUMENT.finditer(line):
                    if m.group(0) not in names:
                        found.append((rel, number, "names a document the repository lacks",
                                      m.group(0)))
                        break
    return found


# A citation of a section of kernels/NOTES.md: the file, a comma, the section's heading in
# double quotes, and optionally a colon and an entry's name up to a closing parenthesis; read
# across the comment's line breaks. The section and the entry must be headings of NOTES.md.
CITATION = re.compile(r'NOTES\.md, "([^"]+)"(?::\s*([^)]+?)\))?')
LINE_JOIN = re.compile(r"\s*\n\s*(?://+|#+)?\s*")


def citation_problems(root, rel, headings):
    try:
        lines = (root / rel).read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return []
    found = []
    for number, line in enumerate(lines, 1):
        if "NOTES.md," not in line:
            continue
        window = LINE_JOIN.sub(" ", "\n".join(lines[number - 1:number + 3]))
        m = CITATION.search(window, window.find("NOTES.md,"))
        if not m:
            continue
        section, entry = m.group(1), m.group(2)
        if section not in headings:
            found.append((rel, number, "cites a section kernels/NOTES.md lacks", section))
        elif entry and not any(entry.lower() in h.lower() for h in headings[section]):
            found.append((rel, number, "cites an entry kernels/NOTES.md lacks", entry))
    return found


def notes_headings(root):
    """NOTES.md's level-2 headings, each with the level-3 headings below it."""
    headings, current = {}, None
    path = pathlib.Path(root) / HISTORY_LOG
    if not path.is_file():
        return headings
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            headings[current] = []
        elif line.startswith("### ") and current is not None:
            headings[current].append(line[4:].strip())
    return headings


def scan(root, use_git=True):
    root = pathlib.Path(root)
    every = tracked_files(root, use_git)
    names = {pathlib.PurePosixPath(f).name for f in every}
    files = [f for f in every if scanned(f) and (root / f).is_file()]
    problems = []
    headings = notes_headings(root)
    for rel in sorted(files):
        problems += problems_in(root, rel, names)
        problems += citation_problems(root, rel, headings)
    return files, problems


def self_test():
    """Plants one line of each kind, and lines that must pass, in a small tree, and checks
    that exactly the planted ones are named (the patterns are spelled apart here so that this
    file passes its own scan)."""
    iss, pro, ses, ste = "iss" + "ue", "pro" + "be", "sess" + "ion", "st" + "ep"
    cite = "NOTES" + '.md, "Why X": '
    bad = {
        "kernels/a.cuh": f"// faster ({iss} 30, {pro} 4)\n",
        "kernels/b.cu": f"  // see {ses} 5 of the work\n",
        "common/c.hpp": f"// since {ste} 17 the order is static\n",
        "scripts/d.sh": "#!/bin/sh\n# shapes from .." + "/shared/SEEDS.md\n",
        "record/e.cpp": "// the log is /wo" + "rk/main/x.log\n",
        "reports/f.cpp": f"// asked for in #{39}\n",
        "tests/g.py": f"# {iss}30-s4-{pro}8-48ae06e.log\n",
        "kernels/h.cuh": '#include "..' + '/../../outside.hpp"\n',
        "README.md": f"That {ses}'s closin" + "g note has it.\n",
        "profiler/i.cpp": "// needs 8 passes (ANCHORS" + ".md)\n",
        "kernels/j.cuh": '// three consumers (kernels/' + cite + 'the other\n// thing)\n',
    }
    good = {
        "kernels/ok.cu": "#include \"kernels/x.cuh\"\n// two consumers: a session of records\n"
                         "// colour '#000000', kernel #1: first\n",
        "reports/ok.cpp": "#include \"../reports/render.hpp\"\n// kernels/NOTES.md, README.md\n",
        HISTORY_LOG: f"{iss} 30 {pro} 4 {ses} 5 {ste} 17\n## Why X\n### Phase 5: the thing\n",
        "kernels/cited.cuh": '// two consumers (kernels/' + cite + 'the\n// thing)\n',
        "reports/h100/logs/x.md": f"{iss} 30\n",
        "tests/reports/golden/r.md": "/ro" + "ot/out/results\n",
        "tests/fixtures/run.json": '"/ro' + 'ot/out/results"\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for rel, text in {**bad, **good}.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        _, problems = scan(root, use_git=False)
    named = sorted({p[0] for p in problems})
    if named != sorted(bad):
        print("self-test: expected problems in", sorted(bad))
        print("self-test: found problems in   ", named)
        for p in problems:
            print("  %s:%d: %s: %s" % p)
        return 1
    print(f"self-test: all {len(bad)} planted lines named, {len(good)} allowed files passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    files, problems = scan(sys.argv[1])
    for p in problems:
        print("%s:%d: %s: %s" % p)
    if problems:
        print(f"source_references: {len(problems)} lines to mend: say the reason in the present "
              f"tense, and put the history in {HISTORY_LOG} under a heading a comment can cite")
        return 1
    print(f"source_references: {len(files)} files, none names an issue, probe, session or step, "
          "points outside the repository or cites a NOTES.md heading it lacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
