#!/usr/bin/env bash
# Runs the README's C snippet: it must train to a good accuracy.
set -euo pipefail
out=$("$1")
echo "$out"
accuracy=$(sed -n 's/^loss [0-9.]*, accuracy \([0-9.]*\), .*$/\1/p' <<<"$out")
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.9) }' || { echo "accuracy $accuracy < 0.9"; exit 1; }
