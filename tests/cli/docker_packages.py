#!/usr/bin/env python3
"""docker_packages.py REPO: docker/Dockerfile and scripts/setup install the same packages,
both from the one list (docker/packages.txt). No Docker engine is needed: the Dockerfile's
instructions are read (continuation lines joined), every `apt-get install` in a RUN must name
no package by hand, only the command substitution that reads the list, and that substitution,
run here on the repository's list (the COPY destination mapped back to its source), must name
exactly the packages `scripts/setup --list` names. Also checks that setup really reads the list
(a package added to a copy of it appears in setup's list), so neither side can drift alone."""
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

repo = pathlib.Path(sys.argv[1])
dockerfile = repo / "docker" / "Dockerfile"
setup = repo / "scripts" / "setup"
problems = []


def instructions(text):
    """(keyword, argument) of each instruction, continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        if not cur and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cur += line
        if cur.strip():
            kw, _, arg = cur.strip().partition(" ")
            out.append((kw.upper(), arg.strip()))
        cur = ""
    return out


def substitutions(cmd):
    """The $(...) substitutions of a shell command (outermost), and the command without them."""
    subs, rest, i = [], "", 0
    while i < len(cmd):
        if cmd.startswith("$(", i):
            depth, j = 1, i + 2
            while j < len(cmd) and depth:
                depth += {"(": 1, ")": -1}.get(cmd[j], 0)
                j += 1
            subs.append(cmd[i + 2:j - 1])
            rest += " __SUBST__ "
            i = j
        else:
            rest += cmd[i]
            i += 1
    return subs, rest


ins = instructions(dockerfile.read_text())
copies = {}  # destination in the image -> source in the checkout
for kw, arg in ins:
    if kw == "COPY":
        *srcs, dst = shlex.split(arg)
        for s in srcs:
            if not s.startswith("--"):
                copies[dst] = s
docker_pkgs, installs = [], 0
for kw, arg in ins:
    if kw != "RUN":
        continue
    for cmd in re.split(r"&&|;|\|\|", substitutions(arg)[1]):
        words = cmd.split()
        if "apt-get" not in words or "install" not in words:
            continue
        installs += 1
        by_hand = [w for w in words[words.index("install") + 1:]
                   if not w.startswith("-") and w != "__SUBST__"]
        if by_hand:
            problems.append(f"Dockerfile: apt-get install names packages by hand: {' '.join(by_hand)} "
                            "(add them to docker/packages.txt instead)")
    for sub in substitutions(arg)[0]:
        for dst, src in copies.items():
            if dst in sub:
                sub = sub.replace(dst, str(repo / src))
                break
        else:
            continue
        out = subprocess.run(["sh", "-c", sub], capture_output=True, text=True, check=True)
        docker_pkgs += out.stdout.split()
if installs == 0:
    problems.append("Dockerfile: no apt-get install")
if not any(src == "docker/packages.txt" for src in copies.values()):
    problems.append("Dockerfile: does not COPY docker/packages.txt")

setup_out = subprocess.run([str(setup), "--list"], capture_output=True, text=True)
setup_pkgs = setup_out.stdout.split()
if setup_out.returncode != 0 or not setup_pkgs:
    problems.append(f"scripts/setup --list failed (exit {setup_out.returncode}): {setup_out.stderr.strip()}")
only_docker = sorted(set(docker_pkgs) - set(setup_pkgs))
only_setup = sorted(set(setup_pkgs) - set(docker_pkgs))
if only_docker:
    problems.append(f"only the Dockerfile installs: {' '.join(only_docker)}")
if only_setup:
    problems.append(f"only scripts/setup installs: {' '.join(only_setup)}")

# setup reads the list: a package added to a copy of it is named.
with tempfile.TemporaryDirectory() as tmp:
    copy = pathlib.Path(tmp) / "packages.txt"
    copy.write_text((repo / "docker" / "packages.txt").read_text() +
                    "attnlab-test-pkg     optional  cmd:attnlab-test-cmd  nothing\n")
    out = subprocess.run([str(setup), "--list"], capture_output=True, text=True,
                         env=dict(os.environ, ATTNLAB_PACKAGES=str(copy)))
    if "attnlab-test-pkg" not in out.stdout.split():
        problems.append("scripts/setup --list does not read ATTNLAB_PACKAGES's list")

for p in problems:
    print("FAIL: " + p)
if problems:
    sys.exit(1)
print(f"ok: Dockerfile and scripts/setup install the same {len(setup_pkgs)} packages: {' '.join(setup_pkgs)}")
