"""Java with the system JDK: a library rule and a JUnit 5 test rule.

Bazel's own Java rules fetch their tools from the network, which tfd's
offline build cannot do. These rules call the JDK wrapped in
third_party/jdk directly and run tests with Debian's JUnit 5 console
launcher (third_party/junit5).

    load("//tools/bazel:java.bzl", "tfd_java_library", "tfd_java_test")

    tfd_java_library(name = "tfd", srcs = glob(["org/tfd/*.java"]))

    tfd_java_test(
        name = "tensor_test",
        srcs = ["javatests/org/tfd/TensorTest.java"],
        deps = [":tfd"],
        jni_libs = [":libtfd_jni.so"],
    )
"""

JavaJarInfo = provider(
    doc = "A jar built by tfd_java_library and what it needs at run time.",
    fields = {
        "jar": "File: the compiled classes of this target.",
        "transitive_jars": "depset of Files: this jar and every jar it uses.",
        "jni_libs": "depset of Files: native libraries its classes load.",
    },
)

# Class files for Java 11, so that a service on any current LTS JDK can
# load the jars.
_JAVAC_FLAGS = "--release 11 -encoding UTF-8 -Xlint:all -Xlint:-options -Werror"

_JDK_ATTRS = {
    "_javac": attr.label(
        default = "@system_jdk//:bin/javac",
        allow_single_file = True,
        executable = True,
        cfg = "exec",
    ),
    "_jar": attr.label(
        default = "@system_jdk//:bin/jar",
        allow_single_file = True,
        executable = True,
        cfg = "exec",
    ),
}

def _compile(ctx, srcs, classpath, out):
    """Compiles `srcs` against the jars of `classpath` into `out`."""
    cp = ":".join([j.path for j in classpath.to_list()])
    ctx.actions.run_shell(
        inputs = depset(srcs, transitive = [classpath]),
        outputs = [out],
        tools = [ctx.executable._javac, ctx.executable._jar],
        command = """set -euo pipefail
classes="$(mktemp -d)"
trap 'rm -rf "$classes"' EXIT
"{javac}" {flags} -d "$classes" {cp} "$@"
"{jar}" --create --file "{out}" -C "$classes" .
""".format(
            javac = ctx.executable._javac.path,
            jar = ctx.executable._jar.path,
            flags = _JAVAC_FLAGS,
            cp = "-cp '%s'" % cp if cp else "",
            out = out.path,
        ),
        arguments = [s.path for s in srcs],
        mnemonic = "Javac",
        progress_message = "Compiling %d Java files into %s" % (len(srcs), out.short_path),
    )

def _deps_info(ctx):
    jars = depset(
        ctx.files.jars,
        transitive = [d[JavaJarInfo].transitive_jars for d in ctx.attr.deps],
    )
    jni = depset(
        ctx.files.jni_libs,
        transitive = [d[JavaJarInfo].jni_libs for d in ctx.attr.deps],
    )
    return jars, jni

def _tfd_java_library_impl(ctx):
    jar = ctx.actions.declare_file(ctx.label.name + ".jar")
    classpath, jni = _deps_info(ctx)
    _compile(ctx, ctx.files.srcs, classpath, jar)
    return [
        DefaultInfo(files = depset([jar]), runfiles = ctx.runfiles(transitive_files = jni)),
        JavaJarInfo(
            jar = jar,
            transitive_jars = depset([jar], transitive = [classpath]),
            jni_libs = jni,
        ),
    ]

_LIBRARY_ATTRS = dict(_JDK_ATTRS, **{
    "srcs": attr.label_list(allow_files = [".java"], mandatory = True),
    "deps": attr.label_list(providers = [JavaJarInfo]),
    "jars": attr.label_list(allow_files = [".jar"], doc = "Prebuilt jars to compile against."),
    "jni_libs": attr.label_list(allow_files = [".so"], doc = "Native libraries the classes load."),
})

tfd_java_library = rule(
    implementation = _tfd_java_library_impl,
    attrs = _LIBRARY_ATTRS,
    doc = "Compiles Java sources with the system javac into <name>.jar.",
)

def _tfd_java_test_impl(ctx):
    jar = ctx.actions.declare_file(ctx.label.name + ".jar")
    classpath, jni = _deps_info(ctx)
    junit_api = depset(ctx.files._junit_api)
    _compile(ctx, ctx.files.srcs, depset(transitive = [classpath, junit_api]), jar)

    runtime_jars = [jar] + classpath.to_list()
    lib_dirs = {f.short_path.rpartition("/")[0]: True for f in jni.to_list()}
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.expand_template(
        template = ctx.file._runner,
        output = script,
        substitutions = {
            "%java%": ctx.executable._java.short_path,
            "%launcher%": ctx.file._launcher.short_path,
            "%classpath%": ":".join([j.short_path for j in runtime_jars]),
            "%test_jar%": jar.short_path,
            "%lib_dirs%": " ".join(lib_dirs.keys()),
            "%jvm_flags%": " ".join(ctx.attr.jvm_flags),
        },
        is_executable = True,
    )
    runfiles = ctx.runfiles(
        files = runtime_jars + [ctx.executable._java, ctx.file._launcher] + ctx.files.data,
        transitive_files = jni,
    )
    for d in ctx.attr.data + ctx.attr.jni_libs + ctx.attr.deps:
        runfiles = runfiles.merge(d[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

tfd_java_test = rule(
    implementation = _tfd_java_test_impl,
    test = True,
    attrs = dict(_LIBRARY_ATTRS, **{
        "data": attr.label_list(allow_files = True),
        "jvm_flags": attr.string_list(doc = "Extra flags for the JVM."),
        "_java": attr.label(
            default = "@system_jdk//:bin/java",
            allow_single_file = True,
            executable = True,
            cfg = "target",
        ),
        "_junit_api": attr.label(default = "@junit5//:api"),
        "_launcher": attr.label(
            default = "@junit5//:junit-platform-console-standalone.jar",
            allow_single_file = True,
        ),
        "_runner": attr.label(
            default = "//tools/bazel:junit_runner.sh.tpl",
            allow_single_file = True,
        ),
    }),
    doc = """Compiles JUnit 5 tests and runs every test class in them with
the console launcher, under -Xcheck:jni. A failing test, a test jar with no
tests, or any JNI warning (a leaked local reference, an unchecked
exception) fails the Bazel test.""",
)
