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
# Under --config=asan the JNI libraries need AddressSanitizer's runtime,
# which must be loaded before anything else: preload it into the JVM (and
# only the JVM). The JVM takes SIGSEGV for its own null checks and never
# frees much of its memory at exit, so ASan leaves SIGSEGV to it and does
# not look for leaks there (the C tests and LeakSanitizer do).
asan_runtime=""
for dir in %lib_dirs%; do
  asan_runtime=$(ldd "$PWD/$dir"/*.so 2>/dev/null | awk '$1 ~ /^libasan\./ {print $3; exit}')
  [ -n "$asan_runtime" ] && break
done
jvm_env=()
asan_flags=()
if [ -n "$asan_runtime" ]; then
  jvm_env=(env LD_PRELOAD="$asan_runtime"
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:allow_user_segv_handler=1:detect_leaks=0")
  asan_flags=(-Dorg.tfd.asan=true)
fi
"${jvm_env[@]}" "%java%" -Xcheck:jni -Djava.library.path="$lib_path" "${asan_flags[@]}" %jvm_flags% \
  -jar "%launcher%" --disable-banner --disable-ansi-colors --details=tree \
  --fail-if-no-tests --class-path "%classpath%" --scan-class-path "%test_jar%" \
  2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -E "(WARNING|FATAL ERROR) in native method|JNI local refs" "$log"; then
  echo "FAILED: the JNI checker reported the lines above"
  exit 1
fi
exit "$status"
