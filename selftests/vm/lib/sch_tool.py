#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic and netlink helpers of t_sch.t (the rocecc qdisc).

  sch_tool.py udp DEV DST TOS COUNT [GAP_MS]   UDP datagrams with IP_TOS,
                                               bound to DEV (port 9)
  sch_tool.py udp6 DEV DST TCLASS COUNT [GAP_MS]  the same over IPv6
  sch_tool.py blast DEV DST SECONDS            UDP with TOS 0, 0x68, 0xb8,
                                               0xe0 in turn until SECONDS
  sch_tool.py txtime DEV DST TOS DELAY_MS      one UDP datagram with
                                               SCM_TXTIME now + DELAY_MS
  sch_tool.py raw DEV PRIO COUNT               Ethernet frames of EtherType
                                               0x88b5 with SO_PRIORITY PRIO
  sch_tool.py pfc DEV MASK QUANTA COUNT [GAP_MS [DMAC]]
                                               PFC frames (802.1Qbb) out of DEV:
                                               priorities in MASK, QUANTA each,
                                               to DMAC (01:80:c2:00:00:01)
  sch_tool.py pfcfor DEV MASK QUANTA SECONDS [READY]
                                               PFC frames back to back for
                                               SECONDS (creates the file READY
                                               after the first); prints how many
  sch_tool.py nlopt DEV                        RTM_NEWQDISC root rocecc with a
                                               4-byte TCA_OPTIONS; prints
                                               "ERRNO MESSAGE" (extack)
"""
import os
import socket
import struct
import sys
import time

SO_TXTIME = 61
SCM_TXTIME = SO_TXTIME
CLOCK_MONOTONIC = 1


def _bind(s, dev):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())


def udp(dev, dst, tos, count, gap_ms=0, v6=False, port=9):
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    _bind(s, dev)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    for _ in range(count):
        s.sendto(b"x" * 64, (dst, port))
        if gap_ms:
            time.sleep(gap_ms / 1000)


def blast(dev, dst, seconds):
    socks = []
    for tos in (0, 0x68, 0xb8, 0xe0):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        _bind(s, dev)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        socks.append(s)
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        for s in socks:
            try:
                s.sendto(b"y" * 200, (dst, 9))
                n += 1
            except OSError:
                pass	# ENOBUFS while a qdisc is replaced
        time.sleep(0.001)
    print(n)


def txtime(dev, dst, tos, delay_ms):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _bind(s, dev)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    s.setsockopt(socket.SOL_SOCKET, SO_TXTIME,
                 struct.pack("iI", CLOCK_MONOTONIC, 0))
    t = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + delay_ms * 1000000
    s.sendmsg([b"z" * 64], [(socket.SOL_SOCKET, SCM_TXTIME,
                             struct.pack("Q", t))], 0, (dst, 9))


def _mac(dev):
    with open(f"/sys/class/net/{dev}/address") as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def raw(dev, prio, count):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
    frame = b"\x02\x00\x00\x00\x00\x99" + _mac(dev) + b"\x88\xb5" + bytes(46)
    for _ in range(count):
        s.send(frame)


def pfc(dev, mask, quanta, count, gap_ms=0, dmac="01:80:c2:00:00:01"):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    times = [quanta if mask & (1 << p) else 0 for p in range(8)]
    frame = (bytes.fromhex(dmac.replace(":", "")) + _mac(dev) + b"\x88\x08" +
             struct.pack("!HH8H", 0x0101, mask, *times))
    frame += bytes(60 - len(frame))
    for _ in range(count):
        s.send(frame)
        if gap_ms:
            time.sleep(gap_ms / 1000)


def pfcfor(dev, mask, quanta, seconds, ready=None):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    times = [quanta if mask & (1 << p) else 0 for p in range(8)]
    frame = (b"\x01\x80\xc2\x00\x00\x01" + _mac(dev) + b"\x88\x08" +
             struct.pack("!HH8H", 0x0101, mask, *times))
    frame += bytes(60 - len(frame))
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        s.send(frame)
        n += 1
        if n == 1 and ready:
            open(ready, "w").close()
    print(n)


def nlopt(dev):
    RTM_NEWQDISC, NLM_F_REQUEST, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL = \
        36, 1, 4, 0x400, 0x200
    NETLINK_EXT_ACK, NLMSG_ERROR, NLMSGERR_ATTR_MSG = 11, 2, 1
    TCA_KIND, TCA_OPTIONS, TC_H_ROOT = 1, 2, 0xffffffff

    def attr(t, data):
        a = struct.pack("HH", 4 + len(data), t) + data
        return a + bytes(-len(a) % 4)

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.setsockopt(270, NETLINK_EXT_ACK, 1)	# SOL_NETLINK
    tcm = struct.pack("BxxxiIIi", socket.AF_UNSPEC, socket.if_nametoindex(dev),
                      0x10000, TC_H_ROOT, 0)
    body = tcm + attr(TCA_KIND, b"rocecc\0") + attr(TCA_OPTIONS, bytes(4))
    flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL
    s.send(struct.pack("IHHII", 16 + len(body), RTM_NEWQDISC, flags, 1, 0) +
           body)
    msg = s.recv(65536)
    _, typ, fl, _, _ = struct.unpack_from("IHHII", msg)
    if typ != NLMSG_ERROR:
        print("? no error message")
        return
    err = struct.unpack_from("i", msg, 16)[0]
    text = ""
    # struct nlmsgerr, then (NLM_F_CAPPED: only its header) the extack TLVs
    off = 20 + (16 if fl & 0x100 else struct.unpack_from("I", msg, 20)[0])
    off = (off + 3) & ~3
    while off + 4 <= len(msg):
        ln, t = struct.unpack_from("HH", msg, off)
        if ln < 4:
            break
        if t == NLMSGERR_ATTR_MSG:
            text = msg[off + 4:off + ln].rstrip(b"\0").decode()
        off += (ln + 3) & ~3
    print(err, text)


def main(a):
    cmd = a[0]
    if cmd in ("udp", "udp6"):
        udp(a[1], a[2], int(a[3], 0), int(a[4]),
            float(a[5]) if len(a) > 5 else 0, cmd == "udp6",
            int(a[6]) if len(a) > 6 else 9)
    elif cmd == "blast":
        blast(a[1], a[2], float(a[3]))
    elif cmd == "txtime":
        txtime(a[1], a[2], int(a[3], 0), int(a[4]))
    elif cmd == "raw":
        raw(a[1], int(a[2]), int(a[3]))
    elif cmd == "pfc":
        pfc(a[1], int(a[2], 0), int(a[3], 0), int(a[4]),
            float(a[5]) if len(a) > 5 else 0, *a[6:7])
    elif cmd == "pfcfor":
        pfcfor(a[1], int(a[2], 0), int(a[3], 0), float(a[4]),
               a[5] if len(a) > 5 else None)
    elif cmd == "nlopt":
        nlopt(a[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(0)
