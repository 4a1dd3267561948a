# SPDX-License-Identifier: GPL-2.0
"""Minimal TAP producer for rocecc's Python unit tests, the counterpart of
tap.h: ok() is one test point (its diagnostic printed as "# " lines when it
fails), skip() a skipped one, plan() prints the plan at the end and returns
the exit status.

    sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
    from tap import ok, plan
"""
_n = 0
_failed = 0


def ok(cond, desc, diag=None):
    global _n, _failed
    _n += 1
    print(("ok" if cond else "not ok") + f" {_n} - {desc}")
    if not cond:
        _failed += 1
        for line in str(diag).splitlines() if diag is not None else ():
            print("# " + line)
    return cond


def skip(desc, why):
    global _n
    _n += 1
    print(f"ok {_n} - {desc} # SKIP {why}")


def plan():
    print(f"1..{_n}")
    return 1 if _failed else 0
