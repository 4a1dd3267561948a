#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/lib/incast_report.py window_latency() (TAP): a sender's
message percentiles of the window from rocegen's "window_latency", how far
its --window-ms start missed the report's window, and nothing from a
rocegen run without --window-ms."""
import os
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from srcmod import load  # noqa: E402
from tap import ok, plan  # noqa: E402

ir = load("selftests/vm/lib/incast_report.py")


def client(start, win, lat, wlat):
    c = {"start_time": start, "params": {},
         "total": {"latency": {"p50": lat[0], "p99": lat[1], "p999": lat[2],
                               "samples": 900}}}
    if win is not None:
        c["params"]["window_ms"] = win
        c["total"]["window_latency"] = {"p50": wlat[0], "p99": wlat[1],
                                        "p999": wlat[2], "samples": 600}
    return c


# two senders started 0.2 s apart; the report's window starts 5 s after
# the last one (w0 = 105.2); both were told 5000 ms after their own start
r = {}
w0 = 105.2
ir.window_latency(client(100.0, [5000.0, 20000.0], (80e3, 500e3, 700e3),
                         (79e3, 120e3, 140e3)), r, 1, w0)
ir.window_latency(client(100.2, [5000.0, 20000.0], (80e3, 450e3, 600e3),
                         (78e3, 110e3, 130e3)), r, 2, w0)
ok(r["wp50_ms1"] == 79 and r["wp99_ms1"] == 120 and r["wp999_ms1"] == 140,
   "sender 1's window percentiles in ms", r)
ok(r["wp99_ms2"] == 110 and r["wmsgs2"] == 600,
   "sender 2's window p99 and message count", r)
ok(abs(r["wskew_ms"] - 200.0) < 1e-6,
   "the skew: sender 1's window started 200 ms before the report's", r)

r = {}
ir.window_latency(client(100.0, None, (80e3, 500e3, 700e3), None), r, 1, w0)
ok(r == {}, "no --window-ms: no window figures", r)
sys.exit(plan())
