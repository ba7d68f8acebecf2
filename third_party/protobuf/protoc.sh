#!/bin/sh
# Runs Debian's protoc for Bazel's native proto rules.
exec /usr/bin/protoc "$@"
