"""Go tests with the system toolchain (Debian's golang-go).

Bazel has no offline Go rules, so `go vet` and `go test` run inside an
sh_test (go_test.sh): the module is copied to the test's temp dir, GOCACHE,
GOPATH and HOME live there too, no module is downloaded (GOPROXY=off,
GOFLAGS=-mod=mod), and cgo compiles against tfd's C headers and links the
Bazel-built libtfd.so.

    load("//tools/bazel:go.bzl", "tfd_go_test")

    tfd_go_test(name = "go_test", srcs = glob(["**/*.go"]) + ["go.mod"])
"""

def tfd_go_test(name, srcs, data = [], env = {}, **kwargs):
    """`go vet ./...` then `go test ./...` over the module in this package.

    Args:
      name: the test's name.
      srcs: every file of the module (go.mod and the .go files).
      data: more files the Go tests read at run time.
      env: extra environment for the Go tests.
      **kwargs: passed to sh_test (size, tags, ...).
    """
    native.sh_test(
        name = name,
        srcs = ["//tools/bazel:go_test.sh"],
        args = [
            native.package_name(),
            "$(rootpath //c_api:libtfd.so)",
            "c_api/include",
        ],
        data = srcs + data + [
            "//c_api:libtfd.so",
            "//c_api:public_headers",
        ],
        env = env,
        **kwargs
    )
