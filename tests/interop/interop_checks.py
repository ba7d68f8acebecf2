"""The checks an interop test prints as it goes: one line per check, "ok"
or "FAILED", and every failure kept in FAILURES so that the test can run
all its checks and report them together at the end (its exit status)."""

FAILURES = []


def check(condition, message):
    print(("ok      " if condition else "FAILED  ") + message)
    if not condition:
        FAILURES.append(message)
