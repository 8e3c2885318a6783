cd $R
scripts/device-bundle unpack || exit 1
B=build/bin
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
echo "## f8 GPU tests"; $B/attnlab_f8_gpu_tests 2>&1 | grep -E "^\[  (PASSED|FAILED)|FAILED" | head -20
echo "## A/B f8 vs f8-base (b93c805)"
$B/attnlab-ab-base --a f8 --b f8-base -s 4x16x4096x128 -s 2x16x8192x128 -s 8x16x2048x128 -s 16x16x1024x128 -s 4x16x4096x128:causal -s 2x16x8192x128:causal -s 4x32x4096x64 --pairs 30 --blocks 3 --min-pairs 30 --max-time 4 -o /tmp/o/ab1 2>&1 | grep -E "^\[[0-9]+/|FAIL|rror" ; save
echo "## A/B f8v vs f8v-base"
$B/attnlab-ab-base --a f8v --b f8v-base -s 16x16x1024x128 -s 32x16x512x128 --pairs 30 --blocks 3 --min-pairs 30 --max-time 4 -o /tmp/o/ab2 2>&1 | grep -E "^\[[0-9]+/|FAIL|rror" ; save
echo "## f8d vs cudnn_fp8"
$B/attnlab-ab --a f8d --b cudnn_fp8 -s 4x16x4096x128 -s 4x16x4096x128:causal -s 2x16x8192x128 -s 2x16x8192x128:causal -s 8x16x2048x128 --pairs 30 --blocks 3 --min-pairs 30 --max-time 4 -o /tmp/o/ab3 2>&1 | grep -E "^\[[0-9]+/|FAIL|rror" ; save
echo "## sass"
cuobjdump -sass -fun '.*attention_kernel.*Traits.*128.*192.*2.*false.*2.*false.*E4m3Operands.*StaticScheduler.*NoStamps.*' $B/attnlab-phase-f8 > /tmp/o/f8.sass 2>/dev/null || cuobjdump -sass $B/attnlab-phase-f8 > /tmp/o/f8.sass
ls -la /tmp/o/f8.sass; save
echo "## gpu tests f8 family"
$B/attnlab_gpu_tests --gtest_filter='*phase_f8_*:*phase_f8v_*:*phase_f8d_*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|FAILED" | head -10
PHASES="f8 f8v" tests/gpu/sanitizer.sh build/bin 2>&1 | tail -7
save
