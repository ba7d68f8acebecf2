#!/usr/bin/env bash
# README.md's code snippets must be exactly the example files that other
# tests build and run. A snippet is a fenced block right after a line
#   <!-- snippet: path/to/example/file -->
# and this test fails when a block differs from its file, when a file
# named there is not among the test's arguments, when an argument is not
# shown in README, or when README lacks a C, a Java or a Go snippet.
# Arguments: README.md, then the example files.
set -uo pipefail
readme="$1"
shift
status=0
count=0
diff_file="${TEST_TMPDIR:-/tmp}/snippet_diff.$$"
shown=()
languages=" "
while IFS= read -r path; do
  count=$((count + 1))
  shown+=("$path")
  # The fence that opens the snippet names its language.
  languages+="$(grep -A1 -xF "<!-- snippet: ${path} -->" "$readme" | sed -n '2s/^```//p') "
  block=$(awk -v want="<!-- snippet: ${path} -->" '
    $0 == want { armed = 1; next }
    armed && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }
  ' "$readme")
  file=""
  for candidate in "$@"; do
    [[ "$candidate" == *"$path" ]] && file="$candidate"
  done
  if [ -z "$file" ]; then
    echo "FAIL: README names $path, which is not among the test's data"
    status=1
    continue
  fi
  if ! diff <(printf '%s\n' "$block") "$file" > "$diff_file"; then
    echo "FAIL: README's snippet differs from $path:"
    cat "$diff_file"
    status=1
  fi
  rm -f "$diff_file"
done < <(sed -n 's/^<!-- snippet: \(.*\) -->$/\1/p' "$readme")

# Every example given to the test is shown: the list of examples and
# README change together.
for file in "$@"; do
  found=0
  for path in "${shown[@]+"${shown[@]}"}"; do
    [[ "$file" == *"$path" ]] && found=1
  done
  if [ "$found" -eq 0 ]; then
    echo "FAIL: $file is among the test's data but README shows no snippet of it"
    status=1
  fi
done

# The C, Java and Go users each find a checked snippet.
for language in c java go; do
  if [[ "$languages" != *" $language "* ]]; then
    echo "FAIL: README has no checked $language snippet (a \`\`\`$language block after a snippet line)"
    status=1
  fi
done
if [ "$count" -eq 0 ]; then
  echo "FAIL: README has no snippets"
  status=1
fi
[ $status -eq 0 ] && echo "PASS: $count README snippets match their example files"
exit $status
