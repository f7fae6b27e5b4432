"""checks.py — the smallest test harness of the Python tests, as tests/check.h is of the C ones:
one "ok - what" or "not ok - what: why" line per check, which tests/run.sh counts.

    from checks import ok, not_ok, check, expect_eq, expect_close, done
    check("what", lambda: None if fine else "why not")
    sys.exit(done())
"""
import resource
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


def child_cpu(fn):
    """(fn()'s value, the CPU seconds its child processes used): user + system time of the
    children it waited for, which a busy machine does not inflate as it does wall time."""
    def used():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    t0 = used()
    v = fn()
    return v, used() - t0


def linear(run, small, big, size=None, within=3.0, tries=3):
    """None when run(n) (work of size n in child processes) scales linearly from n = small to
    n = big, else why not. No clock limit (issue 34): each size's cost is the least child CPU
    time of `tries` runs, one size after the other, and big's must stay under
    within * (size(big) / size(small)) times small's (size: the input's size at n; n itself
    when None). A linear step passes on any machine, busy or idle
    (CPU time, best of tries); a quadratic one at 10x the size costs 100x, and fails."""
    cost = {}
    for n in (small, big):
        cost[n] = min(child_cpu(lambda: run(n))[1] for _ in range(tries))
    grow = size(big) / size(small) if size else big / small
    ratio = cost[big] / max(cost[small], 1e-6)
    if ratio >= within * grow:
        return (f"{grow:.0f}x the input took {ratio:.0f}x the CPU time ({cost[small]:.3f} s "
                f"-> {cost[big]:.3f} s), more than {within * grow:.0f}x")
    return None


def done():
    """The exit status: 1 when a check failed."""
    return 1 if failures else 0
