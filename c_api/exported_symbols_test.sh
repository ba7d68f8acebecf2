#!/usr/bin/env bash
# The ABI guard: every symbol in the committed list must still be exported
# by libtfd.so (removals break users), and nothing but TF_* / TFD_* may be.
# New symbols are fine; they are printed so the list can be extended.
# c_robustness_test checks that every listed function has bad-input cases.
set -euo pipefail
lib="$1"
list="$2"
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
status=0
while read -r sym; do
  [ -z "$sym" ] && continue
  if ! grep -qx "$sym" <<<"$exported"; then
    echo "REMOVED from libtfd.so (ABI break): $sym"
    status=1
  fi
done < "$list"
stray=$(grep -vE '^(TF_|TFD_)' <<<"$exported" || true)
if [ -n "$stray" ]; then
  echo "libtfd.so exports symbols outside the C API:"
  echo "$stray" | head -20
  status=1
fi
added=$(comm -13 <(sort -u "$list") <(echo "$exported") || true)
[ -n "$added" ] && echo "new symbols (add them to c_api/exported_symbols.txt): $added"
count=$(wc -l <<<"$exported")
echo "libtfd.so exports $count symbols"
exit $status
