"""Thin macros over the native C++ rules: shared copts and test deps.

Every package uses these instead of cc_library/cc_test directly, so a flag
that all of tfd needs is added here once.
"""

TFD_COPTS = ["-Werror=return-type", "-Wno-unused-function"]

def tfd_cc_library(name, copts = [], **kwargs):
    """A C++ library of tfd. Kernel and op libraries pass alwayslink = True
    so that their static registrations are kept by the linker."""
    native.cc_library(name = name, copts = TFD_COPTS + copts, **kwargs)

def tfd_cc_test(name, deps = [], copts = [], **kwargs):
    """A GoogleTest binary linked with gtest_main.

    Under --config=cuda_core_suite it also links every GPU kernel and the
    CUDA device (//tools/bazel:core_suite_gpu_kernels), so that the test
    can run with TFD_DEFAULT_DEVICE=/device:GPU:0 (tools/gpu_tests.sh
    --core-suite); in every other build that dependency is empty.
    Likewise under --config=fake_gpu_suite it links the fake GPU suite
    (//tools/bazel:core_suite_fake_gpu: a fake GPU as the default device,
    tools/fake_gpu_suite.sh)."""
    native.cc_test(
        name = name,
        copts = TFD_COPTS + copts,
        deps = deps + [
            "@com_google_googletest//:gtest_main",
            "//tools/bazel:core_suite_gpu_kernels",
            "//tools/bazel:core_suite_fake_gpu",
        ],
        **kwargs
    )

def tfd_cc_benchmark(name, deps = [], copts = [], **kwargs):
    """A Google Benchmark binary (run by hand or by tools/bench, never as a
    timed test). Tagged manual so `bazel test //...` only builds it."""
    native.cc_binary(
        name = name,
        copts = TFD_COPTS + copts,
        deps = deps + ["@com_google_benchmark//:benchmark_main"],
        **kwargs
    )
