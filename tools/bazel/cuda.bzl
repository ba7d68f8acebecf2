"""CUDA build rules: .cu files compiled by nvcc, and the macros over them.

tfd compiles CUDA with the toolkit's own nvcc (/usr/local/cuda/bin/nvcc)
for Hopper: SASS for sm_90 plus PTX for compute_90, so that newer GPUs can
JIT the PTX. Host code in .cu files is compiled by the same gcc that Bazel
uses for C++ (-ccbin), as position-independent code, in C++17.

Every target made here exists only under --config=cuda. Without it the
targets are *incompatible* with the build (target_compatible_with), so
`bazel build //...` and `bazel test //...` skip them, and say so (tests are
reported as SKIPPED, never as PASSED). We chose that over a stand-in test
that would GTEST_SKIP in a build without CUDA: a test that cannot run
should not look like one that ran. With --config=cuda, tests that need a
GPU run and GTEST_SKIP("no CUDA device") at run time when there is none
(see core/device/cuda/cuda_test_util.h).

Code outside the CUDA packages links the CUDA parts in only through a
select, e.g. `deps = if_cuda(["//core/kernels/cuda:cuda_kernels"])`.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//tools/bazel:tfd.bzl", "TFD_COPTS")

NVCC = "/usr/local/cuda/bin/nvcc"

# SASS for Hopper and PTX of the same virtual architecture.
CUDA_ARCH_FLAGS = [
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

# Incompatible unless --config=cuda (see //tools/bazel:cuda_not_configured).
CUDA_ONLY = select({
    "//tools/bazel:cuda": [],
    "//conditions:default": ["//tools/bazel:cuda_not_configured"],
})

# The toolkit's libraries, named only under --config=cuda so that a plain
# build never touches (or needs) @local_cuda.
CUDA_DEPS = select({
    "//tools/bazel:cuda": ["@local_cuda//:cuda"],
    "//conditions:default": [],
})

def if_cuda(if_true, if_false = []):
    """`if_true` under --config=cuda, else `if_false` (for deps, defines)."""
    return select({
        "//tools/bazel:cuda": if_true,
        "//conditions:default": if_false,
    })

def _mode_flags(ctx):
    mode = ctx.var.get("COMPILATION_MODE", "fastbuild")
    if mode == "opt":
        return ["-O3", "-DNDEBUG"]
    if mode == "dbg":
        return ["-g", "-O0"]
    return ["-O1"]

def _cuda_objects_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    dep_infos = [d[CcInfo] for d in ctx.attr.deps if CcInfo in d]
    merged = cc_common.merge_cc_infos(cc_infos = dep_infos).compilation_context

    # Include paths as the C++ rules would pass them: the workspace root
    # (and its generated twin), then every dependency's include dirs, each
    # once.
    include_dirs = depset(
        [".", ctx.genfiles_dir.path, ctx.bin_dir.path],
        transitive = [merged.quote_includes, merged.includes],
    )
    headers = depset(ctx.files.hdrs, transitive = [merged.headers])

    host_flags = []
    for f in TFD_COPTS + ["-fPIC"]:
        host_flags += ["-Xcompiler", f]

    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file(
            "_cuda_objs/{}/{}.pic.o".format(ctx.label.name, src.basename[:-len(".cu")]),
        )
        args = ctx.actions.args()
        args.add("-ccbin", cc_toolchain.compiler_executable)
        args.add_all(["-x", "cu", "-std=c++17"])
        args.add_all(_mode_flags(ctx))
        args.add_all(CUDA_ARCH_FLAGS)
        args.add_all(host_flags)
        args.add_all(include_dirs, format_each = "-I%s")
        args.add_all(merged.system_includes, before_each = "-isystem")
        args.add_all(merged.defines, format_each = "-D%s")
        args.add_all(ctx.attr.copts)
        args.add_all(["-c", src.path, "-o", obj.path])
        ctx.actions.run(
            executable = NVCC,
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "nvcc " + src.short_path,
            # nvcc runs gcc and its own tools from the toolkit; they need a
            # PATH even under --incompatible_strict_action_env.
            env = {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin"},
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    doc = """Compiles .cu files with nvcc into position-independent objects.

    The objects are the rule's files, for the `srcs` of the cc_library that
    tfd_cuda_library makes: they link as part of that library, so a
    library's nvcc code and its C++ code (the kernels' registrations) are
    one static archive and one shared library. `hdrs` and the headers of
    `deps` are the only headers nvcc may read from the workspace.""",
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"], doc = ".cu files, one object each."),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"], doc = "Headers the .cu files include."),
        "deps": attr.label_list(providers = [CcInfo], doc = "C++ libraries for headers, include paths and defines."),
        "copts": attr.string_list(doc = "Extra nvcc flags."),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def tfd_cuda_library(name, srcs = [], hdrs = [], deps = [], copts = [], nvcc_copts = [],
                     alwayslink = False, **kwargs):
    """A tfd library with CUDA code; exists only under --config=cuda.

    `.cu` files in `srcs` are compiled by nvcc (sm_90 + compute_90 PTX,
    -fPIC, C++17); the other sources by the C++ toolchain as in
    tfd_cc_library. Both kinds of object make one library: one static
    archive for binaries that link statically, one shared library for
    those that link dynamically (every test; tfd_cuda_benchmark). The
    library links the CUDA toolkit's libraries (@local_cuda//:cuda:
    cudart, cuBLAS, cuDNN, NCCL). Kernel libraries pass alwayslink = True
    so their registrations survive linking, statically or dynamically.

    Args:
      name: target name.
      srcs: .cc, .h and .cu files.
      hdrs: public headers (may include CUDA headers: only code under
        core/device/cuda and core/kernels/cuda may depend on this).
      deps: C++ dependencies, also visible to the .cu files.
      copts: flags for the C++ sources.
      nvcc_copts: extra flags for nvcc.
      alwayslink: keep every object of the library when linking.
      **kwargs: passed to cc_library (visibility, testonly, ...).
    """
    cu_srcs = [s for s in srcs if s.endswith(".cu")]
    cc_srcs = [s for s in srcs if not s.endswith(".cu")]
    private_hdrs = [s for s in srcs if s.endswith(".h") or s.endswith(".cuh")]
    all_deps = deps + CUDA_DEPS
    if cu_srcs:
        cuda_objects(
            name = name + "_cu",
            srcs = cu_srcs,
            hdrs = hdrs + private_hdrs,
            deps = all_deps,
            copts = nvcc_copts,
            target_compatible_with = CUDA_ONLY,
            testonly = kwargs.get("testonly", False),
            visibility = ["//visibility:private"],
        )

        # The nvcc objects are sources of the library itself (cc_library
        # links precompiled .o files as its own): one archive and one
        # shared library hold the kernels and the code that registers them.
        cc_srcs = cc_srcs + [":" + name + "_cu"]
    native.cc_library(
        name = name,
        srcs = cc_srcs,
        hdrs = hdrs,
        deps = all_deps,
        copts = TFD_COPTS + copts,
        alwayslink = alwayslink,
        target_compatible_with = CUDA_ONLY,
        **kwargs
    )

def tfd_cuda_test(name, deps = [], copts = [], tags = [], requires_gpu = True, **kwargs):
    """A GoogleTest binary that exists only under --config=cuda.

    Without --config=cuda the test is incompatible and `bazel test //...`
    reports it SKIPPED. With it, tests that need a device call
    TFD_SKIP_WITHOUT_CUDA_DEVICE() (core/device/cuda/cuda_test_util.h) and
    skip, naming the reason, on a machine without a GPU.

    Args:
      name: target name (`<stem>_test`).
      deps: C++ dependencies; gtest_main and the CUDA libraries are added.
      copts: flags for the C++ sources.
      tags: test tags; "requires-gpu" is added unless requires_gpu is False
        (tests of host-only CUDA code, such as error strings).
      requires_gpu: whether the test needs a device to run its cases.
      **kwargs: passed to cc_test.
    """
    native.cc_test(
        name = name,
        deps = deps + ["@com_google_googletest//:gtest_main"] + CUDA_DEPS,
        copts = TFD_COPTS + copts,
        tags = tags + (["requires-gpu"] if requires_gpu else []),
        target_compatible_with = CUDA_ONLY,
        **kwargs
    )

def tfd_cuda_benchmark(name, deps = [], copts = [], **kwargs):
    """A Google Benchmark binary with CUDA code, built only under
    --config=cuda (run by hand on a GPU machine; see docs/GPU.md).

    It links its libraries dynamically, as tests do, so that it shares the
    GPU kernels' shared library (//core/kernels/cuda:cuda_kernels) with the
    tests in a pack instead of carrying its own copy of their fat binaries
    (tools/gpu_tests.sh)."""
    native.cc_binary(
        name = name,
        deps = deps + ["@com_google_benchmark//:benchmark_main"] + CUDA_DEPS,
        copts = TFD_COPTS + copts,
        linkstatic = False,
        target_compatible_with = CUDA_ONLY,
        **kwargs
    )
