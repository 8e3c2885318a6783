#!/usr/bin/env bash
# reproduce.sh REPORT REPO: scripts/reproduce end to end with a fake experiment binary (a
# script standing in for attnlab-phase-4 that records its argv and writes a copy of the
# original record, on "another GPU", dirty, with one shape made slower) and a fake SDPA
# baseline, against the real attnlab-report: the command built from the record, the
# environment diff, the compare verdicts, the original left untouched, and bad input.
set -u
report=$1; repo=$2
reproduce=$repo/scripts/reproduce
orig=$repo/reports/h100/records/4/20261124T230431Z-8bb50a2
sdpa=$repo/reports/h100/records/sdpa-flash/20261124T231040Z-8bb50a2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

# The fake experiment: argv to $FAKE_ARGV, a copy of $FAKE_FROM under <results-dir>/<phase>/.
mkdir -p "$tmp/build/bin"
cat >"$tmp/build/bin/attnlab-phase-4" <<'PY'
#!/usr/bin/env python3
import json, os, pathlib, sys
argv = sys.argv[1:]
pathlib.Path(os.environ["FAKE_ARGV"]).write_text("\n".join(argv) + "\n")
import gzip
rec = json.loads(gzip.decompress((pathlib.Path(os.environ["FAKE_FROM"]) / "run.json.gz").read_bytes()))
rec["provenance"]["gpu"]["uuid"] = "GPU-00000000-fake-fake-fake-000000000000"
rec["provenance"]["git"]["dirty"] = True
t = rec["results"][0]["timing"]["cold"]  # the first shape's cold regime 1.5x slower
for k in ("median_ns", "p10_ns", "p90_ns", "min_ns", "max_ns", "mean_ns", "busy_median_ns", "busy_p10_ns", "busy_p90_ns"):
    if k in t: t[k] *= 1.5
t["samples_ns"] = [s * 1.5 for s in t["samples_ns"]]
results = pathlib.Path(argv[argv.index("--results-dir") + 1])
d = results / rec["phase"] / "20991231T235959Z-0000000"
d.mkdir(parents=True)
(d / "run.json").write_text(json.dumps(rec, indent=1))
sys.exit(int(os.environ.get("FAKE_RC", "0")))
PY
chmod +x "$tmp/build/bin/attnlab-phase-4"
cp "$tmp/build/bin/attnlab-phase-4" "$tmp/fake_sdpa.py"
sum_before=$(sha256sum "$orig/run.json.gz")
# The committed records are compressed; the checks below read plain copies of them.
gzip -dc "$orig/run.json.gz" >"$tmp/orig.json"
gzip -dc "$sdpa/run.json.gz" >"$tmp/sdpa.json"

export FAKE_ARGV=$tmp/argv FAKE_FROM=$orig
# --dry-run: the command and the environment, nothing run, nothing written.
"$reproduce" --dry-run --build "$tmp/build" --results "$tmp/results" --report "$report" "$orig" >"$tmp/out" 2>&1
rc=$?
check "dry run: exit 0" test "$rc" -eq 0
check "dry run: the command" has "$tmp/out" "command: $tmp/build/bin/attnlab-phase-4 --shape 16x16x2048x64 --shape 1x8x512x64"
check "dry run: the environment" has "$tmp/out" "  GPU uuid: GPU-5e687859-8f09-e123-bc38-b16dcfa8b2c9"
check "dry run: ran nothing" test ! -e "$tmp/argv" -a ! -e "$tmp/results"
# A run whose O and LSE came from a forward phase (correctness.forward) is re-run with it.
mkdir -p "$tmp/fwd/4/20261124T230431Z-8bb50a2"
python3 - "$tmp/orig.json" "$tmp/fwd/4/20261124T230431Z-8bb50a2/run.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
for r in rec["results"]:
    r["correctness"]["forward"] = "5lse"
json.dump(rec, open(sys.argv[2], "w"), indent=1)
PY
"$reproduce" --dry-run --build "$tmp/build" --results "$tmp/results" --report "$report" \
  "$tmp/fwd/4/20261124T230431Z-8bb50a2" >"$tmp/out" 2>&1
check "dry run: the forward the record names" has "$tmp/out" "--forward 5lse"

"$reproduce" --build "$tmp/build" --results "$tmp/results" --report "$report" "$orig" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
check "exit 0" test "$rc" -eq 0
check "argv is the record's shapes, seed, regimes, stopping rule and options" \
  python3 - "$tmp/orig.json" "$tmp/argv" "$tmp/results" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
argv = open(sys.argv[2]).read().split("\n")[:-1]
o, r = rec["options"], rec["options"]["stopping_rule"]
want = [a for x in rec["results"] for a in ("--shape", x["name"])]
want += ["--seed", str(rec["provenance"]["seed"]), "--regimes", ",".join(o["regimes"]),
         "--min-samples", str(r["min_samples"]), "--max-samples", str(r["max_samples"]),
         "--noise-target", str(r["noise_target_pct"]), "--max-time", "%g" % r["max_seconds"],
         "--metrics", o["metrics"], "--throttled", o["throttled"], "--inputs", o["inputs"],
         "--results-dir", sys.argv[3]]
if argv != want:
    print("argv:", argv, "\nwant:", want)
    sys.exit(1)
