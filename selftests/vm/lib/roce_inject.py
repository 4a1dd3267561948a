#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send hand-made RoCEv2 packets (standard library only), for the datapath's
safety tests.

  roce_inject.py link IFACE SRCMAC DSTMAC SRC DST CASE COUNT [QPN]
      Ethernet frames out of IFACE (AF_PACKET): they arrive at the peer of a
      veth as if from the wire.
  roce_inject.py raw IFACE SRC DST CASE COUNT [QPN]
      IPv4 through the local stack out of IFACE (IPPROTO_RAW, bound to the
      device): they cross the output hooks of IFACE.
  roce_inject.py bytes SRC DST CASE [QPN]
      Print the IP packet in hex (to compare with a capture).
  roce_inject.py flood IFACE SRCMAC SRC PPS SECS TARGET...
      Ethernet frames out of IFACE (AF_PACKET) at PPS frames per second
      in all, the TARGETs in turn, for SECS seconds or until SIGTERM or
      SIGINT. TARGET is DSTMAC/DST/CASE/QPN, CASE cnp or ce, QPN a
      number, "rand" (a random QPN of 0x10000-0xffffff per frame) or "-":
      the QPNs of the "-" targets, in order, are read from one line of
      stdin before anything is sent, and SECS counts from then (python
      takes seconds to start on a busy TCG guest: it can be started
      before the QPNs are known).
      Prints "sending" once the first frames are out, and at the end a
      line "DST CASE QPN SENT" per target and "total SENT SECS PPS" (the
      rate achieved, which the guest's CPU may hold below PPS).

SRC/DST are IPv4 or IPv6 addresses. CASE is one of these, or several
separated by commas (COUNT of each, in that order; bytes: a line each):
one start of python for them all, which costs about a second under TCG.
  cnp          a valid CNP (BTH opcode 0x81, BECN, 16 reserved bytes, ICRC)
               to QPN (default 0x11)
  cnp_badicrc  the same with one ICRC bit flipped
  ce           a valid RC SEND ONLY, CE-marked, to QPN
  tver         RC SEND ONLY with BTH TVer = 1
  short        UDP length 20: a BTH but no room for the ICRC
  udplen       UDP length 100 bytes more than the IP payload
  pad          RC WRITE ONLY whose pad count does not fit before the ICRC
Every case but cnp and ce is malformed for the parser (include/rocecc/roce.h).
QPN "rand" (link mode): COUNT packets for random QPNs of 0x10000-0xffffff
(rxe's own are far below), no two of one run alike.
"""
import ipaddress
import random
import signal
import socket
import struct
import sys
import time
import zlib

PORT = 4791


def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icrc_input(ip, hl):
    """What the ICRC of an IP packet covers: 8 bytes of ones, then the
    packet with its variant fields masked and without the ICRC field (its
    last 4 bytes)."""
    if hl == 20:
        m = bytearray(ip[:20])
        m[1] = m[8] = m[10] = m[11] = 0xff
    else:
        m = bytearray(ip[:40])
        m[0] |= 0x0f
        m[1] = m[2] = m[3] = m[7] = 0xff
    u = bytearray(ip[hl:hl + 8])
    u[6] = u[7] = 0xff
    b = bytearray(ip[hl + 8:hl + 20])
    b[4] = 0xff
    return b'\xff' * 8 + bytes(m) + bytes(u) + bytes(b) + bytes(ip[hl + 20:-4])


def icrc(ip, hl):
    """ICRC of an IP packet whose last 4 bytes are the ICRC field."""
    return struct.pack('<I', zlib.crc32(icrc_input(ip, hl)) & 0xffffffff)


def bth(op, qpn, tver=0, pad=0, becn=0):
    return struct.pack('!BBHB', op, (pad << 4) | tver, 0xffff,
                       0x40 if becn else 0) + qpn.to_bytes(3, 'big') + \
        b'\0' + (0).to_bytes(3, 'big')


def packet(src, dst, case, qpn=0x11):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    v6 = s.version == 6
    tos = 0
    if case in ('cnp', 'cnp_badicrc'):
        l4 = bth(0x81, qpn, becn=1) + bytes(16) + bytes(4)
        tos = 48 << 2
    elif case == 'ce':
        l4 = bth(0x04, qpn) + bytes(64) + bytes(4)
        tos = (26 << 2) | 3
    elif case == 'tver':
        l4 = bth(0x04, qpn, tver=1) + bytes(64) + bytes(4)
    elif case == 'short':
        l4 = bth(0x04, qpn)
    elif case == 'udplen':
        l4 = bth(0x04, qpn) + bytes(64) + bytes(4)
    elif case == 'pad':
        l4 = bth(0x0a, qpn, pad=3) + bytes(8) + bytes(4)
    else:
        sys.exit('unknown case ' + case)
    ulen = 8 + len(l4) + (100 if case == 'udplen' else 0)
    udp = struct.pack('!HHHH', 0xc000, PORT, ulen, 0)
    if v6:
        hl = 40
        ip = bytearray(struct.pack('!IHBB', (6 << 28) | (tos << 20),
                                   8 + len(l4), 17, 64) +
                       s.packed + d.packed) + udp + l4
    else:
        hl = 20
        h = bytearray(struct.pack('!BBHHHBBH', 0x45, tos, 20 + 8 + len(l4),
                                  0, 0x4000, 64, 17, 0) + s.packed + d.packed)
        h[10:12] = struct.pack('!H', csum(bytes(h)))
        ip = h + udp + l4
    if case in ('cnp', 'cnp_badicrc', 'ce', 'tver', 'udplen', 'pad'):
        ip[-4:] = icrc(ip, hl)
    if case == 'cnp_badicrc':
        ip[-1] ^= 1
    return bytes(ip), v6


def qpn_frames(eth, src, dst, case):
    """A function of a QPN that returns the frame of @case for it: the
    header @eth, then packet()'s bytes with that QPN and its ICRC. The
    CRC of what precedes the QPN is taken once: a flood cannot afford to
    build every frame anew under TCG."""
    ip, _ = packet(src, dst, case, 0)
    hl = 20 if ip[0] >> 4 == 4 else 40
    q = hl + 8 + 5                      # the QPN: BTH bytes 5-7
    m = icrc_input(ip, hl)              # 8 bytes of ones, then ip masked
    pre, post = zlib.crc32(m[:8 + q]), m[8 + q + 3:]
    head, tail = eth + ip[:q], ip[q + 3:-4]

    def frame(qpn):
        b = qpn.to_bytes(3, 'big')
        crc = zlib.crc32(post, zlib.crc32(b, pre)) & 0xffffffff
        return head + b + tail + struct.pack('<I', crc)
    return frame


def flood(iface, smac, src, pps, secs, targets):
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    v6 = ipaddress.ip_address(src).version == 6
    eth = struct.pack('!H', 0x86dd if v6 else 0x0800)
    ts = []                             # [dst, case, qpn, frame(), sent]
    for t in targets:
        dmac, dst, case, qpn = t.split('/')
        if case not in ('cnp', 'ce'):
            sys.exit('flood: CASE is cnp or ce, not ' + case)
        ts.append([dst, case, qpn,
                   qpn_frames(mac(dmac) + mac(smac) + eth, src, dst, case), 0])
    sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sk.bind((iface, 0))
    wait = [t for t in ts if t[2] == '-']
    if wait:
        got = sys.stdin.readline().split()
        if len(got) != len(wait):
            sys.exit('flood: %d QPNs for %d "-" targets on stdin: %s'
                     % (len(got), len(wait), ' '.join(got) or 'none'))
        for t, q in zip(wait, got):
            t[2] = str(int(q, 0))
    # Frames due are sent every 2 ms; a sender held up (a busy guest)
    # goes on at the rate, not with a burst of what it owes beyond 20 ms.
    burst = max(1, int(pps / 50))
    sent = owed = i = 0
    t0 = now = time.monotonic()
    while not stop and now - t0 < secs:
        due = int((now - t0) * pps) + 1 - owed
        if due - sent > burst:
            owed += due - sent - burst
            due = sent + burst
        while sent < due:
            t = ts[i]
            i = (i + 1) % len(ts)
            q = t[2]
            sk.send(t[3](random.randrange(0x10000, 0x1000000)
                         if q == 'rand' else int(q, 0)))
            t[4] += 1
            sent += 1
        if now == t0:
            print('sending', flush=True)
        time.sleep(0.002)
        now = time.monotonic()
    el = now - t0
    for t in ts:
        print(*t[:3], t[4])
    print('total %d %.2f %.0f' % (sent, el, sent / el if el > 0 else 0))


def mac(s):
    return bytes(int(x, 16) for x in s.split(':'))


def main():
    mode = sys.argv[1]
    if mode == 'link':
        iface, smac, dmac, src, dst, case, count = sys.argv[2:9]
        arg = sys.argv[9] if len(sys.argv) > 9 else '0x11'
        qpns = random.sample(range(0x10000, 0x1000000), int(count)) \
            if arg == 'rand' else [int(arg, 0)]
        sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        sk.bind((iface, 0))
        for c in case.split(','):
            frames = []
            for qpn in qpns:
                ip, v6 = packet(src, dst, c, qpn)
                frames.append(mac(dmac) + mac(smac) +
                              struct.pack('!H', 0x86dd if v6 else 0x0800) + ip)
            for i in range(int(count)):
                sk.send(frames[i % len(frames)])
    elif mode == 'raw':
        iface, src, dst, case, count = sys.argv[2:7]
        qpn = int(sys.argv[7], 0) if len(sys.argv) > 7 else 0x11
        sk = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        sk.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, iface.encode())
        for c in case.split(','):
            ip, v6 = packet(src, dst, c, qpn)
            if v6:
                sys.exit('raw mode is IPv4 only')
            for _ in range(int(count)):
                sk.sendto(ip, (dst, 0))
    elif mode == 'flood':
        iface, smac, src, pps, secs = sys.argv[2:7]
        flood(iface, smac, src, float(pps), float(secs), sys.argv[7:])
    elif mode == 'bytes':
        src, dst, case = sys.argv[2:5]
        qpn = int(sys.argv[5], 0) if len(sys.argv) > 5 else 0x11
        for c in case.split(','):
            print(packet(src, dst, c, qpn)[0].hex())
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
