#!/usr/bin/env bash
# The evidence store (scripts/evidence): every board holds current, compressed evidence only;
# every path cited in the notes and READMEs resolves, in the tree or through an archive; a
# made-up citation is caught; prune refuses to drop a record no commit holds; an archived
# record comes back from git (show, restore) and a restore never overwrites. The git-history
# part is skipped (77) in a shallow clone.
set -uo pipefail
root=$1
ev="$root/scripts/evidence"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

boards=$(cd "$root" && ls -d reports/*/records 2>/dev/null | sed 's|/records$||')
[ -n "$boards" ] || fail "no board under reports/"
# shellcheck disable=SC2086
"$ev" check $boards || fail "a board tracks what the store keeps out"
(cd "$root" && "$ev" citations kernels/NOTES.md README.md reports/README.md reports/*/README.md) ||
  fail "a citation does not resolve"

printf 'see reports/h100/logs/never-measured-0000000.log\n' >"$tmp/made-up.md"
out=$("$ev" citations "$tmp/made-up.md") && fail "a made-up citation resolved"
grep -q 'never-measured-0000000.log: not in the tree and not archived' <<<"$out" ||
  fail "the made-up citation was not named: $out"

# Per A/B pair and shape, the newest measurement stays with every other measurement of that
# shape by the same commit on the same GPU (separate runs that `attnlab-report ab --across`
# combines); a measurement by an older commit is superseded.
mkdir -p "$tmp/root/scripts" "$tmp/root/reports/b/records/ab/x-vs-y"
cp "$ev" "$root/scripts/record_text.py" "$tmp/root/scripts/"
ab_run() {  # folder commit started
  mkdir -p "$tmp/root/reports/b/records/ab/x-vs-y/$1"
  printf '{"schema":"attnlab.ab/2","started_utc":"%s","provenance":{"git":{"commit":"%s"},"gpu":{"uuid":"GPU-1","name":"G"}},"results":[{"shape":{"B":1,"H":8,"S":512,"D":64}}]}' \
    "$3" "$2" >"$tmp/root/reports/b/records/ab/x-vs-y/$1/run.json"
}
ab_run 20260101T000000Z-aaaaaaa aaaaaaa 2026-01-01T00:00:00Z
ab_run 20260102T000000Z-bbbbbbb bbbbbbb 2026-01-02T00:00:00Z
ab_run 20260102T010000Z-bbbbbbb bbbbbbb 2026-01-02T01:00:00Z
cur=$(cd "$tmp/root" && python3 scripts/evidence current reports/b | sed 's|.*/||' | tr '\n' ' ')
[ "$cur" = "20260102T000000Z-bbbbbbb 20260102T010000Z-bbbbbbb " ] ||
  fail "the current A/B runs of one shape are '$cur', not the newer commit's two runs"

# A pair against a base build keeps its newest run's commit only, whatever shapes older runs
# measured: each run measured another change against the commit before it.
base_run() {  # folder commit started S
  mkdir -p "$tmp/root/reports/b/records/ab/x-vs-x-base/$1"
  printf '{"schema":"attnlab.ab/2","started_utc":"%s","provenance":{"git":{"commit":"%s"},"gpu":{"uuid":"GPU-1","name":"G"}},"results":[{"shape":{"B":1,"H":8,"S":%s,"D":64}}]}' \
    "$3" "$2" "$4" >"$tmp/root/reports/b/records/ab/x-vs-x-base/$1/run.json"
}
base_run 20260101T000000Z-aaaaaaa aaaaaaa 2026-01-01T00:00:00Z 1024
base_run 20260102T000000Z-bbbbbbb bbbbbbb 2026-01-02T00:00:00Z 512
cur=$(cd "$tmp/root" && python3 scripts/evidence current reports/b | grep x-vs-x-base | sed 's|.*/||' | tr '\n' ' ')
[ "$cur" = "20260102T000000Z-bbbbbbb " ] ||
  fail "the current runs of a pair against a base build are '$cur', not the newest run alone"
rm -rf "$tmp/root/reports/b/records/ab/x-vs-x-base"

