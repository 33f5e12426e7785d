#!/usr/bin/env bash
# Runs the Slurm set-up of docs/scaling.md for real on this one machine and checks it:
#   1. a single-node Slurm (munged, slurmctld, slurmd) with its config, state and logs in a
#      temporary folder under /tmp, stopped again at exit whatever happens;
#   2. the self-play job array in docs/scaling.md's requeue-safe form, small: $TASKS tasks, each
#      playing $BATCHES batches of $GAMES fast 5x5 games (a copy of configs/ttakji-5x5.toml
#      with tiny searches);
#   3. the trainer as a Slurm job that starts when every array task has succeeded;
#   4. one running task requeued (killed and put back in the queue) after it finished some
#      of its games but not all;
#   5. the checks, by scripts/count_games.py: every requested game exists exactly once, the
#      requeued task kept every game it had before the kill (none replayed), and the
#      trainer's last data window counts every shard and every row.
# Prints a summary at the end; exits non-zero when a step fails (at once) or a check does
# (after all of them ran).
#
# Needs root (the daemons run as root, munged as the munge user), Debian's slurm-wlm and
# munge (installed with apt-get when slurmctld is missing), and a built hane; it builds
# nothing itself. The set-up and build first (as scripts/run.sh does before `hane loop`):
#   bash scripts/setup.sh && source scripts/env.sh && cargo build --release
#   bash scripts/slurm_check.sh
# scripts/env.sh points cargo at setup.sh's PyTorch and puts that venv's Python, with the
# numpy and sgfmill the checks use, on PATH; this script sources it too.
# Settings (environment): HANE (the binary, default target/release/hane), TASKS (3),
# BATCHES (2), GAMES (8), PACK_ROWS (unset: the config has no pack_rows key), KEEP=1 keeps
# the temporary folder after a passing run (a failing run always keeps it, for its logs).
set -euo pipefail
cd "$(dirname "$0")/.."

HANE=$(realpath -e "${HANE:-target/release/hane}") || {
    echo "slurm_check: no hane binary; build it first (see the top of $0)" >&2
    exit 1
}
TASKS=${TASKS:-3}
BATCHES=${BATCHES:-2}
GAMES=${GAMES:-8}

