#!/usr/bin/env bash
# Starts a multi-worker job on this machine for trying it out: N worker
# processes (and optionally a separate chief, P parameter servers and an
# evaluator), each with its own TF_CONFIG as Kubernetes or a
# TF_CONFIG-aware launcher would set it, on free localhost ports. Without
# -c, worker 0 is the chief (it runs the coordination service).
#
# Each task's output goes to LOGDIR/<type>-<index>.log and, prefixed with
# the task, to this script's output. The script stops every task when one
# fails (or on Ctrl-C), and exits with the chief's status; when another
# task failed first (so the chief was stopped, or failed for it), with
# that task's status.
# The machine's cores are split between the tasks (OMP_NUM_THREADS, unless
# set), and idle OpenMP threads do not spin (GOMP_SPINCOUNT=100, unless
# set), so the tasks do not starve each other.
#
#   tools/launch_local.sh -n 2 -- bazel-bin/tools/tfd/tfd train \
#       --strategy=multi_worker_mirrored --model=fashion_mlp --checkpoint_dir=/tmp/ckpt
#   tools/launch_local.sh --workers=2 --evaluator --logdir=/tmp/job-logs -- bazel-bin/tools/tfd/tfd train \
#       --strategy=multi_worker_mirrored --checkpoint_dir=/tmp/ckpt --logdir=/tmp/tb
#   tools/launch_local.sh -n 2 -p 1 -t 300 -- my_trainer --flag=value
#
# With -p the job is a parameter-server job (with -c, its chief):
#
#   tools/launch_local.sh -n 2 -c -p 1 -- bazel-bin/tools/tfd/tfd train \
#       --strategy=parameter_server --model=fashion_mlp --epochs=3
#
# Its workers and ps tasks serve until they are stopped, as TensorFlow's
# servers do, so once the chief has finished the script stops them.
set -euo pipefail

usage() {
  echo "usage: $0 -n WORKERS [-c] [-p PS] [-e] [-l LOGDIR] [-t TIMEOUT_SECONDS] -- PROGRAM [ARGS...]" >&2
  echo "  -n, --workers=N   worker tasks" >&2
  echo "  -c, --chief       a separate chief task (else worker 0 is the chief)" >&2
  echo "  -p, --ps=N        parameter-server tasks" >&2
  echo "  -e, --evaluator   an evaluator task" >&2
  echo "  -l, --logdir=D    where each task's log goes (default: a new temporary directory)" >&2
  echo "  -t, --timeout=S   each task is stopped after S seconds (default 600)" >&2
  exit 2
}

# The long options, as their short forms for getopts; the program and its
# arguments start at "--" or at the first word that is not an option.
short=()
while [[ $# -gt 0 && "$1" != "--" && "$1" == -* ]]; do
  case "$1" in
    -[nplt]) short+=("$1" "${2:-}"); shift ;;
    --workers=*) short+=(-n "${1#*=}") ;;
    --chief) short+=(-c) ;;
    --ps=*) short+=(-p "${1#*=}") ;;
    --evaluator) short+=(-e) ;;
    --logdir=*) short+=(-l "${1#*=}") ;;
    --timeout=*) short+=(-t "${1#*=}") ;;
    --help) usage ;;
    --*) echo "unknown option $1" >&2; usage ;;
    *) short+=("$1") ;;
  esac
  shift
done
set -- "${short[@]}" "$@"

workers=0
chief=0
ps=0
evaluator=0
logdir=""
timeout_s=600
while getopts "n:cp:el:t:h" opt; do
  case "$opt" in
    n) workers="$OPTARG" ;;
    c) chief=1 ;;
    p) ps="$OPTARG" ;;
    e) evaluator=1 ;;
    l) logdir="$OPTARG" ;;
    t) timeout_s="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
