"""Expected texts of core/nn/callbacks/progbar_test.cc, from tf-keras 2.21's
Progbar with a fake clock (on Linux tf-keras always draws dynamically).

    TF_USE_LEGACY_KERAS=1 python core/nn/callbacks/testdata/progbar_golden.py
"""
import io
import sys
import time

from tf_keras.src.utils import generic_utils

clock = [0.0]
time.time = lambda: clock[0]


def run(name, target, verbose, steps, stateful=("loss", "accuracy")):
    """steps: (time, current, values, finalize)."""
    out = io.StringIO()
    real = sys.stdout
    sys.stdout = out
    clock[0] = 100.0
    bar = generic_utils.Progbar(target, verbose=verbose, stateful_metrics=stateful)
    for t, current, values, finalize in steps:
        clock[0] = t
        bar.update(current, values, finalize=finalize)
    sys.stdout = real
    print(name, repr(out.getvalue()))


vals = [("loss", 0.75), ("accuracy", 0.25)]
run("verbose1", 3, 1, [(100.5, 1, vals, False), (101.0, 2, vals, False),
                       (101.25, 3, [("loss", 0.5), ("accuracy", 0.5)], True)])
run("verbose2", 3, 2, [(100.5, 1, vals, False), (101.0, 2, vals, False),
                       (103.5, 3, [("loss", 0.5), ("accuracy", 0.5)], True)])
run("eta", 188, 1, [(110.0, 1, [("loss", 0.0001)], False),
                    (110.01, 2, [("loss", 2.5)], False),
                    (4000.0, 3, [("loss", 2.5)], False)])
run("unknown", None, 1, [(100.002, 5, [("loss", 1.5)], False),
                         (100.004, 9, [("loss", 1.25)], True)])
run("averaged", 4, 1, [(100.1, 1, [("lr", 1.0)], False), (100.2, 3, [("lr", 4.0)], False),
                       (100.3, 4, [("lr", -0.0002)], True)], stateful=())