PY
check "environment: same GPU model named" has "$tmp/out" "GPU model: same (NVIDIA H100 80GB HBM3)"
check "environment: the uuid difference named" has "$tmp/out" "GPU uuid: GPU-5e687859-8f09-e123-bc38-b16dcfa8b2c9 -> GPU-00000000-fake-fake-fake-000000000000"
check "environment: dirty flag" has "$tmp/out" "dirty: no -> yes"
check "environment: what differs" has "$tmp/out" "differs: GPU uuid, dirty"
check "compare ran on the two records" has "$tmp/out" "# Compare: B (phase 4) against A (phase 4)"
check "compare: the slowed shape SLOWER" grep -qE '^\| throughput 16x16x2048x64 \| cold \(headline\) .*\*\*SLOWER\*\*' "$tmp/out"
check "compare: an untouched shape SAME" grep -qE '^\| latency 1x8x512x64 \| cold \(headline\) .*\*\*SAME\*\*' "$tmp/out"
check "why not SAME" has "$tmp/out" "throughput 16x16x2048x64, cold: SLOWER: A "
check "why not SAME: the medians against the spread" has "$tmp/out" "the medians differ by +50.00%; the p10-p90 intervals are "
check "why not SAME: the GPU while sampling" has "$tmp/out" "while sampling: A SM clock median "
check "the new record in the results dir" test -f "$tmp/results/4/20991231T235959Z-0000000/run.json"
check "the original untouched" test "$(sha256sum "$orig/run.json.gz")" = "$sum_before"

# A failed re-run that still wrote a record: compared, exit 1.
FAKE_RC=1 "$reproduce" --build "$tmp/build" --results "$tmp/results-f" --report "$report" "$orig" >"$tmp/out" 2>&1
rc=$?
check "failed re-run: exit 1" test "$rc" -eq 1
check "failed re-run: still compared" has "$tmp/out" "# Compare: B (phase 4)"
check "failed re-run: named" has "$tmp/out" "attnlab reproduce: the re-run exited 1"

# The SDPA baseline: the backend, shapes, seed and options through the (fake) baseline script.
FAKE_FROM=$sdpa ATTNLAB_SDPA_BASELINE=$tmp/fake_sdpa.py \
  "$reproduce" --build "$tmp/build" --results "$tmp/results" --report "$report" "$sdpa" >"$tmp/out" 2>&1
rc=$?
check "sdpa: exit 0" test "$rc" -eq 0
check "sdpa: --backends flash and the seed" python3 - "$tmp/sdpa.json" "$tmp/argv" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
argv = open(sys.argv[2]).read().split("\n")[:-1]
want = ["--backends", "flash"] + [a for x in rec["results"] for a in ("--shape", x["name"])] + \
       ["--seed", str(rec["provenance"]["seed"])]
sys.exit(0 if argv[:len(want)] == want and "--metrics" not in argv else 1)
PY
check "sdpa: torch version compared" has "$tmp/out" "torch: same ("
check "sdpa: compared" has "$tmp/out" "# Compare: B (phase sdpa-flash) against A (phase sdpa-flash)"

# Bad input: one line, the documented exit status.
expect() {  # expect RC TEXT ARGS...
  local want=$1 text=$2; shift 2
  "$reproduce" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  check "exit $want: $text" test "$got" -eq "$want"
  check "one line: $text" test "$(wc -l <"$tmp/err")" -eq 1
  check "names it: $text" has "$tmp/err" "$text"
}
mkdir -p "$tmp/bad/zz/r1" "$tmp/bad/4/r2" "$tmp/bad/4/r3" "$tmp/nobuild"
cp "$repo/reports/h100/records/phases.json" "$tmp/bad/"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r['phase']='zz'; json.dump(r, open(sys.argv[2],'w'))" \
  "$tmp/orig.json" "$tmp/bad/zz/r1/run.json"
echo '{"schema": "attnlab.run/1", "phase": ' >"$tmp/bad/4/r2/run.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); del r['provenance']['seed']; json.dump(r, open(sys.argv[2],'w'))" \
  "$tmp/orig.json" "$tmp/bad/4/r3/run.json"
expect 2 "not a run directory (no run.json in it)" --build "$tmp/build" "$tmp"
expect 2 "no such run directory" --build "$tmp/build" "$tmp/absent"
expect 2 "unknown phase 'zz'; valid phases (" --build "$tmp/build" "$tmp/bad/zz/r1"
expect 2 "r2/run.json: not valid JSON" --build "$tmp/build" "$tmp/bad/4/r2"
mkdir -p "$tmp/bad/4/r4"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r['phase']='../x'; json.dump(r, open(sys.argv[2],'w'))" \
  "$tmp/orig.json" "$tmp/bad/4/r4/run.json"
expect 2 "unknown phase \"../x\": not a phase id" --build "$tmp/build" "$tmp/bad/4/r4"
expect 2 "/provenance/seed is missing" --build "$tmp/build" "$tmp/bad/4/r3"
expect 3 "attnlab-phase-4 is not built: run make build BUILD=$tmp/nobuild" --build "$tmp/nobuild" --report "$report" "$orig"
expect 3 "attnlab-report is not built" --build "$tmp/build" "$orig"
expect 2 "unrecognized arguments: --frobnicate" --frobnicate "$orig"
check "help" "$reproduce" --help >/dev/null
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
