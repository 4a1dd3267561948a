#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/lib/incast_report.py stalls() on a synthetic stallmon file
(TAP): which retransmissions follow a guest stall (t_incast.t's header),
that those the monitor missed count as not following one, and the share
of the run within the window after a stall."""
import os
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from srcmod import load  # noqa: E402
from tap import ok, plan  # noqa: E402

ir = load("selftests/vm/lib/incast_report.py")

C = "/sys/class/infiniband/rxe{}/ports/1/hw_counters/{}"


def run(lines, retrans, v_retrans=None):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "stallmon"), "w") as f:
            f.write("\n".join(lines) + "\n")
        r = {"retrans": retrans}
        if v_retrans is not None:
            r["v_retrans"] = v_retrans
        ir.stalls(d, r, 3)
        return r


# 1000 ms monitored; stalls ending at 130 (30 ms) and 600 (70 ms), and one
# of 15 ms (below STALL_MS) ending at 880
r = run(["start 0.000",
         "stall 0 100.0 30.0",
         "stall 1 530.0 70.0",
         "stall 0 865.0 15.0",
         # host 1: 100 ms after the first stall's end: the stall's
         "ctr " + C.format(1, "completer_retry_err") + " 230.0 0 1",
         # host 2: 135 ms after it: too late
         "ctr " + C.format(2, "completer_retry_err") + " 265.0 0 1",
         # host 3, two at once, right after the second
         "ctr " + C.format(3, "completer_retry_err") + " 602.0 0 2",
         # the victim (host 5) after the 15 ms one alone: not a stall
         "ctr " + C.format(5, "completer_retry_err") + " 890.0 0 1",
         # the victim after the second
         "ctr " + C.format(5, "completer_retry_err") + " 700.0 1 2",
         # the receiver's duplicates are no retransmissions
         "ctr " + C.format(4, "duplicate_request") + " 605.0 0 50",
         "end 1000.000",
         "cpu 0 900 30.0",
         "cpu 1 900 70.0"],
        retrans=5, v_retrans=2)
ok(r["stalls"] == 2, "stalls of STALL_MS or more counted", r)
ok(abs(r["stall_max_ms"] - 70.0) < 1e-9, "the longest stall", r)
ok(r["retrans_stall"] == 3,
   "bulk retransmissions within STALL_WINDOW_MS after a stall", r)
# 5 from the counters, 4 seen by the monitor, 3 after stalls
ok(r["retrans_unexpl"] == 2,
   "the rest, and those the monitor missed, are not the guest's", r)
ok(r["v_retrans_stall"] == 1 and r["v_retrans_unexpl"] == 1,
   "the victim's, apart from the bulk's", r)
ok(abs(r["stall_cover"] - 2 * ir.STALL_WINDOW_MS / 1000) < 1e-9,
   "the share of the run within the window after a stall", r)

r = run(["start 0.000", "stall 0 10.0 50.0", "stall 1 20.0 50.0",
         "end 100.000"], retrans=0)
ok(abs(r["stall_cover"] - 0.4) < 1e-9,
   "overlapping windows counted once, clipped at the end", r)
ok("v_retrans_stall" not in r and r["retrans_unexpl"] == 0,
   "no victim, no retransmissions", r)

with tempfile.TemporaryDirectory() as d:
    r = {"retrans": 3, "v_retrans": 1}
    ir.stalls(d, r, 3)
ok(r["stalls"] == 0 and r["retrans_unexpl"] == 3 and
   r["v_retrans_unexpl"] == 1 and r["stall_cover"] == 0.0,
   "without a monitor's file every retransmission counts", r)
sys.exit(plan())
