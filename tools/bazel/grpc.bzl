"""gRPC services from .proto files: protoc + grpc_cpp_plugin into C++.

`tfd_grpc_cc_library(name, srcs, deps)` makes, from .proto files that hold
messages and `service` definitions:
  - `<name>_proto`     the proto_library (import it from other protos),
  - `<name>_cc_proto`  the message classes (cc_proto_library),
  - `<name>`           a C++ library with the message classes AND the
                       generated service stubs (`<stem>.grpc.pb.h`),
                       linked with Debian's gRPC++.
Include `"<package path>/<stem>.grpc.pb.h"` to use the service.

The stubs come from Debian's /usr/bin/protoc with /usr/bin/grpc_cpp_plugin
(wrapped in third_party/protobuf and third_party/grpc); nothing downloads.
The .proto files must live in the package that calls the macro, as with
every proto_library; imports of other packages' protos go in `deps` as
proto_library labels.
"""

load("//tools/bazel:tfd.bzl", "TFD_COPTS")

def _grpc_stubs_impl(ctx):
    info = ctx.attr.proto[ProtoInfo]
    headers = []
    sources = []
    for src in info.direct_sources:
        stem = src.basename[:-len(".proto")]
        headers.append(ctx.actions.declare_file(stem + ".grpc.pb.h"))
        sources.append(ctx.actions.declare_file(stem + ".grpc.pb.cc"))
    outputs = headers + sources

    # protoc writes <out>/<path of the .proto relative to its import root>,
    # which is where declare_file put the outputs of this package.
    args = ctx.actions.args()
    args.add("--plugin=protoc-gen-grpc=" + ctx.executable._plugin.path)
    args.add("--grpc_out=" + ctx.bin_dir.path)
    args.add_all(info.transitive_proto_path, format_each = "-I%s")
    args.add("-I.")
    args.add_all(info.direct_sources)
    ctx.actions.run(
        executable = ctx.executable._protoc,
        arguments = [args],
        inputs = info.transitive_sources,
        tools = [ctx.executable._plugin],
        outputs = outputs,
        mnemonic = "GrpcCppStubs",
        progress_message = "grpc_cpp_plugin " + ctx.label.name,
    )
    return [
        DefaultInfo(files = depset(outputs)),
        OutputGroupInfo(headers = depset(headers), sources = depset(sources)),
    ]

_grpc_stubs = rule(
    implementation = _grpc_stubs_impl,
    doc = "The .grpc.pb.h/.grpc.pb.cc service stubs of a proto_library's own sources.",
    attrs = {
        "proto": attr.label(providers = [ProtoInfo], mandatory = True),
        "_protoc": attr.label(
            default = Label("@com_google_protobuf//:protoc"),
            executable = True,
            cfg = "exec",
        ),
        "_plugin": attr.label(
            default = Label("@com_github_grpc_grpc//:grpc_cpp_plugin"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def tfd_grpc_cc_library(name, srcs, deps = [], visibility = None):
    """Messages and gRPC service stubs of `srcs` as one C++ library.

    Args:
      name: the C++ library; `<name>_proto` and `<name>_cc_proto` are made too.
      srcs: .proto files of this package.
      deps: proto_library targets that `srcs` import.
      visibility: of the three targets.
    """
    native.proto_library(
        name = name + "_proto",
        srcs = srcs,
        deps = deps,
        visibility = visibility,
    )
    native.cc_proto_library(
        name = name + "_cc_proto",
        deps = [":" + name + "_proto"],
        visibility = visibility,
    )
    _grpc_stubs(
        name = name + "_grpc_stubs",
        proto = ":" + name + "_proto",
    )
    # Headers must be in hdrs so that dependents may include them.
    native.filegroup(
        name = name + "_grpc_headers",
        srcs = [":" + name + "_grpc_stubs"],
        output_group = "headers",
    )
    native.filegroup(
        name = name + "_grpc_sources",
        srcs = [":" + name + "_grpc_stubs"],
        output_group = "sources",
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_grpc_sources"],
        hdrs = [":" + name + "_grpc_headers"],
        copts = TFD_COPTS,
        deps = [
            ":" + name + "_cc_proto",
            "@com_github_grpc_grpc//:grpc++",
        ],
        visibility = visibility,
    )
