#!/usr/bin/env python3
"""The tracked tree stays small: every clone, CI run and copy to a GPU machine carries it (a copy
sent to a GPU machine may hold 64 MiB in all). Fails when the tracked files add up to more than
the budget or one file is over the per-file limit; skipped (77) outside a git checkout.

  tests/cli/tree_budget.py ROOT [--budget-mb 25] [--file-mb 2]
"""
import argparse
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--budget-mb", type=float, default=25.0)
ap.add_argument("--file-mb", type=float, default=2.0)
a = ap.parse_args()
r = subprocess.run(["git", "-C", a.root, "ls-files", "-z", "--cached"], capture_output=True)
if r.returncode != 0:
    print(f"tree_budget: {a.root} is not a git checkout: skipped")
    sys.exit(77)
import os  # noqa: E402
total, big = 0, []
names = [n for n in r.stdout.decode().split("\0") if n]
for n in names:
    path = os.path.join(a.root, n)
    if not os.path.isfile(path):
        continue  # deleted in the work tree, not yet committed
    size = os.path.getsize(path)
    total += size
    if size > a.file_mb * 1e6:
        big.append((size, n))
for size, n in sorted(big, reverse=True):
    print(f"tree_budget: {n} is {size / 1e6:.2f} MB, over the {a.file_mb:g} MB a file may take")
print(f"tree: {total / 1e6:.2f} MB in {len(names)} files (budget {a.budget_mb:g} MB, no file over {a.file_mb:g} MB)")
if total > a.budget_mb * 1e6:
    print(f"tree_budget: the tracked tree is over its budget; scripts/evidence prune reports/<board> "
          f"moves superseded evidence out")
sys.exit(1 if big or total > a.budget_mb * 1e6 else 0)
