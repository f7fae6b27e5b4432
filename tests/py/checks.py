"""checks.py — the smallest test harness of the Python tests, as tests/check.h is of the C ones:
one "ok - what" or "not ok - what: why" line per check, which tests/run.sh counts.

    from checks import ok, not_ok, check, expect_eq, expect_close, done
    check("what", lambda: None if fine else "why not")
    sys.exit(done())
"""
import traceback

failures = 0


def ok(what):
    print(f"ok - {what}", flush=True)


def not_ok(what, why):
    global failures
    failures += 1
    print(f"not ok - {what}: {why}", flush=True)


def check(what, fn):
    """fn() returns None when the check holds, else why not; an exception fails the check."""
    try:
        why = fn()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        why = f"{type(e).__name__}: {e}"
    if why:
        not_ok(what, why)
    else:
        ok(what)


def expect_eq(what, got, want):
    if got == want:
        ok(what)
    else:
        not_ok(what, f"got [{got}] expected [{want}]")


def expect_close(what, got, want, tol=1e-9):
    if abs(got - want) <= tol:
        ok(what)
    else:
        not_ok(what, f"got {got!r} expected {want!r}")


def done():
    """The exit status: 1 when a check failed."""
    return 1 if failures else 0
