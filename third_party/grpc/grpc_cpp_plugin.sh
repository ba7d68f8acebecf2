#!/bin/sh
# Runs Debian's gRPC C++ code generator for protoc.
exec /usr/bin/grpc_cpp_plugin "$@"