# Per timeline phase, shape and stamp policy, the newest: a per-item policy's newer record does
# not supersede an older one that stamps every span; a newer one of the same policy does.
tl_run() {  # folder policy sample
  mkdir -p "$tmp/root/reports/b/timeline/5/$1"
  printf '{"schema":"attnlab.timeline/1","shape":{"B":1,"H":8,"S":512,"D":64},"options":{"stamps":"%s","stamp_sample":%s}}' \
    "$2" "$3" >"$tmp/root/reports/b/timeline/5/$1/run.json"
}
tl_run 20260101T000000Z-aaaaaaa global 1
tl_run 20260102T000000Z-bbbbbbb global-phases 1
tl_run 20260103T000000Z-ccccccc global-phases 8
tl_run 20260104T000000Z-ddddddd global-phases 1
cur=$(cd "$tmp/root" && python3 scripts/evidence current reports/b | grep '/timeline/' | sed 's|.*/||' | sort | tr '\n' ' ')
[ "$cur" = "20260101T000000Z-aaaaaaa 20260103T000000Z-ccccccc 20260104T000000Z-ddddddd " ] ||
  fail "the current timelines of one shape are '$cur', not the newest of each stamp policy"
rm -rf "$tmp/root/reports/b/timeline"

# prune never drops what no commit holds: a superseded record not yet committed stops it.
(cd "$tmp/root" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm records) ||
  fail "could not make the scratch repository"
ab_run 20251231T000000Z-9999999 9999999 2025-12-31T00:00:00Z
out=$(cd "$tmp/root" && python3 scripts/evidence prune reports/b 2>&1) &&
  fail "prune ran over an uncommitted record: $out"
grep -q 'commit them first' <<<"$out" || fail "prune's refusal did not say why: $out"
[ -e "$tmp/root/reports/b/records/ab/x-vs-y/20251231T000000Z-9999999/run.json" ] ||
  fail "prune deleted a record that no commit holds"
# Once committed, prune takes the superseded folders out whole, rendered files git does not
# track included (plots/*.dat beside a PNG): a folder left behind reads as a run to make reports.
old_run=reports/b/records/ab/x-vs-y/20251231T000000Z-9999999
(cd "$tmp/root" && git add -A && git -c user.email=t@t -c user.name=t commit -qm older) ||
  fail "could not commit the older record"
mkdir -p "$tmp/root/$old_run/plots" && : >"$tmp/root/$old_run/plots/ratios_1.dat"
out=$(cd "$tmp/root" && python3 scripts/evidence prune reports/b 2>&1) || fail "prune failed: $out"
[ ! -e "$tmp/root/$old_run" ] || fail "prune left the superseded folder's untracked files: $(ls -R "$tmp/root/$old_run")"
[ -e "$tmp/root/reports/b/records/ab/x-vs-y/20260102T010000Z-bbbbbbb/run.json" ] || fail "prune took a current record"

archived=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["why"] == "superseded":
        print(e["path"]); break' "$root/reports/h100/archive.jsonl")
[ -n "$archived" ] || fail "no superseded record in reports/h100/archive.jsonl"
[ ! -e "$root/$archived" ] || fail "$archived is archived but still in the tree"
"$ev" resolve "$archived/run.json" | grep -q 'archived, in commit' || fail "resolve $archived/run.json"

if [ "$(git -C "$root" rev-parse --is-shallow-repository 2>/dev/null)" != false ]; then
  echo "evidence: not a full clone: show and restore from git skipped"
  exit 77
fi
"$ev" show "$archived/run.json" | python3 -c 'import json,sys; assert json.load(sys.stdin)["schema"]' ||
  fail "show did not print the archived record"
"$ev" restore "$archived" --to "$tmp/r" >/dev/null || fail "restore $archived"
[ -s "$tmp/r/$archived/run.json" ] || fail "restore wrote no run.json"
"$ev" restore "$archived" --to "$tmp/r" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a second restore did not refuse to overwrite"
echo "evidence: current, compressed, citations resolve, archive reachable"
