#!/usr/bin/env bash
# Builds tfd's GPU test and benchmark binaries here (--config=cuda: needs
# the CUDA toolkit, not a GPU) and packs them into dist/tfd-gpu/, with
# every shared library they need except the C/C++ runtime and CUDA's own,
# plus run.sh to run them on a GPU machine and device_check.sh, the one
# command of a GPU run. dist/gpu/ holds the same compressed
# (tfd-gpu.tar.gz, with a copy of the MANIFEST): what a GPU run carries,
# under 64 MiB. See docs/GPU.md.
# With --core-suite the core tests are added (built with every GPU kernel)
# and the carried pack is .tar.xz instead.
#
# The 10-epoch training of device_check.sh needs the CUDA build's `tfd`
# (its own copy of the GPU kernels) and all of Fashion-MNIST (29.4 MiB,
# gzipped already): a pack of its own, dist/gpu-train (xz, 44 MiB), for a
# second GPU run. With dist/gpu they would not fit one run: 29 + 32 MiB
# with the core suite, too close to 64; and the tests, benchmarks and
# PyTorch reference of dist/gpu already fill the 540 s one run has.
#
# The binaries link the GPU kernels as one shared library
# (//core/kernels/cuda:cuda_kernels, in bin/_solib_k8/), so the pack holds
# their fat binaries once; the script checks that no other packed file
# carries GPU code.
#
#   tools/gpu_tests.sh                       # every CUDA test and benchmark (dist/gpu),
#                                            # and the training (dist/gpu-train)
#   tools/gpu_tests.sh //core/kernels/cuda:relu_kernels_test ...   # some (no training)
#   tools/gpu_tests.sh --training //core/kernels/cuda:relu_kernels_test   # some, and the training
#   tools/gpu_tests.sh --no-training         # dist/gpu only
#   tools/gpu_tests.sh --training-only       # dist/gpu-train only
#   tools/gpu_tests.sh --list                # list what would be built, build nothing
#   tools/gpu_tests.sh --core-suite          # also every core test, for
#                                            # run.sh --core-suite (GPU as default device)
set -euo pipefail
cd "$(dirname "$0")/.."

# What to pack: the tests and binaries of the CUDA packages and of
# tests/gpu (end-to-end runs), and any test or binary elsewhere that says
# it needs a GPU (tools/bench:resnet50_benchmark).
query='kind("cc_test|cc_binary", //core/device/cuda/... + //core/kernels/cuda/... + //tests/gpu/...)
       + attr(tags, "requires-gpu", tests(//...))
       + kind("cc_binary", attr(tags, "requires-gpu", //...))'
# With --core-suite, also every test of core/ (tools/core_suite_tests.sh:
# the list tools/fake_gpu_suite.sh runs too), built with every GPU kernel
# linked in (--config=cuda_core_suite) and run with TFD_DEFAULT_DEVICE set
# to GPU:0.
list_only=0
core_suite=0
config=cuda
# default: with the default targets; 1: --training; 0: --no-training;
# only: --training-only
training=default
while [ $# -gt 0 ]; do
  case "$1" in
    --list) list_only=1 ;;
    --core-suite) core_suite=1; config=cuda_core_suite ;;
    --training) training=1 ;;
    --no-training) training=0 ;;
    --training-only) training=only ;;
    *) break ;;
  esac
  shift
