#!/usr/bin/env bash
# tfd train --checkpoint_dir / --export_dir, tfd inspect and tfd evaluate
# end to end on a tiny Fashion-MNIST-shaped dataset written here (96
# training and 32 test images):
#   - a 1-epoch run saves ckpt-1 and exports a SavedModel;
#   - a 2-epoch run over the same directory resumes after epoch 1, and
#     the custom loop resumes from Fit's checkpoint;
#   - under mixed_float16 the loss scale and its good steps are saved and
#     both loops resume with them;
#   - inspect lists the checkpoint's and the SavedModel's variables and
#     the SavedModel's signature;
#   - evaluate of the export reports the loss and accuracy that training's
#     own evaluation printed for the same weights;
#   - bad paths and flags fail with a clear error and a non-zero status.
set -u
TFD="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/tfd/tfd"
DATA="$TEST_TMPDIR/data"
CKPT="$TEST_TMPDIR/ckpts"
EXPORT="$TEST_TMPDIR/export"
mkdir -p "$DATA"
failures=0

source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/tfd/tiny_fashion_data.sh"
write_tiny_fashion_data "$DATA"

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# check NAME FILE PATTERN: FILE contains PATTERN.
check() { grep -q -- "$3" "$2" || { fail "$1: no '$3' in:"; cat "$2"; }; }
# check_absent NAME FILE PATTERN: FILE does not contain PATTERN.
check_absent() { ! grep -q -- "$3" "$2" || { fail "$1: unexpected '$3' in:"; cat "$2"; }; }
# expect_status NAME STATUS OUT CMD...: CMD exits with STATUS.
expect_status() {
  local name="$1" want="$2" out="$3"; shift 3
  "$@" >"$out" 2>&1
  local got=$?
  [[ $got == "$want" ]] || { fail "$name: exit status $got, want $want:"; cat "$out"; }
}

train=(--data_dir="$DATA" --model=fashion_mlp --batch_size=32 --checkpoint_dir="$CKPT")

# One epoch: a checkpoint and an export.
out="$TEST_TMPDIR/train1"
expect_status train1 0 "$out" "$TFD" train "${train[@]}" --epochs=1 --export_dir="$EXPORT"
check train1 "$out" "Saved checkpoint for epoch 1: $CKPT/ckpt-1$"
check train1 "$out" "Exported SavedModel to $EXPORT$"
check_absent train1 "$out" "Restored"
[[ -f "$CKPT/ckpt-1.index" && -f "$CKPT/checkpoint" ]] || fail "train1: no ckpt-1 in $CKPT"
[[ -f "$EXPORT/saved_model.pb" ]] || fail "train1: no saved_model.pb in $EXPORT"
trained_test_line=$(grep '^test_loss: ' "$out")

# Two epochs over the same directory: resumes after epoch 1.
out="$TEST_TMPDIR/train2"
expect_status train2 0 "$out" "$TFD" train "${train[@]}" --epochs=2
check train2 "$out" "Restored from $CKPT/ckpt-1: 1 epoch done$"
check train2 "$out" "^Epoch 2/2"
check_absent train2 "$out" "^Epoch 1/2"
check train2 "$out" "Saved checkpoint for epoch 2: $CKPT/ckpt-2$"
check train2 "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"

# Already trained for 2 epochs: nothing left to train, still evaluated.
out="$TEST_TMPDIR/train3"
expect_status train3 0 "$out" "$TFD" train "${train[@]}" --epochs=2
check train3 "$out" "Restored from $CKPT/ckpt-2: 2 epochs done$"
check_absent train3 "$out" "^Epoch "
check train3 "$out" "^test_loss: "

# The custom loop goes on from Fit's checkpoint (the same model and Adam
# state) and saves the next epoch's.
out="$TEST_TMPDIR/train_custom"
expect_status train_custom 0 "$out" "$TFD" train "${train[@]}" --epochs=3 --loop=custom
check train_custom "$out" "Restored from $CKPT/ckpt-2: 2 epochs done$"
check train_custom "$out" "^Epoch 3, Loss: "
check_absent train_custom "$out" "^Epoch 2, "
check train_custom "$out" "Saved checkpoint for epoch 3: $CKPT/ckpt-3$"
check train_custom "$out" "^test_loss: "

# A checkpoint of another model is refused, not half restored.
out="$TEST_TMPDIR/train_other_model"
expect_status train_other_model 1 "$out" "$TFD" train "${train[@]}" --model=fashion_cnn
check train_other_model "$out" "tfd train: "

# inspect: the checkpoint directory (its latest) and a prefix.
out="$TEST_TMPDIR/inspect_ckpt"
expect_status inspect_ckpt 0 "$out" "$TFD" inspect "$CKPT"
check inspect_ckpt "$out" "^model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE float32 \[784,128\]$"
check inspect_ckpt "$out" "^model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE float32 \[10\]$"
check inspect_ckpt "$out" "^save_counter/.ATTRIBUTES/VARIABLE_VALUE int64 \[\]$"
check inspect_ckpt "$out" "^optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE int64 \[\]$"
out="$TEST_TMPDIR/inspect_prefix"
expect_status inspect_prefix 0 "$out" "$TFD" inspect "$CKPT/ckpt-1"
check inspect_prefix "$out" "^_CHECKPOINTABLE_OBJECT_GRAPH string \[\]$"

