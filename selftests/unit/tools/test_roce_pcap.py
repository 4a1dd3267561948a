#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/lib/roce_pcap.py on synthetic captures (TAP): the CNP
count and the shortest spans between a CNP and the next one, the next but
one and the sixteenth after it, per destination QPN."""
import os
import struct
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
TOOL = os.path.join(TOP, "selftests/vm/lib/roce_pcap.py")
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from tap import ok, plan  # noqa: E402


def cnp(qpn):
    """An IPv4 CNP (raw IP) to QPN: BTH opcode 0x81, 16 reserved bytes and
    an ICRC of zeros (its check is not what this test is about)."""
    bth = bytes([0x81, 0, 0xff, 0xff, 0]) + qpn.to_bytes(3, "big") + bytes(4)
    pay = bth + bytes(16) + bytes(4)
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(pay), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 48 << 2, 20 + len(udp) + len(pay),
                     0, 0, 64, 17, 0, bytes([10, 0, 0, 3]), bytes([10, 0, 0, 1]))
    return ip + udp + pay


def pcap(path, pkts):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
        for us, d in pkts:
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000,
                                len(d), len(d)))
            f.write(d)


def summary(pkts):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "c.pcap")
        pcap(p, pkts)
        out = subprocess.run([sys.executable, TOOL, p], check=True,
                             capture_output=True, text=True).stdout
    return dict(kv.split("=", 1) for kv in out.split())


t0 = 1_700_000_000_000_000
# QPN 0x11: one CNP every 20 ms, except that the 21st comes 1 ms after
# the 20th (as when the capture saw the 20th late); QPN 0x22: every 50 ms,
# interleaved with the first.
times = [t0 + 20000 * i for i in range(40)]
times[20] = times[19] + 1000
pk = [(t, cnp(0x11)) for t in times] + \
     [(t0 + 500 + 50000 * i, cnp(0x22)) for i in range(17)]
pk.sort()
s = summary(pk)
ok(s["cnp"] == "57", "every CNP counted", s["cnp"])
ok(s["cnp_qpn"] == "0x11,0x22", "both destination QPNs", s["cnp_qpn"])
ok(s["cnp_gap_min_us"] == "1000", "shortest gap between consecutive CNPs",
   s["cnp_gap_min_us"])
ok(s["cnp_gap2_min_us"] == "21000", "shortest span over two gaps",
   s["cnp_gap2_min_us"])
ok(s["cnp_gap16_min_us"] == str(15 * 20000 + 1000),
   "shortest span over sixteen gaps, per QPN", s["cnp_gap16_min_us"])
s = summary([(t0 + 20000 * i, cnp(0x11)) for i in range(16)])
ok(s["cnp_gap16_min_us"] == "-", "fewer than 17 CNPs: no 16-gap span",
   s["cnp_gap16_min_us"])
s = summary([])
ok(s["cnp"] == "0" and s["cnp_gap_min_us"] == "-", "an empty capture", s)

sys.exit(plan())