done
if [ "$training" = only ] && { [ $# -gt 0 ] || [ $core_suite = 1 ]; }; then
  echo "gpu_tests.sh: --training-only packs tfd and the training set alone; give no targets" \
       "and no --core-suite" >&2
  exit 2
fi
if [ "$training" = default ]; then
  if [ $# -gt 0 ]; then training=0; else training=1; fi
fi
# Fashion-MNIST: the t10k files for mirrored_gpu_test (4.4 MB), all four
# for the training.
fashion=${TFD_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
train_binary=//tools/tfd:tfd
if [ "$training" != 0 ]; then
  for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz \
           t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
    [ -f "$fashion/$f" ] || {
      echo "gpu_tests.sh: the training needs $fashion/$f (TFD_FASHION_MNIST_DIR)" >&2; exit 1; }
  done
fi
core_tests=()
if [ $core_suite = 1 ]; then
  mapfile -t core_tests < <(tools/core_suite_tests.sh)
  # The order run.sh runs them in, which matters when a GPU run's time
  # runs out before the suite does: the packages whose ops the GPU runs
  # most first, those that hardly run an op (io, protobuf) last.
  order="//core/kernels //core/autodiff //core/nn //core/framework //core/graph //core/data //core/distribute"
  mapfile -t core_tests < <(printf '%s\n' "${core_tests[@]}" | awk -v order="$order" '
    BEGIN { n = split(order, prefix, " ") }
    { rank = n + 1
      for (i = 1; i <= n; i++) if (index($0, prefix[i] "/") == 1 || index($0, prefix[i] ":") == 1) { rank = i; break }
      printf "%d\t%s\n", rank, $0 }' | sort -t$'\t' -k1,1n -k2,2 | cut -f2)
fi
if [ $# -gt 0 ]; then
  targets=("$@")
elif [ "$training" = only ]; then
  targets=()
else
  mapfile -t targets < <(bazel query --noshow_progress "$query" 2>/dev/null)
fi
[ ${#targets[@]} -gt 0 ] || [ ${#core_tests[@]} -gt 0 ] || [ "$training" != 0 ] || {
  echo "gpu_tests.sh: nothing to build" >&2; exit 1; }
train_targets=()
[ "$training" != 0 ] && train_targets=("$train_binary")
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
  for t in "${train_targets[@]}"; do echo "training   $t"; done
  exit 0
fi

echo "== bazel build --config=$config (${#targets[@]} + ${#core_tests[@]} + ${#train_targets[@]} targets)"
bazel build --config=$config --noshow_progress "${targets[@]}" "${core_tests[@]}" \
  "${train_targets[@]}"
bin=$(bazel info --config=$config bazel-bin 2>/dev/null)

# The packs: dist/tfd-gpu (carried compressed as dist/gpu) and the
# training's dist/tfd-gpu-train (dist/gpu-train). Only those this run
# writes are replaced: packing some kernel tests keeps the training pack.
main_pack=1
[ "$training" = only ] && main_pack=0
train_pack=""
[ "$training" != 0 ] && train_pack=dist/tfd-gpu-train
if [ $main_pack = 1 ]; then
  rm -rf dist/tfd-gpu dist/gpu dist/tfd-gpu-tests.tar.gz dist/tfd-gpu-tests.tar.xz
fi
[ -n "$train_pack" ] && rm -rf dist/tfd-gpu-train dist/gpu-train
# `dist` is the pack the functions below fill.
dist=dist/tfd-gpu
new_pack() {  # dir
  mkdir -p "$1/bin" "$1/lib"
  : > "$1/TESTS"
  : > "$1/BENCHMARKS"
  : > "$1/CORE_TESTS"
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
          fi ;;
        /usr/local/cuda*) ;;
        */libc.so.*|*/libm.so.*|*/libpthread.so.*|*/libdl.so.*|*/librt.so.*) ;;
        */libstdc++.so.*|*/libgcc_s.so.*|*/ld-linux*) ;;
        *)
          if [ ! -e "$dist/lib/$name" ]; then
            cp -L "$path" "$dist/lib/$name"
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
  copy_libraries "$bin/$rel"
  echo "$rel"
}

[ $main_pack = 1 ] && new_pack "$dist"
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
# The training: the CUDA build's tfd (linked statically, GPU kernels
# included: it is meant to be copied alone) and all of Fashion-MNIST.
if [ -n "$train_pack" ]; then
  dist=$train_pack
  new_pack "$dist"
  pack_binary "$train_binary" > /dev/null
  mkdir -p "$dist/data/fashion-mnist"
  cp "$fashion"/train-*-ubyte.gz "$fashion"/t10k-*-ubyte.gz "$dist/data/fashion-mnist/"
  dist=dist/tfd-gpu
fi

mib() { echo $(( ($(du -sb "$1" | cut -f1) + 1048575) / 1048576 )); }
# Finishes pack `dist` (scripts, stripping, the GPU code check, MANIFEST)
# and writes it compressed to `carried`.
finish_pack() {  # dist carried
  local dist=$1 carried=$2 name
  name=$(basename "$dist")
  mkdir -p "$carried"
  install -m 755 tools/gpu_run.sh "$dist/run.sh"
  install -m 755 tools/device_check.sh "$dist/device_check.sh"
  install -m 644 tools/bench/torch_reference.py "$dist/torch_reference.py"
  install -m 644 tools/bench/device_summary.py "$dist/device_summary.py"
  # mirrored_gpu_test trains on Fashion-MNIST's t10k files (4.4 MB).
  if [ -s "$dist/TESTS" ] && [ -f "$fashion/t10k-images-idx3-ubyte.gz" ]; then
    mkdir -p "$dist/data/fashion-mnist"
    cp "$fashion"/t10k-*-ubyte.gz "$dist/data/fashion-mnist/"
  fi
  # Symbols are of no use there and most of the size: a device run carries
  # at most 64 MiB.
  find "$dist/bin" "$dist/lib" -type f \( -perm -u+x -o -name "*.so*" \) \
    -exec strip --strip-unneeded {} +
  # GPU code (an ELF section .nv_fatbin) belongs in the kernels' shared
  # library, and in tfd, which links them statically to be copied alone;
  # any other binary with its own copy linked them statically, and every
  # such copy costs the pack megabytes.
  local gpu_code unexpected
  mapfile -t gpu_code < <(find "$dist/bin" "$dist/lib" -type f -exec sh -c \
    'readelf -S "$1" 2>/dev/null | grep -q "\.nv_fatbin" && echo "$1"' _ {} \; | sort)
  echo "== GPU code in $dist: ${gpu_code[*]#$dist/}"
  mapfile -t unexpected < <(printf '%s\n' "${gpu_code[@]}" |
    grep -v -e '/_solib_[^/]*/libcore_Skernels_Scuda_Slibcuda_Ukernels\.so$' \
            -e '/bin/tools/tfd/tfd$' | grep . || true)
  if [ ${#unexpected[@]} -gt 0 ]; then
    echo "gpu_tests.sh: warning: ${unexpected[*]#$dist/} carry GPU code of their own;" \
         "expected only the kernels' shared library (and tfd)" >&2
  fi
  if { [ -s "$dist/TESTS" ] || [ -s "$dist/BENCHMARKS" ]; } &&
     ! printf '%s\n' "${gpu_code[@]}" | grep -q '/libcore_Skernels_Scuda_Slibcuda_Ukernels\.so$'; then
    echo "gpu_tests.sh: warning: the kernels' shared library is not in $dist" >&2
  fi
  {
    echo "tfd GPU tests, packed by tools/gpu_tests.sh"
    echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with local changes)')"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
    echo "code: sm_90 SASS + compute_90 PTX"
    [ -x "$dist/bin/tools/tfd/tfd" ] &&
      echo "training: tfd train, Fashion-MNIST in data/fashion-mnist"
    echo "CUDA libraries needed on the GPU machine (not packed):"
    for b in $(cat "$dist/TESTS" "$dist/BENCHMARKS" "$dist/CORE_TESTS") \
             $([ -x "$dist/bin/tools/tfd/tfd" ] && echo tools/tfd/tfd); do
      ldd "$bin/$b" | awk '$3 ~ /^\/usr\/local\/cuda/ { print "  " $1 }'
    done | sort -u
  } > "$dist/MANIFEST"
  # Compressed, the core-suite pack is under a fifth of its size (oneDNN is the biggest
  # part, then the kernels' shared library). The core suite's 168 binaries
  # are alike (gtest, the same libraries' symbols): xz with a 64 MiB window
  # shares that across them, where gzip's 32 KiB window cannot; measured,
  # 165 MiB make 29 MiB of xz. The training pack is xz too: 44 MiB, where
  # gzip makes 52 (the libraries shrink; the gzipped data cannot).
  if [ -s "$dist/CORE_TESTS" ] || [ -x "$dist/bin/tools/tfd/tfd" ]; then
    tar -C dist -cf - "$name" | xz --lzma2=preset=6,dict=64MiB -T1 > "$carried/$name.tar.xz"
  else
    tar -C dist -czf "$carried/$name.tar.gz" "$name"
  fi
  cp "$dist/MANIFEST" "$carried/MANIFEST"
  echo "== packed $(wc -l < "$dist/TESTS") tests, $(wc -l < "$dist/BENCHMARKS") benchmarks," \
       "$(wc -l < "$dist/CORE_TESTS") core tests$([ -x "$dist/bin/tools/tfd/tfd" ] && echo " and the training")" \
       "into $dist ($(mib "$dist") MiB) and $carried ($(mib "$carried") MiB)"
  if [ "$(mib "$carried")" -gt 64 ]; then
    echo "gpu_tests.sh: warning: $carried is over the 64 MiB a GPU run carries" >&2
  fi
}
[ $main_pack = 1 ] && finish_pack dist/tfd-gpu dist/gpu
[ -n "$train_pack" ] && finish_pack "$train_pack" dist/gpu-train
if [ $main_pack = 1 ] && [ -n "$train_pack" ]; then
  echo "== two GPU runs: tools/device_check.sh dist/gpu, then tools/device_check.sh dist/gpu-train" \
       "(docs/GPU.md)"
fi
exit 0
