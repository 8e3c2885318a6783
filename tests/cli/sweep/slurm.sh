#!/usr/bin/env bash
# slurm.sh REPO: make sweep-slurm end to end on a one-node Slurm cluster started here from
# Debian's slurm-wlm and munge (root needed): munged, slurmctld and slurmd under a temp dir,
# a slurm.conf naming this host as the only node, without GPUs in Slurm (GRES=""). The array's
# tasks run scripts/sweep.sh with SWEEP_TASK=<n> against FAKE phase binaries
# (make_fake_build.sh): no GPU is here, so what is real is the scheduling (sbatch, the array,
# the dependent collect job), not the experiments. Checks the records, their sweep id, and the
# manifest. Exit 77 (skipped) when slurm-wlm or munge is missing or not root, unless
# ATTNLAB_REQUIRE_SLURM=1 (CI), where that fails.
set -u
repo=$(cd "$1" && pwd)
need() {
  if [ "${ATTNLAB_REQUIRE_SLURM:-0}" = 1 ]; then echo "FAIL: $1 (ATTNLAB_REQUIRE_SLURM=1)"; exit 1; fi
  echo "skipped: $1"; exit 77
}
for c in slurmctld slurmd munged sbatch squeue scontrol; do
  PATH=$PATH:/usr/sbin command -v $c >/dev/null || need "$c not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || need "not root (slurmd and munged run as root here)"
export PATH=$PATH:/usr/sbin
tmp=$(mktemp -d /tmp/attnlab-slurm.XXXXXX); chmod 755 "$tmp"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi; }
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp"/{munge,spool/ctld,spool/d,log,run}
# munge: its own key, socket and directories (the system's munged is not touched)
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$tmp/munge"; chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" || { echo "FAIL: munged did not start"; exit 1; }
sleep 0.5; pids+=("$(cat "$tmp/munge/munged.pid")")
port=$((20000 + RANDOM % 20000))
cat >"$tmp/slurm.conf" <<CONF
ClusterName=attnlabtest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/spool/ctld
SlurmdSpoolDir=$tmp/spool/d
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -c -f "$tmp/slurm.conf" || { echo "FAIL: slurmctld did not start"; cat "$tmp/log/slurmctld.log"; exit 1; }
sleep 1; pids+=("$(cat "$tmp/run/slurmctld.pid")")
slurmd -f "$tmp/slurm.conf" || { echo "FAIL: slurmd did not start"; cat "$tmp/log/slurmd.log"; exit 1; }
sleep 1; pids+=("$(cat "$tmp/run/slurmd.pid")")
for i in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break; sleep 1
done
check "the one-node cluster is up" bash -c "sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)'"

"$repo/tests/cli/sweep/make_fake_build.sh" "$tmp/build" "$repo" || exit 1
export BUILD=$tmp/build RESULTS=$tmp/results SHAPES="throughput 64x16x512x64 32x16x512x128" SDPA=0 \
  GRES="" SWEEP_ID=slurmtest PROGRESSION=0
"$repo/scripts/sweep_slurm.sh" --dry-run >"$tmp/dry.out" 2>&1
check "--dry-run prints the array script" grep -q '^#SBATCH --array=1-8' "$tmp/dry.out"
check "--dry-run: GRES=\"\" omits --gres" bash -c "! grep -q -- '--gres' '$tmp/dry.out'"
GRES=gpu:1 SWEEP_ID=slurmdry2 "$repo/scripts/sweep_slurm.sh" --dry-run >"$tmp/dry2.out" 2>&1
check "--dry-run: --gres=gpu:1 by default" grep -q '^#SBATCH --gres=gpu:1' "$tmp/dry2.out"
rm -rf "$tmp/results"
SBATCH=/nonexistent/sbatch "$repo/scripts/sweep_slurm.sh" >"$tmp/nosb.out" 2>&1
check "sbatch missing: exit 2, one line" bash -c "[ $? -eq 2 ] && grep -q 'not found' '$tmp/nosb.out'"

"$repo/scripts/sweep_slurm.sh" >"$tmp/submit.out" 2>&1; rc=$?
cat "$tmp/submit.out" | tail -3
check "submitted: exit 0" test $rc -eq 0
job=$(cat "$tmp/results/sweeps/slurmtest/slurm_job" 2>/dev/null)
echo "waiting for the array job ${job:-?} and its collect job"
for i in $(seq 180); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 1
  [ $((i % 15)) = 0 ] && echo "  $(squeue -h | wc -l) job(s) still queued or running after $i s"
done
check "every job ended within 180 s" bash -c '[ -z "$(squeue -h -o %i)" ]'
man=$tmp/results/sweeps/slurmtest/manifest.json
check "the collect job wrote the manifest" test -s "$man"
m() { python3 -c "import json; m=json.load(open('$man')); $1"; }
check "manifest: 8 tasks, each ended 0 with one record, on this host" \
  m "assert m['scheduler'] == 'slurm' and len(m['tasks']) == 8 and all(t['exit_code'] == 0 and len(t['records']) == 1 and t['host'] for t in m['tasks']), m['tasks']"
check "manifest: the Slurm job id" m "assert m['slurm_job'] == '$job', m['slurm_job']"
check "records: 8, each with the sweep id" \
  python3 -c "import json,pathlib; rs=list(pathlib.Path('$tmp/results').rglob('run.json')); assert len(rs) == 8 and all(json.load(open(r))['provenance']['sweep_id'] == 'slurmtest' for r in rs), rs"
check "the array ran as Slurm array tasks (their logs)" \
  bash -c "[ \$(ls '$tmp/results/sweeps/slurmtest/logs/' | grep -c '^slurm-${job}_') -eq 8 ]"
if [ $fails -ne 0 ]; then
  echo "$fails check(s) failed"; tail -20 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log"
  cat "$tmp"/results/sweeps/slurmtest/logs/slurm-* 2>/dev/null | tail -20; exit 1
fi
echo "all Slurm sweep checks passed"
