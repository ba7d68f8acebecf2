#!/usr/bin/env bash
# Runs the JUnit 5 tests of one jar under -Xcheck:jni (see tfd_java_test in
# java.bzl). The JVM's JNI checker only warns, so its warnings are turned
# into a failure here: a leaked local reference or an exception left
# unchecked by the glue is a bug even when every assertion passed.
set -uo pipefail
log="${TEST_TMPDIR:-$(mktemp -d)}/junit.log"
lib_path=""
for dir in %lib_dirs%; do lib_path="${lib_path:+$lib_path:}$PWD/$dir"; done
export HOME="${TEST_TMPDIR:-$HOME}"
"%java%" -Xcheck:jni -Djava.library.path="$lib_path" %jvm_flags% \
  -jar "%launcher%" --disable-banner --disable-ansi-colors --details=tree \
  --fail-if-no-tests --class-path "%classpath%" --scan-class-path "%test_jar%" \
  2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -E "(WARNING|FATAL ERROR) in native method|JNI local refs" "$log"; then
  echo "FAILED: the JNI checker reported the lines above"
  exit 1
fi
exit "$status"
