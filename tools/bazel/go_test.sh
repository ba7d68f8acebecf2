#!/usr/bin/env bash
# Runs `go vet` and `go test` over one Go module (see tfd_go_test in
# go.bzl). Arguments: the module's directory, libtfd.so and the C include
# directory, all relative to the runfiles root (the working directory).
set -euo pipefail
module="$1"
lib_dir="$PWD/$(dirname "$2")"
include_dir="$PWD/$3"
work="${TEST_TMPDIR:?tfd_go_test runs under bazel test}"

# Go skips symlinked files in some listings; give it a plain copy.
cp -rL "$module" "$work/module"
cd "$work/module"

export HOME="$work" GOPATH="$work/gopath" GOCACHE="$work/gocache"
export GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on GOTOOLCHAIN=local
export CGO_ENABLED=1
export CGO_CFLAGS="-I$include_dir -Wall -Werror"
export CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir"

# Under --config=asan libtfd.so needs AddressSanitizer's runtime first in
# the process: `go test -asan` links it into the test binary and checks
# the cgo glue's C too.
asan=()
if readelf -d "$lib_dir/libtfd.so" | grep -q 'libasan\.'; then asan=(-asan); fi

go vet ./...
go test "${asan[@]}" -count=1 -v ./... 2>&1 | grep -vE "^=== (RUN|PAUSE|CONT)"
exit "${PIPESTATUS[0]}"
