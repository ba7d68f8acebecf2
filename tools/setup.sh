#!/usr/bin/env bash
# Installs what tfd needs to build, test and train, from Debian's packages
# only. Idempotent: packages already present are not touched, so a second
# run costs a dpkg query and nothing else.
set -euo pipefail

PACKAGES=(
  # Build: Bazel 4.2 (WORKSPACE mode) and the C++ toolchain.
  bazel-bootstrap g++ git
  # Libraries wrapped in third_party/.
  libabsl-dev libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev
  libbenchmark-dev libdnnl-dev libeigen3-dev zlib1g-dev
  # Multi-worker collectives and coordination (later layers).
  libgloo-dev libgrpc++-dev protobuf-compiler-grpc
  # Bindings: Java (JNI headers, javac, JUnit 5) and Go.
  default-jdk-headless junit5 golang-go
  # The default dataset: Fashion-MNIST in /usr/share/datasets/fashion-mnist.
  dataset-fashion-mnist
  # python3 -m venv for the TensorFlow interop venv (tools/interop_venv.sh).
  python3-venv
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
