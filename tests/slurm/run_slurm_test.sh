#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost, built and torn down in a temporary folder, runs
# scripts/slurm/layerbench.sbatch as a two-task job array on a tiny CPU suite, and checks what the
# tasks wrote: two results files, <host>-cpu-task<N>.json, each valid JSON of status-ok cases (and,
# where layerbench records it, each task's own Slurm identity in context.task); then, where
# `layerbench merge` exists (python -m layerbench.reports merge), that merging them gives one file of 2 runs with
# every case of both, each case naming its run.
#
#   tests/slurm/run_slurm_test.sh build/layerbench       (ctest: slurm.array_and_merge)
#
# The node offers two fake GPUs (gres gpu, device files made with mknod in the temporary folder), so
# the script's own `#SBATCH --gres=gpu:1` is scheduled as on a GPU node and each task gets its own
# CUDA_VISIBLE_DEVICES; no nvidia-smi answers for them, so the files are named cpu-task<N>.
# munged, slurmctld and slurmd are started here, in the foreground of background jobs, with
# everything (key, socket, state, spool, pid and log files) in the temporary folder and free ports;
# nothing of the machine's own Slurm or munge configuration is read or changed.
#
# Bounded: the whole test gives up after LB_SLURM_TEST_TIMEOUT seconds (240) and always cleans up
# (cancels the jobs, ends the daemons and the job steps it started, removes the folder), on success,
# failure, Ctrl-C or SIGTERM; a guard in its own session does the same if this script is killed
# outright. Exit 0 on success, 1 on failure (with the tails of the daemons' and jobs' logs), 77 when
# it cannot run here: Slurm's daemons or munged are not installed, or it is not run as root.
set -uo pipefail

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
say() { echo "slurm-test: $*"; }

