#!/usr/bin/env bash
# Starts a multi-worker job on this machine for trying it out: N worker
# processes (and optionally P parameter servers), each with its own
# TF_CONFIG as Kubernetes or a TF_CONFIG-aware launcher would set it, on
# free localhost ports. Worker 0 is the chief (it runs the coordination
# service). Output lines are prefixed with the task; the script waits for
# every task, stops them all when one fails or on Ctrl-C, and exits with
# the first failure's status.
#
#   tools/launch_local.sh -n 2 -- bazel-bin/tests/multiworker/mlp_worker \
#       --strategy=multi_worker --steps=20 --out=/tmp/mlp
#   tools/launch_local.sh -n 2 -p 1 -t 300 -- my_trainer --flag=value
set -euo pipefail

usage() {
  echo "usage: $0 -n WORKERS [-p PS] [-t TIMEOUT_SECONDS] -- PROGRAM [ARGS...]" >&2
  exit 2
}

workers=0
ps=0
timeout_s=600
while getopts "n:p:t:h" opt; do
  case "$opt" in
    n) workers="$OPTARG" ;;
    p) ps="$OPTARG" ;;
    t) timeout_s="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
[[ $# -ge 1 && "$workers" -ge 1 ]] || usage

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

cluster="\"worker\": [$(job_list "$workers")]"
if [[ "$ps" -gt 0 ]]; then cluster+=", \"ps\": [$(job_list "$ps")]"; fi

pids=()
tasks=()
start_task() {  # start_task TYPE INDEX PROGRAM...
  local type="$1" index="$2"
  shift 2
  local config="{\"cluster\": {$cluster}, \"task\": {\"type\": \"$type\", \"index\": $index}}"
  # The subshell's status is the program's (not sed's); `timeout` passes a
  # TERM from stop_all on to the program and kills it at the time limit.
  (
    TF_CONFIG="$config" timeout --kill-after=10 "$timeout_s" "$@" 2>&1 |
      sed -u "s/^/[$type:$index] /"
    exit "${PIPESTATUS[0]}"
  ) &
  pids+=("$!")
  tasks+=("$type:$index")
}

stop_all() {
  local pid
  for pid in "${pids[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; done
}
trap 'stop_all; exit 130' INT TERM

echo "cluster: {$cluster}"
for ((i = 0; i < ps; ++i)); do start_task ps "$i" "$@"; done
for ((i = 0; i < workers; ++i)); do start_task worker "$i" "$@"; done

status=0
for i in "${!pids[@]}"; do
  code=0
  wait "${pids[$i]}" || code=$?
  if [[ "$code" -ne 0 ]]; then
    echo "${tasks[$i]} failed with status $code; stopping the job" >&2
    [[ "$status" -eq 0 ]] && status=$code
    stop_all
  fi
done
exit "$status"
