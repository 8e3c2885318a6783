# Device call B of 2026-11-26 (third session), at the merge of wt-split (one main skeleton, profiler splits) and
# wt-sdpa (attnlab-sdpa-import) with the timeline recorder's reconvergence and launch floor: the whole GPU suite,
# the SDPA baseline through its importer, the timelines of 5 and d4 at their seed shapes, the split profiler end to end.
set -o pipefail; export PATH=/usr/local/cuda/bin:$PATH ATTNLAB_SOURCE_STAMP=$PWD/.attnlab-source
exec > >(tee $OUT/log) 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cat .attnlab-source
t0=$SECONDS; stamp() { echo "== $1 ($((SECONDS-t0)) s)"; }
B=build/bin; mkdir -p $OUT/res
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null || exit 1
cmake --build build -j 16 > /tmp/b.log 2>&1 || { tail -30 /tmp/b.log; exit 1; }; stamp built
ctest --test-dir build -L gpu -R "TimelineGpu|Calibration|calibrate|timeline" --output-on-failure > /tmp/ct1.log 2>&1; grep -E "tests passed|tests failed|\*\*\*|Expected|actual|difference" /tmp/ct1.log | head -20; stamp "timeline and calibration tests"
$B/attnlab-timeline --phase 5 --shape 16x16x2048x64:causal --out $OUT/res/timeline 2>&1 | tail -7
$B/attnlab-timeline --phase d4 --shape latency --out $OUT/res/timeline 2>&1 | tail -7; stamp timeline
PYTHONUNBUFFERED=1 python3 experiments/sdpa_baseline.py --backends cudnn --max-time 1 --results-dir $OUT/res --shape throughput --shape latency --shape 16x16x2048x64:causal 2>&1 | tail -12
ls -a $OUT/res | head; for d in $OUT/res/sdpa-cudnn/*/; do scripts/validate-records $d 2>&1 | tail -2; $B/attnlab-report run $d 2>&1 | tail -1; done; stamp sdpa
$B/attnlab-phase-5 --shape latency --metrics all -o /tmp/r 2>&1 | grep -E "status|FAIL|hot|pc_sampl"; for d in /tmp/r/5/*/; do $B/attnlab-report run $d 2>&1 | tail -1; grep -cE "Hot lines|Executed instructions: counted" $d/report.md; done
$B/attnlab-ab --a 5 --b 5 --shape latency --pairs 20 -o /tmp/r 2>&1 | tail -2; echo "ab self rc=$?"; stamp "split profiler end to end"
ctest --test-dir build -L gpu -E "TimelineGpu|Calibration|calibrate|timeline" -j 12 --output-on-failure > /tmp/ct2.log 2>&1; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" /tmp/ct2.log | head -30; stamp "gpu suite"
cp /tmp/ct1.log $OUT/ctest-timeline.log; gzip -c /tmp/ct2.log > $OUT/ctest-gpu.log.gz
tar -C $OUT -czf $OUT/res.tgz res && rm -rf $OUT/res; stamp done
