#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What any local user can send: RoCEv2-shaped packets from an ordinary UDP
socket (standard library only, no privilege), for the datapath's tests.

  roce_udp.py DEV DST RATE SECONDS QPN[,QPN...]

RC SEND ONLY packets (a valid BTH, AckReq set, 1024 payload bytes, an ICRC
field of zeros) to DST port 4791 out of DEV (SO_BINDTODEVICE, which needs
no capability on a fresh socket), RATE packets a second for SECONDS, the
QPNs taken in turn (decimal or 0x-hex; a:b is the range a..b-1). Sent in
bursts every 10 ms. Prints "sent N failed M" at the end (or on SIGTERM).
"""
import signal
import socket
import struct
import sys
import time

PORT = 4791


def qpns(arg):
    out = []
    for part in arg.split(','):
        if ':' in part:
            a, b = part.split(':')
            out.extend(range(int(a, 0), int(b, 0)))
        else:
            out.append(int(part, 0))
    return out


def packet(qpn, psn):
    bth = struct.pack('!BBHB', 0x04, 0, 0xffff, 0) + \
        (qpn & 0xffffff).to_bytes(3, 'big') + \
        struct.pack('!I', 0x80000000 | (psn & 0xffffff))
    return bth + bytes(1024) + bytes(4)


def main():
    dev, dst, rate, secs, qs = sys.argv[1:6]
    rate, secs, qs = float(rate), float(secs), qpns(qs)
    pkts = [packet(q, i) for i, q in enumerate(qs)]
    sk = socket.socket(socket.AF_INET6 if ':' in dst else socket.AF_INET,
                       socket.SOCK_DGRAM)
    sk.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())
    sent = failed = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    t0 = time.monotonic()
    while not stop:
        now = time.monotonic() - t0
        if now >= secs:
            break
        due = int(now * rate) + 1
        while sent + failed < due:
            try:
                sk.sendto(pkts[(sent + failed) % len(pkts)], (dst, PORT))
                sent += 1
            except OSError:
                failed += 1
        time.sleep(0.01)
    print('sent %d failed %d' % (sent, failed), flush=True)


if __name__ == '__main__':
    main()
