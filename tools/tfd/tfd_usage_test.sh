#!/usr/bin/env bash
# The tfd binary answers bad usage with the usage text on stderr and exit
# status 2, and --help with the usage on stdout and status 0.
set -u
TFD="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/tfd/tfd"
failures=0

# expect STATUS PATTERN STREAM ARGS...: runs tfd ARGS and checks the exit
# status and that STREAM (stdout or stderr) contains PATTERN.
expect() {
  local want_status="$1" pattern="$2" stream="$3"
  shift 3
  "$TFD" "$@" >"$TEST_TMPDIR/out" 2>"$TEST_TMPDIR/err"
  local status=$?
  local text
  if [[ "$stream" == stdout ]]; then text="$(cat "$TEST_TMPDIR/out")"; else text="$(cat "$TEST_TMPDIR/err")"; fi
  if [[ "$status" != "$want_status" ]]; then
    echo "FAIL: tfd $* exited $status, want $want_status"; failures=$((failures + 1))
  elif [[ "$text" != *"$pattern"* ]]; then
    echo "FAIL: tfd $*: $stream lacks '$pattern':"; echo "$text"; failures=$((failures + 1))
  fi
}

expect 2 "usage: tfd <command>" stderr
expect 2 "unknown command 'fit'" stderr fit
expect 0 "usage: tfd <command>" stdout help
expect 0 "usage: tfd train" stdout train --help
expect 2 "unknown flag --bogus" stderr train --bogus=1
expect 2 "usage: tfd train" stderr train --bogus=1
expect 2 "--model must be one of fashion_cnn, fashion_mlp, got 'vgg'" stderr train --model=vgg
expect 2 "--epochs must be an integer >= 1" stderr train --epochs=0
expect 2 "one_device runs one replica" stderr train --replicas=3
expect 2 "--devices must be one of auto, cpu, gpu, got 'tpu'" stderr train --devices=tpu
expect 2 "--devices=gpu runs one replica per GPU" stderr train --strategy=mirrored --devices=gpu --replicas=2
expect 1 "UNIMPLEMENTED: --model_json is not supported with --strategy=parameter_server" stderr \
  train --strategy=parameter_server --model_json="$TEST_TMPDIR/model.json"
expect 2 "--policy must be one of float32, mixed_float16, mixed_bfloat16, got 'fp8'" stderr \
  train --policy=fp8
expect 1 "UNIMPLEMENTED: --policy=mixed_bfloat16 is not supported with --strategy=parameter_server" \
  stderr train --strategy=parameter_server --policy=mixed_bfloat16
# A good command line with a missing dataset fails (status 1) without usage.
expect 1 "NOT_FOUND" stderr train --data_dir="$TEST_TMPDIR/no-such-dir"

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "PASS"
