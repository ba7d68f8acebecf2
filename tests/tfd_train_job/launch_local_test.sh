#!/usr/bin/env bash
# tools/launch_local.sh starting jobs of `tfd train` on this machine:
#   - 2 workers and an evaluator: status 0, a log file per task, the
#     output prefixed with the task, the same test line from both workers,
#     the evaluator done after the last checkpoint;
#   - a separate chief (-c) is the chief;
#   - with a ps task (-p) tfd train's clear errors, and a failure status;
#   - a task that fails stops the job at once, with that task's status;
#   - bad usage exits with status 2;
#   - the long options (--workers=N, --ps=N, ...) work as the short ones.
set -u
RUNFILES="${TEST_SRCDIR}/${TEST_WORKSPACE}"
LAUNCH="$RUNFILES/tools/launch_local.sh"
TFD="$RUNFILES/tools/tfd/tfd"
DATA="$TEST_TMPDIR/data"
"$RUNFILES/tests/tfd_train_job/write_tiny_fashion_mnist" "$DATA" 512 64 || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# check NAME FILE PATTERN: FILE contains PATTERN.
check() { grep -q -- "$3" "$2" || { fail "$1: no '$3' in $2:"; cat "$2"; }; }
train=("$TFD" train --strategy=multi_worker_mirrored --model=fashion_mlp --data_dir="$DATA"
       --batch_size=32 --heartbeat_timeout_s=3)

# Two workers and an evaluator.
logs="$TEST_TMPDIR/job"
out="$TEST_TMPDIR/job.out"
"$LAUNCH" -n 2 -e -l "$logs" -t 120 -- "${train[@]}" --epochs=2 \
  --checkpoint_dir="$TEST_TMPDIR/ckpt" >"$out" 2>&1
status=$?
[[ $status == 0 ]] || { fail "job: status $status"; cat "$out"; }
for task in worker-0 worker-1 evaluator-0; do
  [[ -s "$logs/$task.log" ]] || fail "job: no log $logs/$task.log"
done
check job "$out" '^\[worker:1\] MultiWorkerMirroredStrategy with 2 replicas'
check job "$logs/worker-0.log" "Task worker 0 (rank 0 of 2, the chief)"
line0=$(grep -o 'test_loss: .*' "$logs/worker-0.log" | tail -1)
line1=$(grep -o 'test_loss: .*' "$logs/worker-1.log" | tail -1)
[[ -n "$line0" && "$line0" == "$line1" ]] || fail "job: test lines differ: '$line0' '$line1'"
check job "$logs/evaluator-0.log" "Evaluator: the last checkpoint (epoch 2) is evaluated"

# A separate chief.
logs="$TEST_TMPDIR/chief"
"$LAUNCH" -c -n 1 -l "$logs" -t 120 -- "${train[@]}" >"$TEST_TMPDIR/chief.out" 2>&1
status=$?
[[ $status == 0 ]] || { fail "chief: status $status"; cat "$TEST_TMPDIR/chief.out"; }
check chief "$logs/chief-0.log" "Task chief 0 (rank 0 of 2, the chief)"
check chief "$logs/worker-0.log" "Task worker 0 (rank 1 of 2)"

# A ps job under multi_worker_mirrored (the long options): every task
# refuses it alike, so the message does not depend on which fails first.
out="$TEST_TMPDIR/ps.out"
"$LAUNCH" --workers=1 --ps=1 --logdir="$TEST_TMPDIR/ps" --timeout=60 -- "${train[@]}" >"$out" 2>&1
status=$?
[[ $status == 1 ]] || fail "ps: status $status, want 1"
check ps "$out" "INVALID_ARGUMENT: the cluster .* has a ps job"

# Worker 1 fails at once: the chief, which would run for a minute, is
# stopped and the job ends with worker 1's status.
out="$TEST_TMPDIR/fail.out"
start=$SECONDS
"$LAUNCH" -n 2 -l "$TEST_TMPDIR/fail" -t 120 -- \
  bash -c 'case "$TF_CONFIG" in *"\"index\": 1"*) exit 3 ;; esac; sleep 60' >"$out" 2>&1
status=$?
[[ $status == 3 ]] || { fail "fail: status $status, want 3"; cat "$out"; }
(( SECONDS - start < 30 )) || fail "fail: the job took $((SECONDS - start)) s to stop"
check fail "$out" "worker:1 failed with status 3; stopping the job"

# Bad usage.
"$LAUNCH" -n 0 -- true >/dev/null 2>&1
status=$?
[[ $status == 2 ]] || fail "usage: status $status, want 2"
"$LAUNCH" --workers=1 --bogus -- true >/dev/null 2>&1
status=$?
[[ $status == 2 ]] || fail "unknown option: status $status, want 2"

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "PASS"