log() { echo "slurm_check: $*"; }
die() {
    echo "slurm_check: FAIL: $*" >&2
    exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root: the throwaway Slurm runs its daemons as root"
if ! command -v slurmctld >/dev/null 2>&1; then
    log "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
# A Slurm already running here would own the ports this one needs.
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
    die "a slurmctld or slurmd already runs on this machine; stop it first"
fi

# Python with numpy and sgfmill: the venv of scripts/setup.sh, as scripts/test.sh finds it.
source scripts/env.sh
python -c 'import numpy, sgfmill' 2>/dev/null || die "python lacks numpy or sgfmill: run bash scripts/setup-tests.sh"

# A binary older than the sources it is built from is probably stale; say so, do not build.
if newer=$(find crates Cargo.toml Cargo.lock -newer "$HANE" -type f -print -quit) && [ -n "$newer" ]; then
    log "warning: $newer is newer than $HANE; rebuild if that change matters here"
fi

STATE=$(mktemp -d /tmp/hane-slurm.XXXXXX)
# munged runs as the munge user and must reach its socket folder below this one.
chmod 0755 "$STATE"
mkdir -p "$STATE"/{bin,log,slurmctld,slurmd,shared/selfplay}
install -d -o munge -g munge -m 0755 "$STATE/munge"
# Run a copy: a rebuild of $HANE while the jobs run must not swap the binary under them.
# hane hands the commands that use libtorch to hane-torch beside it.
cp "$HANE" "$STATE/bin/hane"
cp "$(dirname "$HANE")/hane-torch" "$STATE/bin/hane-torch"
HANE="$STATE/bin/hane"
log "state, logs and the shared folder in $STATE"

# --- 1. A single-node Slurm -----------------------------------------------------------------

MUNGED_PID="" CTLD_PID="" SLURMD_PID=""
cleanup() {
    local rc=$?
    set +e
    if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
        # Cancel what is left, so no job outlives its slurmd, and give it KillWait to stop.
        scancel --partition=check 2>/dev/null
        for _ in $(seq 30); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    for pid in "$SLURMD_PID" "$CTLD_PID" "$MUNGED_PID"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    done
    if [ "$rc" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
        rm -rf "$STATE"
    else
        echo "slurm_check: state and logs kept in $STATE" >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -s /etc/munge/munge.key ]; then
    log "creating /etc/munge/munge.key"
    install -d -o munge -g munge -m 0700 /etc/munge
    (umask 077 && dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none)
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
fi
# A private munged on its own socket: it neither needs nor disturbs a system one.
SOCKET="$STATE/munge/munge.socket"
runuser -u munge -- munged --socket="$SOCKET" --pid-file="$STATE/munge/munged.pid" \
    --log-file="$STATE/munge/munged.log" --seed-file="$STATE/munge/munged.seed"
MUNGED_PID=$(cat "$STATE/munge/munged.pid")

HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
export SLURM_CONF="$STATE/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# One node, no cgroups, no accounting database: just enough Slurm to run docs/scaling.md's jobs.
ClusterName=hanecheck
# Both at the loopback address: nothing here needs the host name to resolve.
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued job waits before it may start again (120 s by
# default); the scheduler's passes every 2 s (60 s by default) then start it promptly.
AuthInfo=socket=$SOCKET,cred_expire=10
SchedulerParameters=sched_interval=2
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# CPUs, not whole nodes, are what a job takes: the tasks share this machine's cores.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
JobRequeue=1
# Seconds between a job's SIGTERM and its SIGKILL.
KillWait=5
# Keep finished jobs for an hour, for scontrol show job (there is no slurmdbd for sacct).
MinJobAge=3600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=check Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
# In the foreground of their own sessions (setsid): $! is the daemon, and a Ctrl-C or a
# `timeout` that signals this script's process group does not reach them, so the exit trap
# can still cancel the jobs through them before stopping them.
setsid slurmctld -D -i >"$STATE/log/slurmctld.stdout" 2>&1 &
CTLD_PID=$!
setsid slurmd -D >"$STATE/log/slurmd.stdout" 2>&1 &
SLURMD_PID=$!
for i in $(seq 120); do
    [ "$(sinfo -h -N -n "$HOST" -o %T 2>/dev/null)" = idle ] && break
    kill -0 "$CTLD_PID" 2>/dev/null || die "slurmctld stopped: $(tail -5 "$STATE/log/slurmctld.log")"
    kill -0 "$SLURMD_PID" 2>/dev/null || die "slurmd stopped: $(tail -5 "$STATE/log/slurmd.log")"
    [ "$i" -lt 120 ] || die "node $HOST not idle after 60 s: $(sinfo -N 2>&1)"
    sleep 0.5
done
log "Slurm up: node $HOST, $CPUS CPUs, ${MEM_MB} MB"

# --- 2. The config, the array, the trainer ---------------------------------------------------

# configs/ttakji-5x5.toml's game with searches small enough for a game in a fraction of a
# second, one game at a time (so a task's games finish one by one and there is a moment to
# requeue it mid-batch), one thread per job, and a trainer of a few steps on a tiny net.
CFG="$STATE/ttakji-5x5-check.toml"
cat >"$CFG" <<'EOF'
[selfplay]
rules = "ttakji,size=5"
threads = 1
inference_threads = 1
games_in_flight = 1
batch_size = 8
full_visits = 3200
fast_visits = 800
p_full = 0.5
resign_threshold = 0.0
opening_moves = 2.0
fork_prob = 0.0
EOF
# PACK_ROWS=N packs each folder's games into pNNNNNNNN files (for a hane that has pack_rows).
[ -z "${PACK_ROWS:-}" ] || echo "pack_rows = $PACK_ROWS" >>"$CFG"
cat >>"$CFG" <<'EOF'

[train]
rules = "ttakji,size=5"
steps = 20
batch_size = 64
optimizer = "adamw"
lr = 0.002
warmup_steps = 5
# Every row is in the window while there are fewer than this.
window_min_rows = 20000
rescan_secs = 5
checkpoint_every = 10
log_every = 10
histogram_every = 0
threads = 1
device = "cpu"

[train.net]
blocks = 1
channels = 16
EOF

SHARED="$STATE/shared"
export HANE CFG SHARED BATCHES GAMES
# docs/scaling.md's array, with variables for its paths and a fixed number of batches instead of
# `for ((b = 0; ; b++))`. Folder and seed follow from the task and batch numbers alone, so a
# requeued task reruns the same commands: hane skips the games whose SGF exists and plays
# the rest. --model only once the trainer has written a checkpoint (before that hane
# selfplay --model TRAIN_DIR stops with "no checkpoint"); here the trainer runs after the
# array, so these games all use the uniform evaluator.
cat >"$STATE/selfplay.sbatch" <<'EOF'
#!/bin/bash
#SBATCH --cpus-per-task=1 --requeue --open-mode=append
for ((b = 0; b < BATCHES; b++)); do
  model=(); compgen -G "$SHARED/train/checkpoints/step-*.safetensors" >/dev/null && model=(--model "$SHARED/train")
  "$HANE" selfplay --config "$CFG" --games "$GAMES" --seed $((SLURM_ARRAY_TASK_ID * 1000000 + b)) \
    "${model[@]}" --out "$SHARED/selfplay/w$SLURM_ARRAY_TASK_ID/b$b" || exit
done
EOF
ARRAY=$(sbatch --parsable --array="0-$((TASKS - 1))" --chdir="$STATE" \
    --output="$STATE/log/selfplay-%A_%a.out" "$STATE/selfplay.sbatch")
ARRAY=${ARRAY%%;*}
# The trainer starts when every array task has succeeded (afterok) rather than beside them:
# `hane train` stops at once on a data folder without shards, and its window is fixed
# between rescans, so started later it sees every worker's output in its first scan and the
# check is exact, with no guess at how long to keep it running. An array that fails
# cancels it (--kill-on-invalid-dep) instead of leaving it pending for ever.
TRAIN=$(sbatch --parsable --dependency="afterok:$ARRAY" --kill-on-invalid-dep=yes \
    --cpus-per-task=1 --chdir="$STATE" --output="$STATE/log/train-%j.out" \
    --wrap="exec \"$HANE\" train --config \"$CFG\" --data \"$SHARED/selfplay\" --out \"$SHARED/train\"")
TRAIN=${TRAIN%%;*}
log "submitted self-play array $ARRAY ($TASKS tasks x $BATCHES batches x $GAMES games) and trainer $TRAIN"

# --- 3. Requeue one task mid-run --------------------------------------------------------------

folders() { # the output folders of task $1
    local b
    for ((b = 0; b < BATCHES; b++)); do echo "w$1/b$b"; done
}
# The kill lands in a task's last batch when it has several: its earlier folders are
# complete and one is partly played, so the rerun both walks finished folders (playing
# nothing there) and resumes a partial one.
TOTAL=$((BATCHES * GAMES))
WANT=$((BATCHES > 1 ? (BATCHES - 1) * GAMES + 1 : 1))
VICTIM=""
deadline=$((SECONDS + 300))
while [ -z "$VICTIM" ]; do
    [ "$SECONDS" -lt "$deadline" ] || die "no running task with $WANT to $((TOTAL - 1)) games within 300 s"
    [ -n "$(squeue -h -j "$ARRAY")" ] || die "the array finished before a task could be requeued mid-run"
    while read -r task state; do
        [ "$state" = RUNNING ] || continue
        [ -n "$(find "$SHARED/selfplay/w$task" -name '*.sgf' -print -quit 2>/dev/null)" ] || continue
        # The games it has now (singles and packs alike), and its files' identities.
        mapfile -t dirs < <(folders "$task")
        python scripts/count_games.py snapshot "$SHARED/selfplay" "${dirs[@]}" >"$STATE/prekill.json"
        have=$(python -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["names"]))' "$STATE/prekill.json")
        if [ "$have" -ge "$WANT" ] && [ "$have" -lt "$TOTAL" ]; then
            scontrol requeue "${ARRAY}_$task"
            VICTIM=$task
            log "requeued task $task (${ARRAY}_$task) with $have of its $TOTAL games finished"
            break
        fi
    done < <(squeue -h -r -j "$ARRAY" -t RUNNING -o '%K %T')
    [ -n "$VICTIM" ] || sleep 0.2
done

# --- 4. Wait for every job --------------------------------------------------------------------

deadline=$((SECONDS + 600))
while [ -n "$(squeue -h)" ]; do
    [ "$SECONDS" -lt "$deadline" ] || die "jobs still queued after 600 s: $(squeue)"
    sleep 1
done

# --- 5. Checks and summary --------------------------------------------------------------------

failed=0
# One line per job from scontrol: the array's tasks in order, then the trainer.
jobs=$(for ((t = 0; t < TASKS; t++)); do scontrol -o show job "${ARRAY}_$t"; done
    scontrol -o show job "$TRAIN")
field() { grep -o "\b$1=[^ ]*" <<<"$2" | head -1 | cut -d= -f2 || true; } # KEY RECORD: value
echo "jobs:"
while read -r rec; do
    id=$(field JobId "$rec") task=$(field ArrayTaskId "$rec") state=$(field JobState "$rec")
    restarts=$(field Restarts "$rec") code=$(field ExitCode "$rec")
    name=$([ -n "$task" ] && echo "selfplay ${ARRAY}_$task" || echo "train $id")
    printf '  %-16s job %-4s %-10s exit %-5s restarts %s\n' "$name" "$id" "$state" "$code" "$restarts"
    if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
        echo "  FAIL: $name did not complete with exit code 0"
        failed=1
    fi
    if [ "$task" = "$VICTIM" ] && [ "${restarts:-0}" -lt 1 ]; then
        echo "  FAIL: the requeued task $task shows no restart"
        failed=1
    fi
done <<<"$jobs"

# Games played, by the summaries of every hane selfplay run in the task logs (a killed run
# prints its summary too when it stops on SIGTERM within KillWait): more than requested
# would mean a game played twice.
played=$(cat "$STATE"/log/selfplay-*.out | { grep -oE '^[0-9]+ games \([0-9]+ already done\)' || true; } |
    awk '{n += $1} END {print n + 0}')
echo "games played by the logs' summaries: $played of $((TASKS * TOTAL)) requested"
if [ "$played" -gt $((TASKS * TOTAL)) ]; then
    echo "FAIL: more games played than requested"
    failed=1
fi

mapfile -t all_dirs < <(for ((t = 0; t < TASKS; t++)); do folders "$t"; done)
python scripts/count_games.py check "$SHARED/selfplay" "${all_dirs[@]}" --games "$GAMES" \
    --keep "$STATE/prekill.json" --train-log "$STATE/log/train-$TRAIN.out" || failed=1

[ "$failed" -eq 0 ] || die "see above; logs in $STATE/log"
log "OK"
