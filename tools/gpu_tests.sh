#!/usr/bin/env bash
# Builds tfd's GPU test and benchmark binaries here (--config=cuda: needs
# the CUDA toolkit, not a GPU) and packs them into dist/tfd-gpu/, with
# every shared library they need except the C/C++ runtime and CUDA's own,
# plus run.sh to run them on a GPU machine and device_check.sh, the one
# command of a GPU run. dist/gpu/ holds the same compressed
# (tfd-gpu.tar.gz, with a copy of the MANIFEST): what a GPU run carries,
# under 64 MiB. See docs/GPU.md.
#
#   tools/gpu_tests.sh                       # every CUDA test and benchmark
#   tools/gpu_tests.sh //core/kernels/cuda:relu_kernels_test ...   # some
#   tools/gpu_tests.sh --list                # list what would be built, build nothing
set -euo pipefail
cd "$(dirname "$0")/.."

# What to pack: the tests and binaries of the CUDA packages and of
# tests/gpu (end-to-end runs), and any test or binary elsewhere that says
# it needs a GPU (tools/bench:resnet50_benchmark).
query='kind("cc_test|cc_binary", //core/device/cuda/... + //core/kernels/cuda/... + //tests/gpu/...)
       + attr(tags, "requires-gpu", tests(//...))
       + kind("cc_binary", attr(tags, "requires-gpu", //...))'
list_only=0
if [ "${1:-}" = "--list" ]; then
  list_only=1
  shift
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(bazel query --noshow_progress "$query" 2>/dev/null)
fi
[ ${#targets[@]} -gt 0 ] || { echo "gpu_tests.sh: nothing to build" >&2; exit 1; }
mapfile -t tests < <(bazel query --noshow_progress \
  "tests(set(${targets[*]}))" 2>/dev/null)

if [ $list_only = 1 ]; then
  for t in "${targets[@]}"; do
    if printf '%s\n' "${tests[@]}" | grep -qx "$t"; then echo "test       $t"; else echo "benchmark  $t"; fi
  done
  exit 0
fi

echo "== bazel build --config=cuda (${#targets[@]} targets)"
bazel build --config=cuda --noshow_progress "${targets[@]}"
bin=$(bazel info --config=cuda bazel-bin 2>/dev/null)

dist=dist/tfd-gpu
carried=dist/gpu
rm -rf "$dist" "$carried" dist/tfd-gpu-tests.tar.gz
mkdir -p "$dist/bin" "$dist/lib" "$carried"

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
          [ -e "$dist/bin/$dir/$name" ] || cp -L "$path" "$dist/bin/$dir/$name" ;;
        /usr/local/cuda*) ;;
        */libc.so.*|*/libm.so.*|*/libpthread.so.*|*/libdl.so.*|*/librt.so.*) ;;
        */libstdc++.so.*|*/libgcc_s.so.*|*/ld-linux*) ;;
        *) [ -e "$dist/lib/$name" ] || cp -L "$path" "$dist/lib/$name" ;;
      esac
    done
  if ldd "$1" | grep -q "not found"; then
    echo "gpu_tests.sh: $1 has unresolved libraries here:" >&2
    ldd "$1" | grep "not found" >&2
    exit 1
  fi
}

: > "$dist/TESTS"
: > "$dist/BENCHMARKS"
for t in "${targets[@]}"; do
  rel=${t#//}
  rel=${rel/://}
  if [ ! -x "$bin/$rel" ]; then
    echo "gpu_tests.sh: $t built no executable at $bin/$rel" >&2
    exit 1
  fi
  install -D -m 755 "$bin/$rel" "$dist/bin/$rel"
  copy_libraries "$bin/$rel"
  if printf '%s\n' "${tests[@]}" | grep -qx "$t"; then
    echo "$rel" >> "$dist/TESTS"
  else
    echo "$rel" >> "$dist/BENCHMARKS"
  fi
done
install -m 755 tools/gpu_run.sh "$dist/run.sh"
install -m 755 tools/device_check.sh "$dist/device_check.sh"
install -m 644 tools/bench/torch_reference.py "$dist/torch_reference.py"
install -m 644 tools/bench/device_summary.py "$dist/device_summary.py"
# mirrored_gpu_test trains on Fashion-MNIST's t10k files (4.4 MB).
fashion=${TFD_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
if [ -f "$fashion/t10k-images-idx3-ubyte.gz" ]; then
  mkdir -p "$dist/data/fashion-mnist"
  cp "$fashion"/t10k-*-ubyte.gz "$dist/data/fashion-mnist/"
fi
# Symbols are of no use there and most of the size: a device run carries
# at most 64 MiB.
find "$dist/bin" "$dist/lib" -type f \( -perm -u+x -o -name "*.so*" \) \
  -exec strip --strip-unneeded {} +
{
  echo "tfd GPU tests, packed by tools/gpu_tests.sh"
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with local changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  echo "code: sm_90 SASS + compute_90 PTX"
  echo "CUDA libraries needed on the GPU machine (not packed):"
  for b in $(cat "$dist/TESTS" "$dist/BENCHMARKS"); do
    ldd "$bin/$b" | awk '$3 ~ /^\/usr\/local\/cuda/ { print "  " $1 }'
  done | sort -u
} > "$dist/MANIFEST"
# Compressed, the pack is about a third of its size (libdnnl and the
# CUDA kernels' fat binaries are most of it).
tar -C dist -czf "$carried/tfd-gpu.tar.gz" tfd-gpu
cp "$dist/MANIFEST" "$carried/MANIFEST"
mib() { echo $(( ($(du -sb "$1" | cut -f1) + 1048575) / 1048576 )); }
echo "== packed $(wc -l < "$dist/TESTS") tests and $(wc -l < "$dist/BENCHMARKS")" \
     "benchmarks into $dist ($(mib "$dist") MiB) and $carried ($(mib "$carried") MiB)"
if [ "$(mib "$carried")" -gt 64 ]; then
  echo "gpu_tests.sh: warning: $carried is over the 64 MiB a GPU run carries" >&2
fi
