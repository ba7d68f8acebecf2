#!/usr/bin/env bash
# Builds tfd's GPU test and benchmark binaries here (--config=cuda: needs
# the CUDA toolkit, not a GPU) and packs them into dist/gpu/, with every
# shared library they need except the C/C++ runtime and CUDA's own, plus
# dist/gpu/run.sh to run them on a GPU machine. dist/tfd-gpu-tests.tar.gz
# (.tar.xz with --core-suite) holds the same. See docs/GPU.md.
#
#   tools/gpu_tests.sh                       # every CUDA test and benchmark
#   tools/gpu_tests.sh //core/kernels/cuda:relu_kernels_test ...   # some
#   tools/gpu_tests.sh --list                # list what would be built, build nothing
#   tools/gpu_tests.sh --core-suite          # also every core test, for
#                                            # run.sh --core-suite (GPU as default device)
set -euo pipefail
cd "$(dirname "$0")/.."

# What to pack: the tests and binaries of the CUDA packages and of
# tests/gpu (end-to-end runs), and any test elsewhere that says it needs a
# GPU.
query='kind("cc_test|cc_binary", //core/device/cuda/... + //core/kernels/cuda/... + //tests/gpu/...)
       + attr(tags, "requires-gpu", tests(//...))'
# With --core-suite, also every test of core/, built with every GPU kernel
# linked in (--config=cuda_core_suite) and run with TFD_DEFAULT_DEVICE set
# to GPU:0. Left out: the CUDA packages' tests and the requires-gpu tests,
# which are in the pack already and run as they are (their CPU references
# must stay on the CPU). No core test needs Python, the TensorFlow venv or
# other processes; a test that needs one would be listed here with its
# reason.
core_query='tests(//core/...)
            except tests(//core/device/cuda/... + //core/kernels/cuda/...)
            except attr(tags, "requires-gpu", tests(//core/...))'
core_excluded=()  # labels, each with a comment saying why

list_only=0
core_suite=0
config=cuda
while [ $# -gt 0 ]; do
  case "$1" in
    --list) list_only=1 ;;
    --core-suite) core_suite=1; config=cuda_core_suite ;;
    *) break ;;
  esac
  shift
done
core_tests=()
if [ $core_suite = 1 ]; then
  mapfile -t core_tests < <(bazel query --noshow_progress "$core_query" 2>/dev/null)
  for x in "${core_excluded[@]}"; do
    mapfile -t core_tests < <(printf '%s\n' "${core_tests[@]}" | grep -vx "$x")
  done
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(bazel query --noshow_progress "$query" 2>/dev/null)
fi
[ ${#targets[@]} -gt 0 ] || [ ${#core_tests[@]} -gt 0 ] || {
  echo "gpu_tests.sh: nothing to build" >&2; exit 1; }
tests=()
if [ ${#targets[@]} -gt 0 ]; then
  mapfile -t tests < <(bazel query --noshow_progress \
    "tests(set(${targets[*]}))" 2>/dev/null)
fi

if [ $list_only = 1 ]; then
  for t in "${targets[@]}"; do
    if printf '%s\n' "${tests[@]}" | grep -qx "$t"; then echo "test       $t"; else echo "benchmark  $t"; fi
  done
  for t in "${core_tests[@]}"; do echo "core-test  $t"; done
  exit 0
fi

echo "== bazel build --config=$config (${#targets[@]} + ${#core_tests[@]} targets)"
bazel build --config=$config --noshow_progress "${targets[@]}" "${core_tests[@]}"
bin=$(bazel info --config=$config bazel-bin 2>/dev/null)

dist=dist/gpu
rm -rf "$dist" dist/tfd-gpu-tests.tar.gz dist/tfd-gpu-tests.tar.xz
mkdir -p "$dist/bin" "$dist/lib"

# The core suite must fit the 64 MiB a GPU machine may be sent: its copies
# lose their symbol tables (the CUDA fatbins and everything a test needs
# stay), and each library is packed once for all binaries.
strip_copy() {  # file
  [ $core_suite = 1 ] || return 0
  chmod u+w "$1"
  strip --strip-unneeded "$1"
}

# Copies what `binary` links against: Bazel's own libraries keep their
# place next to the binaries (their RUNPATH is $ORIGIN-relative); other
# libraries go to lib/, except those every Linux has (the C and C++
# runtimes) and CUDA's, which the GPU machine provides.
copy_libraries() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
    while read -r name path; do
      case "$path" in
        */_solib_*/*)
          dir=$(basename "$(dirname "$path")")
          mkdir -p "$dist/bin/$dir"
          if [ ! -e "$dist/bin/$dir/$name" ]; then
            cp -L "$path" "$dist/bin/$dir/$name"
            strip_copy "$dist/bin/$dir/$name"
          fi ;;
        /usr/local/cuda*) ;;
        */libc.so.*|*/libm.so.*|*/libpthread.so.*|*/libdl.so.*|*/librt.so.*) ;;
        */libstdc++.so.*|*/libgcc_s.so.*|*/ld-linux*) ;;
        *)
          if [ ! -e "$dist/lib/$name" ]; then
            cp -L "$path" "$dist/lib/$name"
            strip_copy "$dist/lib/$name"
          fi ;;
      esac
    done
  if ldd "$1" | grep -q "not found"; then
    echo "gpu_tests.sh: $1 has unresolved libraries here:" >&2
    ldd "$1" | grep "not found" >&2
    exit 1
  fi
}

# Copies a binary of `target` into bin/ with its libraries; prints its
# path under bin/.
pack_binary() {  # target
  local rel=${1#//}
  rel=${rel/://}
  if [ ! -x "$bin/$rel" ]; then
    echo "gpu_tests.sh: $1 built no executable at $bin/$rel" >&2
    exit 1
  fi
  install -D -m 755 "$bin/$rel" "$dist/bin/$rel"
  strip_copy "$dist/bin/$rel"
  copy_libraries "$bin/$rel"
  echo "$rel"
}

: > "$dist/TESTS"
: > "$dist/BENCHMARKS"
: > "$dist/CORE_TESTS"
for t in "${targets[@]}"; do
  rel=$(pack_binary "$t")
  if printf '%s\n' "${tests[@]}" | grep -qx "$t"; then
    echo "$rel" >> "$dist/TESTS"
  else
    echo "$rel" >> "$dist/BENCHMARKS"
  fi
done
for t in "${core_tests[@]}"; do
  pack_binary "$t" >> "$dist/CORE_TESTS"
done
if [ ${#core_tests[@]} -gt 0 ]; then
  # Files the core tests read, at their workspace paths: run.sh runs them
  # from runfiles/, as `bazel test` runs them from their runfiles tree.
  bazel query --noshow_progress "labels(data, set(${core_tests[*]}))" 2>/dev/null |
    while read -r label; do
      path=${label#//}
      path=${path/://}
      [ -f "$path" ] && install -D -m 644 "$path" "$dist/runfiles/$path"
    done
fi
install -m 755 tools/gpu_run.sh "$dist/run.sh"
{
  echo "tfd GPU tests, packed by tools/gpu_tests.sh"
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with local changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  echo "code: sm_90 SASS + compute_90 PTX"
  echo "CUDA libraries needed on the GPU machine (not packed):"
  for b in $(cat "$dist/TESTS" "$dist/BENCHMARKS" "$dist/CORE_TESTS"); do
    ldd "$bin/$b" | awk '$3 ~ /^\/usr\/local\/cuda/ { print "  " $1 }'
  done | sort -u
} > "$dist/MANIFEST"
if [ $core_suite = 1 ]; then
  # Every binary of the suite holds the same GPU kernels (their objects are
  # static archives): xz with a 64 MiB window stores them about once, where
  # gzip's 32 KiB window stores them once per binary.
  tarball=dist/tfd-gpu-tests.tar.xz
  tar -C dist -cf - gpu | xz --lzma2=preset=6,dict=64MiB -T1 > "$tarball"
else
  tarball=dist/tfd-gpu-tests.tar.gz
  tar -C dist -czf "$tarball" gpu
fi
echo "== packed $(wc -l < "$dist/TESTS") tests, $(wc -l < "$dist/BENCHMARKS") benchmarks" \
     "and $(wc -l < "$dist/CORE_TESTS") core tests into $dist ($(du -sh "$dist" | cut -f1));" \
     "$tarball: $(du -h "$tarball" | cut -f1)"