# inspect: the SavedModel's variables and signature.
out="$TEST_TMPDIR/inspect_export"
expect_status inspect_export 0 "$out" "$TFD" inspect "$EXPORT"
check inspect_export "$out" "^variables ($EXPORT/variables/variables):$"
check inspect_export "$out" "^  dense/kernel float32 \[784,128\]$"
check inspect_export "$out" "^MetaGraphDef with tag-set: 'serve'$"
check inspect_export "$out" "^  signature_def\['serving_default'\] (tensorflow/serving/predict):$"
check inspect_export "$out" "^    inputs\['input_1'\]: dtype float32 shape \[-1,28,28,1\] name "
check inspect_export "$out" "^    outputs\['dense_1'\]: dtype float32 shape \[-1,10\] name "

# evaluate: the export scores what training's own evaluation scored.
out="$TEST_TMPDIR/evaluate"
expect_status evaluate 0 "$out" "$TFD" evaluate --saved_model="$EXPORT" --data_dir="$DATA"
check evaluate "$out" "^32 test images$"
check evaluate "$out" "^${trained_test_line}$"
out="$TEST_TMPDIR/evaluate_limit"
expect_status evaluate_limit 0 "$out" "$TFD" evaluate --saved_model="$EXPORT" \
  --data_dir="$DATA" --limit=20 --batch_size=8
check evaluate_limit "$out" "^20 test images$"
check evaluate_limit "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"

# Bad paths and usage.
out="$TEST_TMPDIR/bad"
expect_status inspect_missing 1 "$out" "$TFD" inspect "$TEST_TMPDIR/nope"
check inspect_missing "$out" "tfd inspect: NOT_FOUND: .*nope"
mkdir -p "$TEST_TMPDIR/corrupt" && echo "not a proto" >"$TEST_TMPDIR/corrupt/saved_model.pb"
expect_status inspect_corrupt 1 "$out" "$TFD" inspect "$TEST_TMPDIR/corrupt"
check inspect_corrupt "$out" "tfd inspect: DATA_LOSS: .*saved_model.pb is not a valid SavedModel"
expect_status inspect_no_path 2 "$out" "$TFD" inspect
expect_status evaluate_missing 1 "$out" "$TFD" evaluate --saved_model="$TEST_TMPDIR/nope" \
  --data_dir="$DATA"
check evaluate_missing "$out" "tfd evaluate: NOT_FOUND: "
expect_status evaluate_no_model 2 "$out" "$TFD" evaluate --data_dir="$DATA"
check evaluate_no_model "$out" "--saved_model is required"
expect_status export_again 1 "$out" "$TFD" train "${train[@]}" --epochs=3 --export_dir="$EXPORT"
check export_again "$out" "tfd train: ALREADY_EXISTS: "
expect_status custom_backup 2 "$out" "$TFD" train --loop=custom --backup_dir="$TEST_TMPDIR/b"
check custom_backup "$out" "--backup_dir needs --loop=fit"

# mixed_float16: the loss scale and its count of finite steps (3 batches an
# epoch) are saved with Keras's keys, and both loops resume with them
# instead of starting again at 2^15 and 0.
mixed=(--data_dir="$DATA" --model=fashion_mlp --batch_size=32 --policy=mixed_float16
       --checkpoint_dir="$TEST_TMPDIR/mixed_ckpts")
out="$TEST_TMPDIR/mixed1"
expect_status mixed1 0 "$out" "$TFD" train "${mixed[@]}" --epochs=1
check mixed1 "$out" "Saved checkpoint for epoch 1: "
expect_status mixed_inspect 0 "$out" "$TFD" inspect "$TEST_TMPDIR/mixed_ckpts"
check mixed_inspect "$out" \
  "^optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE float32 \[\]$"
check mixed_inspect "$out" "^optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE int64 \[\]$"
out="$TEST_TMPDIR/mixed2"
expect_status mixed2 0 "$out" "$TFD" train "${mixed[@]}" --epochs=2
check mixed2 "$out" "^Restored loss scale 32768 (good steps: 3)$"
out="$TEST_TMPDIR/mixed_custom"
expect_status mixed_custom 0 "$out" "$TFD" train "${mixed[@]}" --epochs=3 --loop=custom
check mixed_custom "$out" "^Restored loss scale 32768 (good steps: 6)$"
check mixed_custom "$out" "Saved checkpoint for epoch 3: "
out="$TEST_TMPDIR/mixed4"
expect_status mixed4 0 "$out" "$TFD" train "${mixed[@]}" --epochs=3
check mixed4 "$out" "^Restored loss scale 32768 (good steps: 9)$"

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "PASS"
