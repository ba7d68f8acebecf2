#!/usr/bin/env bash
# Runs the C example on a small slice of Fashion-MNIST and checks what it
# printed: a summary, an epoch with loss and accuracy, a test accuracy
# above chance, the checkpoint's files, and the exported SavedModel served
# through TF_SessionRun giving the model's own predictions (within 1e-6).
set -euo pipefail
example="$1"
data_dir=/usr/share/datasets/fashion-mnist
if [ ! -e "$data_dir/train-images-idx3-ubyte.gz" ]; then
  echo "Fashion-MNIST is missing from $data_dir (tools/setup.sh installs it)"
  exit 1
fi
out="$TEST_TMPDIR/out"
log="$TEST_TMPDIR/log.txt"
"$example" --data_dir "$data_dir" --out_dir "$out" --examples 512 --epochs 2 --replicas 2 \
  | tee "$log"
grep -q 'Model: "fashion_mnist_mlp"' "$log"
grep -q 'Total params: 101770' "$log"
grep -Eq '^Epoch 2/2 - 8 steps - loss: [0-9.]+ - accuracy: [0-9.]+$' "$log"
accuracy=$(sed -n 's/^test loss: [0-9.]* - test accuracy: \([0-9.]*\)$/\1/p' "$log")
awk -v a="$accuracy" 'BEGIN { exit !(a > 0.3) }' || { echo "test accuracy $accuracy"; exit 1; }
grep -q "^checkpoint: $out/checkpoints/ckpt-1\$" "$log"
test -s "$out/checkpoints/ckpt-1.index"
test -s "$out/checkpoints/checkpoint"
test -s "$out/saved_model/saved_model.pb"
diff=$(sed -n 's/^SavedModel logits: \[4, 10\], max |difference| from the model.s: \(.*\)$/\1/p' "$log")
[ -n "$diff" ] || { echo "no SavedModel predictions"; exit 1; }
awk -v d="$diff" 'BEGIN { exit !(d <= 1e-6) }' || { echo "SavedModel differs by $diff"; exit 1; }
grep -q '^predicted logits: \[4, 10\]$' "$log"
echo "fashion_mnist_mlp_test: passed"
