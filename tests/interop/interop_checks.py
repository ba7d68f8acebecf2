"""The checks an interop test prints as it goes: one line per check, "ok"
or "FAILED", and every failure kept in FAILURES so that the test can run
all its checks and report them together at the end (its exit status)."""

FAILURES = []


def check(condition, message):
    print(("ok      " if condition else "FAILED  ") + message)
    if not condition:
        FAILURES.append(message)


def check_restored_everything(status):
    """`status`, what tf.train.Checkpoint.restore returned, matched every
    object of the Keras side and consumed every value of the checkpoint."""
    try:
        status.assert_existing_objects_matched()
        status.assert_consumed()
        check(True, "Keras restore: assert_existing_objects_matched and assert_consumed")
    except AssertionError as e:
        check(False, f"Keras restore: {e}")
