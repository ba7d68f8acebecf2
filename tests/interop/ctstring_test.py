#!/usr/bin/env python3
"""TF_TString's inline functions: tfd's headers against TensorFlow's.

ctstring_trace.c drives TensorFlow's static inline TF_TString_* functions
(tensorflow/core/platform/ctstring.h) through copies, resizes, reserves,
appends, assigns, moves, views and OFFSET strings, printing the
representation, size, capacity and bytes after each step. It is compiled
twice with the system C compiler, -std=c11 and AddressSanitizer: against
the headers of the installed TensorFlow and against tfd's c_api/include
(with -Wall -Wextra -Werror -pedantic). The two traces must be equal line
for line; the first difference is reported.

Run by tools/interop.sh from the repository root. Exit status 0 when the
traces are equal.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import tensorflow as tf

SOURCE = "tests/interop/ctstring_trace.c"
COMMON_FLAGS = ["-std=c11", "-O1", "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all"]


def build_and_run(tmp, name, include_dir, extra_flags):
    binary = os.path.join(tmp, name)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit("no C compiler (cc) on PATH")
    cmd = [compiler, *COMMON_FLAGS, *extra_flags, "-I", include_dir, SOURCE,
           "-o", binary]
    subprocess.run(cmd, check=True)
    return subprocess.run([binary], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def main():
    tf_include = tf.sysconfig.get_include()
    if not os.path.exists(os.path.join(tf_include, "tensorflow", "core",
                                       "platform", "ctstring.h")):
        sys.exit(f"TensorFlow's ctstring.h is not under {tf_include}")
    with tempfile.TemporaryDirectory() as tmp:
        # TensorFlow's own header is not -Werror clean in C; ours must be.
        theirs = build_and_run(tmp, "tensorflow", tf_include, ["-w"])
        ours = build_and_run(tmp, "tfd", "c_api/include",
                             ["-Wall", "-Wextra", "-Werror", "-pedantic"])
    if len(theirs) < 50:
        sys.exit(f"the trace has only {len(theirs)} lines")
    for i, (a, b) in enumerate(zip(theirs, ours)):
        if a != b:
            sys.exit(f"line {i + 1} differs:\n  TensorFlow: {a}\n  tfd:        {b}")
    if len(theirs) != len(ours):
        sys.exit(f"TensorFlow printed {len(theirs)} lines, tfd {len(ours)}")
    print(f"ctstring: {len(ours)} steps equal to TensorFlow's")


if __name__ == "__main__":
    main()
