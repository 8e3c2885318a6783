#!/usr/bin/env bash
# readme_table.sh REPORT REPO: attnlab-report readme-table on a synthetic records root built
# from the fixture records (phase 1 with both seed shapes; phase 4 with its latency result
# removed; phase 2 in the phase table without any record; a newer failed phase-1 record that
# must not be used): "not measured" where a phase has no figure, the figures those of the
# progression's records, the text outside the markers kept byte for byte, a second run
# changing nothing, and the README table agreeing with the progression on the committed records.
set -u
report=$1; repo=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() {
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
root=$tmp/records
mkdir -p "$root/1/20261122T215642Z-dcabdff" "$root/4/20261122T215639Z-dcabdff" "$root/1/20991231T000000Z-fffffff"
cp "$repo/tests/fixtures/h100-phase1-run.json" "$root/1/20261122T215642Z-dcabdff/run.json"
python3 - "$repo/tests/fixtures" "$root" <<'PY'
import json, sys
fx, root = sys.argv[1], sys.argv[2]
r4 = json.load(open(f"{fx}/h100-phase4-run.json"))
r4["results"] = [x for x in r4["results"] if x["name"] != "1x8x512x64"]
json.dump(r4, open(f"{root}/4/20261122T215639Z-dcabdff/run.json", "w"), indent=1)
r1 = json.load(open(f"{fx}/h100-phase1-run.json"))
r1["status"] = "failed"
r1["started_utc"] = "2099-12-31T00:00:00Z"
for x in r1["results"]:
    for t in x["timing"].values():
        t["median_ns"] = t["median_ns"] * 100  # a figure that must not appear
json.dump(r1, open(f"{root}/1/20991231T000000Z-fffffff/run.json", "w"), indent=1)
json.dump({"schema": "attnlab.phases/1", "phases": [{"id": i, "title": i, "technique": "", "required_cc": 0}
           for i in ("1", "2", "4")]}, open(f"{root}/phases.json", "w"))
PY
printf 'before\n<!-- attnlab:results begin -->\nold table\n<!-- attnlab:results end -->\nafter\n' >"$tmp/README.md"
"$report" readme-table "$root" "$tmp/README.md" --progression "$tmp/progression" >/dev/null; rc=$?
check "exit 0" test "$rc" -eq 0
cat "$tmp/README.md"
check "text before the markers kept" test "$(head -1 "$tmp/README.md")" = before
check "text after the markers kept" test "$(tail -1 "$tmp/README.md")" = after
check "the old table replaced" test "$(grep -c 'old table' "$tmp/README.md")" -eq 0
check "a phase without a record: not measured" has "$tmp/README.md" "| 2 | not measured | not measured | not measured | not measured | none |"
check "a shape the phase did not time: not measured" grep -qE '^\| 4 [^|]*\| [0-9.]+ \| [0-9.]+ \| not measured \| not measured \| throughput: \[4/20261122T215639Z-dcabdff\]\(records/4/20261122T215639Z-dcabdff/run.json\) on GPU-[0-9a-f]+ \|$' "$tmp/README.md"
check "the ok record, not the newer failed one" has "$tmp/README.md" "throughput, latency: [1/20261122T215642Z-dcabdff](records/1/20261122T215642Z-dcabdff/run.json)"
check "the progression linked" has "$tmp/README.md" "[progression report](progression/report.md)"
cp "$tmp/README.md" "$tmp/first.md"
"$report" readme-table "$root" "$tmp/README.md" --progression "$tmp/progression" >/dev/null
check "a second run changes nothing" cmp -s "$tmp/first.md" "$tmp/README.md"
# The committed README agrees with the committed progression, figure by figure.
check "README and progression agree (committed records)" python3 - "$repo" <<'PY'
import re, sys
repo = sys.argv[1]
def rows(path, begin=None):
    text = open(path).read()
    if begin:
        text = text[text.index(begin):]
    out, header = {}, None
    for line in text.splitlines():
        if not line.startswith("| "):
            if header and out: break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None: header = cells; continue
        out[cells[0]] = dict(zip(header, cells))
    return out
readme = rows(f"{repo}/README.md", "<!-- attnlab:results begin -->")
prog = rows(f"{repo}/reports/h100/progression/report.md")
checked = 0
for phase, r in readme.items():
    for shape, col in (("throughput", "throughput 16x16x2048x64 TFLOPS"), ("latency", "latency 1x8x512x64 TFLOPS")):
        mine = r[f"{shape} TFLOPS"]
        theirs = prog.get(phase, {}).get(col, "not run")
        if mine == "not measured":
            ok = theirs in ("not run", "not timed")
        else:
            a = float(re.match(r"[0-9.]+", mine).group())
            b = float(re.match(r"[0-9.]+", theirs).group()) if re.match(r"[0-9.]+", theirs) else None
            ok = b is not None and abs(a - b) <= 5e-4 * b
        if not ok:
            print(f"{phase} {shape}: README {mine}, progression {theirs}")
            sys.exit(1)
        checked += 1
print(f"{checked} figures agree")
sys.exit(0 if checked >= 2 * len(readme) and readme else 1)
PY
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