[ $# -ge 1 ] || { echo "usage: $0 <layerbench binary>" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
sbatch_script=$repo/scripts/slurm/layerbench.sbatch

# The global bound: the script runs itself again under timeout, which sends SIGTERM to its process
# group (the daemons it started included) and SIGKILL 30 s later; the inner run's trap cleans up on
# SIGTERM, the guard below after SIGKILL. 240 + 30 s stays within ctest's TIMEOUT of 300.
if [ -z "${LB_SLURM_TEST_INNER:-}" ]; then
  LB_SLURM_TEST_INNER=1 exec timeout -k 30 "${LB_SLURM_TEST_TIMEOUT:-240}" "$0" "$@"
fi

lb=$(readlink -f "$1") || true
[ -x "$lb" ] || fail "no layerbench binary at $1"

# ---- can it run here? -----------------------------------------------------------------------
export PATH="$PATH:/usr/sbin:/sbin"
for tool in slurmctld slurmd munged; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: slurm-wlm, munge; scripts/install-test-services.sh)"
done
for tool in sbatch sinfo squeue scontrol scancel; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: slurm-client)"
done
[ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start jobs"
command -v python3 >/dev/null || fail "python3 is not installed"

# ---- the temporary cluster ---------------------------------------------------------------------
# In /tmp, not $TMPDIR: munge's socket path must stay short (a Unix socket's path: 107 bytes).
tmp=$(mktemp -d /tmp/lb-slurm.XXXXXX) || fail "mktemp"
chmod 700 "$tmp"
pids=()     # the daemons
helpers=()  # sbatch --wait

ctld_alive() { [ -n "${ctld_pid:-}" ] && kill -0 "$ctld_pid" 2>/dev/null; }

show_logs() {
  local f
  for f in "$tmp"/log/*.log "$tmp"/jobs/*.out; do
    [ -f "$f" ] || continue
    # A daemon's standard output repeats its log file, but holds what it said before opening it.
    case $f in *.stdout.log) [ -s "${f%.stdout.log}.log" ] && continue ;; esac
    echo "----- tail of ${f#"$tmp"/} -----"
    tail -n 40 "$f"
  done
  if [ -n "${SLURM_CONF:-}" ] && ctld_alive; then
    echo "----- squeue -----"; timeout 3 squeue -a 2>&1 | tail -n 20
    echo "----- sinfo -----"; timeout 3 sinfo -N -l 2>&1 | tail -n 10
  fi
}

# Job steps (slurmstepd and what it runs) outlive slurmd: find ours by the SLURM_CONF of this
# cluster in their environment, never by name alone.
our_steps() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] || [ "${p#/proc/}" = "$BASHPID" ] && continue
    grep -qszxF "SLURM_CONF=$tmp/slurm.conf" "$p/environ" && echo "${p#/proc/}"
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then show_logs; fi
  local p alive
  for p in "${helpers[@]}"; do kill -TERM "$p" 2>/dev/null; done
  if [ -n "${SLURM_CONF:-}" ] && ctld_alive; then
    timeout 3 scancel --full --quiet -u root >/dev/null 2>&1 || true
  fi
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in $(our_steps); do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 1' INT TERM

# The guard: in a session of its own and no child of this script (a kill of this test's process
# group or tree, as ctest does past its TIMEOUT, does not reach it), it waits for this script to end,
# then ends whatever of this cluster still runs (the daemons and job steps: SLURM_CONF of this
# cluster in their environment, or this folder in their command line) and removes the folder. The
# trap normally has already; this is for SIGKILL.
# shellcheck disable=SC2016  # expanded by the guard's bash, from its arguments
guard_script='
while kill -0 "$1" 2>/dev/null; do sleep 1; done
[ -d "$2" ] || exit 0
for p in /proc/[0-9]*; do
  [ "${p#/proc/}" = "$$" ] && continue
  if grep -qszxF "SLURM_CONF=$2/slurm.conf" "$p/environ" || grep -qszF "$2/" "$p/cmdline"; then
    kill -KILL "${p#/proc/}" 2>/dev/null
  fi
done
rm -rf "$2"'
(setsid bash -c "$guard_script" guard "$$" "$tmp" </dev/null >/dev/null 2>&1 &)

mkdir -p "$tmp"/{munge,log,run,state,spool,results,jobs,dev} || fail "mkdir"
chmod 711 "$tmp/munge"  # munged wants its socket's folder searchable by all

free_ports() {
  python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])'
}
read -r ctld_port slurmd_port < <(free_ports) || fail "no free ports"

# munge: a fresh key, a socket of our own.
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1 count=1024 status=none
else
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1 count=1024 status=none
fi
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.sock
# --force: munged refuses a socket folder below a world-writable one (/tmp) without it.
munged --foreground --force --socket="$sock" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  >>"$tmp/log/munged.stdout.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "munged did not start (no $sock)"

# Two fake GPUs: character devices (/dev/null's numbers) named as Slurm's GPU plugin expects.
if ! mknod "$tmp/dev/nvidia0" c 1 3 || ! mknod "$tmp/dev/nvidia1" c 1 3; then
  fail "mknod (fake GPU devices)"
fi

ncpu=$(nproc)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=lbtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=300
SlurmdTimeout=60
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$tmp/gres.conf" <<EOF
NodeName=localhost Name=gpu File=$tmp/dev/nvidia[0-1]
EOF
: >"$tmp/plugstack.conf"
export SLURM_CONF=$tmp/slurm.conf
# The submitter's Slurm settings must not leak in (sbatch reads SBATCH_* from the environment).
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(S\(BATCH\|LURM\|QUEUE\|INFO\)_[A-Za-z0-9_]*\)=.*/\1/p' | grep -vx SLURM_CONF)

slurmctld -D -i -f "$tmp/slurm.conf" >>"$tmp/log/slurmctld.stdout.log" 2>&1 &
ctld_pid=$!
pids+=("$ctld_pid")
slurmd -D -N localhost -f "$tmp/slurm.conf" >>"$tmp/log/slurmd.stdout.log" 2>&1 &
pids+=($!)

say "cluster on ports $ctld_port/$slurmd_port in $tmp; waiting for the node"
state=""
for _ in $(seq 1 120); do
  state=$(timeout 5 sinfo -h -n localhost -o %T 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || fail "a daemon exited (pid $p)"; done
  sleep 0.5
done
[ "$state" = idle ] || fail "the node is not idle after 60 s (state: '${state:-none}')"
say "node idle"

# ---- the job array -------------------------------------------------------------------------------
results=$tmp/results
start=$(date +%s)
# In the background, waited for with `wait`, which a signal interrupts: the trap runs at once.
(cd "$tmp/jobs" && LAYERBENCH="$lb" LAYERBENCH_ARGS="-l cpu -w vector_add,saxpy -s 1000" \
  LAYERBENCH_RESULTS="$results" exec sbatch --wait --array=0-1 --cpus-per-task=1 \
  --output="$tmp/jobs/%A_%a.out" --chdir="$tmp/jobs" "$sbatch_script") >"$tmp/log/sbatch.log" 2>&1 &
helpers+=($!)
wait "${helpers[-1]}"
sbatch_rc=$?
cat "$tmp/log/sbatch.log"
say "array finished in $(( $(date +%s) - start )) s (sbatch exit $sbatch_rc)"
[ $sbatch_rc -eq 0 ] || fail "sbatch --wait exited $sbatch_rc"
for f in "$tmp"/jobs/*.out; do tail -n 1 "$f"; done

host=$(hostname -s 2>/dev/null || hostname)
files=("$results/$host-cpu-task0.json" "$results/$host-cpu-task1.json")
for f in "${files[@]}"; do [ -s "$f" ] || fail "no results file $f (got: $(ls "$results"))"; done
n=$(find "$results" -name '*.json' | wc -l)
[ "$n" -eq 2 ] || fail "$n results files, expected 2: $(ls "$results")"

# Each file: valid JSON, the two cases, all ok; its Slurm identity where layerbench records it.
python3 - "${files[@]}" <<'EOF' || fail "the results files"
import json, sys
seen = []
for i, path in enumerate(sys.argv[1:]):
    with open(path) as f:
        doc = json.load(f)
    cases = doc.get("benchmarks", [])
    names = sorted((c.get("workload"), c.get("layer"), c.get("n")) for c in cases)
    assert names == [("saxpy", "cpu", 1000), ("vector_add", "cpu", 1000)], f"{path}: cases {names}"
    bad = [c.get("name") for c in cases if c.get("status") != "ok"]
    assert not bad, f"{path}: not ok: {bad}"
    task = doc.get("context", {}).get("task") or {}
    if "slurm_array_task_id" in task:
        assert str(task["slurm_array_task_id"]) == str(i), f"{path}: context.task {task}"
        for key in ("slurm_job_id", "slurm_array_job_id"):
            assert task.get(key) not in (None, ""), f"{path}: context.task.{key} missing: {task}"
        seen.append(task)
    else:
        print(f"slurm-test: {path}: no context.task.slurm_array_task_id yet (layerbench does not record it); not checked")
if len(seen) == 2:
    a, b = seen
    assert a["slurm_array_job_id"] == b["slurm_array_job_id"], f"one array: {a} {b}"
    assert a["slurm_job_id"] != b["slurm_job_id"], f"two jobs: {a} {b}"
    if a.get("cuda_visible_devices") is not None and b.get("cuda_visible_devices") is not None:
        assert a["cuda_visible_devices"] != b["cuda_visible_devices"], f"one fake GPU each: {a} {b}"
    print(f"slurm-test: context.task: array job {a['slurm_array_job_id']}, tasks {a['slurm_array_task_id']} and "
          f"{b['slurm_array_task_id']}, CUDA_VISIBLE_DEVICES {a.get('cuda_visible_devices')} and {b.get('cuda_visible_devices')}")
print("slurm-test: 2 results files, 2 ok cases each")
EOF

# ---- merge -----------------------------------------------------------------------------------------
# `layerbench merge` is there once its help names an output option (a placeholder has none).
py=python3
[ -x "$repo/.venv/bin/python3" ] && py=$repo/.venv/bin/python3
merge_help=$(cd "$repo" && PYTHONPATH=python timeout 60 "$py" -m layerbench.reports merge --help 2>/dev/null) || merge_help=""
if ! grep -qE -- '(^|[[:space:],])(-o|--out|--output)([[:space:]=,]|$)' <<<"$merge_help"; then
  echo "merge: not available yet"
else
  merged=$tmp/all.json
  (cd "$repo" && PYTHONPATH=python timeout 60 "$py" -m layerbench.reports merge "${files[@]}" -o "$merged") ||
    fail "PYTHONPATH=python python3 -m layerbench.reports merge ${files[*]} -o $merged"
  python3 - "$merged" "${files[@]}" <<'EOF' || fail "the merged file"
import json, sys
merged_path, *inputs = sys.argv[1:]
with open(merged_path) as f:
    merged = json.load(f)
runs = merged.get("context", {}).get("merged", {}).get("runs")
assert isinstance(runs, list) and len(runs) == 2, f"context.merged.runs: {runs}"
ids = [r.get("run") for r in runs]
assert all(ids) and ids[0] != ids[1], f"run ids {ids}"
cases = merged.get("benchmarks", [])
assert all(c.get("run") in ids for c in cases), "a case without its run"
# Each run holds exactly the cases of one input file, and each input is one run (the two files hold
# the same case names, so what tells them apart is the run id, by task).
parts = []
for path in inputs:
    with open(path) as f:
        parts.append(sorted(c.get("name") for c in json.load(f)["benchmarks"]))
for run_id in ids:
    got = sorted(c.get("name") for c in cases if c.get("run") == run_id)
    assert got in parts, f"run {run_id}: cases {got}, inputs {parts}"
want = sum(len(p) for p in parts)
assert len(cases) == want, f"{len(cases)} cases, expected {want}"
print(f"slurm-test: merged: 2 runs ({ids[0]}, {ids[1]}), {len(cases)} cases")
EOF
fi

say "ok"
exit 0