[[ $# -ge 1 && "$workers" =~ ^[0-9]+$ && "$ps" =~ ^[0-9]+$ && $((workers + chief)) -ge 1 ]] || usage

if [[ -z "$logdir" ]]; then logdir="$(mktemp -d "${TMPDIR:-/tmp}/tfd-job.XXXXXX")"; fi
mkdir -p "$logdir"

tasks_total=$((workers + chief + ps + evaluator))
cores="$(nproc 2>/dev/null || echo 1)"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( cores / tasks_total > 0 ? cores / tasks_total : 1 ))}"
export GOMP_SPINCOUNT="${GOMP_SPINCOUNT:-100}"

# A port nobody listens on now (bash's /dev/tcp connects when one does).
used_ports=" "
free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 20000))
    [[ "$used_ports" == *" $port "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      used_ports+="$port "
      echo "$port"
      return
    fi
  done
}

job_list() {  # job_list COUNT -> "localhost:p1", "localhost:p2"
  local list="" i
  for ((i = 0; i < $1; ++i)); do
    list+="${list:+, }\"localhost:$(free_port)\""
  done
  echo "$list"
}

cluster=""
add_job() {  # add_job NAME COUNT
  [[ "$2" -gt 0 ]] || return 0
  cluster+="${cluster:+, }\"$1\": [$(job_list "$2")]"
}
add_job chief "$chief"
add_job worker "$workers"
add_job ps "$ps"
add_job evaluator "$evaluator"

pids=()
declare -A running  # pid -> "type:index", until the task ends
start_task() {  # start_task TYPE INDEX PROGRAM...
  local type="$1" index="$2"
  shift 2
  local config="{\"cluster\": {$cluster}, \"task\": {\"type\": \"$type\", \"index\": $index}}"
  local log="$logdir/$type-$index.log"
  # The subshell's status is the program's (not tee's or sed's); `timeout`
  # passes a TERM from stop_all on to the program and kills it at the time
  # limit.
  (
    TF_CONFIG="$config" timeout --kill-after=10 "$timeout_s" "$@" 2>&1 |
      tee "$log" | sed -u "s/^/[$type:$index] /"
    exit "${PIPESTATUS[0]}"
  ) &
  pids+=("$!")
  running[$!]="$type:$index"
}

# A task started just before the stop may not have forked its program yet
# (seen on a loaded machine: a worker failing at once left the chief
# running to its end): while its subshell lives and has no child to
# signal, try again, for at most 5 s.
stop_all() {
  local pid tries
  for pid in "${pids[@]}"; do
    for ((tries = 0; tries < 50; ++tries)); do
      pkill -TERM -P "$pid" 2>/dev/null && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  done
}
trap 'stop_all; exit 130' INT TERM

echo "cluster: {$cluster}"
echo "logs: $logdir"
for ((i = 0; i < ps; ++i)); do start_task ps "$i" "$@"; done
if [[ "$chief" -eq 1 ]]; then start_task chief 0 "$@"; fi
for ((i = 0; i < workers; ++i)); do start_task worker "$i" "$@"; done
if [[ "$evaluator" -eq 1 ]]; then start_task evaluator 0 "$@"; fi
chief_task="chief:0"
[[ "$chief" -eq 1 ]] || chief_task="worker:0"

# Tasks are reaped as they end, whatever the order, so the first failure
# stops the others at once.
chief_status=""
first_failure=0
while [[ ${#running[@]} -gt 0 ]]; do
  code=0
  done_pid=""
  wait -n -p done_pid "${!running[@]}" || code=$?
  [[ -n "$done_pid" ]] || break
  task="${running[$done_pid]}"
  unset "running[$done_pid]"
  [[ "$task" == "$chief_task" ]] && chief_status="$code"
  if [[ "$task" == "$chief_task" && "$code" -eq 0 && "$ps" -gt 0 ]]; then
    chief_done=1
    stop_all
    continue
  fi
  if [[ "$code" -ne 0 && "$first_failure" -eq 0 && -z "${chief_done:-}" ]]; then
    echo "$task failed with status $code; stopping the job (logs: $logdir)" >&2
    first_failure=$code
    if [[ "$task" != "$chief_task" ]]; then failed_first="$task"; fi
    stop_all
  fi
done

if [[ -n "${failed_first:-}" || -z "$chief_status" ]]; then
  exit "$first_failure"
fi
exit "$chief_status"
