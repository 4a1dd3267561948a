#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RoCEv2 summary of a pcap (Ethernet, Linux cooked v1/v2, or raw IP): packets by
ECN codepoint, ICRC check of every RoCE packet, CNPs (BTH opcode 0x81) with
their DSCP and ECN. Standard library only (fast under TCG).

Usage: roce_pcap.py FILE [SRC_ADDR]   (only packets from SRC_ADDR if given)
Prints one line: roce=N notect=N ect0=N ect1=N ce=N icrc_bad=N cnp=N
cnp_icrc_bad=N data=N data_notect=N cnp_dscp=D[,D] cnp_ecn=E[,E]
cnp_qpn=Q[,Q] cnp_gap_min_us=G cnp_gap2_min_us=G2 cnp_gap16_min_us=G16
cnp_span_us=S cnp_first_us=T
(cnp_qpn: the CNPs' destination QPNs in hex; cnp_first_us: the first CNP's
capture time, microseconds since the epoch; cnp_gap_min_us: the shortest
interval between two consecutive CNPs to the same QPN, cnp_gap2_min_us
between a CNP and the next but one, cnp_gap16_min_us between a CNP and the
sixteenth after it; cnp_span_us: first to last CNP; "-" when there are too
few CNPs.)

The ICRC is CRC-32 over 8 bytes 0xff, the IP header with TOS/TTL/checksum
(IPv4) or traffic class/flow label/hop limit (IPv6) set to ones, the UDP
header with the checksum set to ones, the BTH with byte 4 set to ones, and
the rest up to the ICRC, stored least significant byte first
(docs/dcqcn.md §4.4)."""
import ipaddress
import struct
import sys
import zlib

ROCE_PORT = 4791


def frames(path):
    with open(path, 'rb') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return
        magic = struct.unpack('<I', hdr[:4])[0]
        e = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        if e == '>':
            magic = struct.unpack('>I', hdr[:4])[0]
        linktype = struct.unpack(e + 'I', hdr[20:24])[0]
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            sec, frac, incl = struct.unpack(e + 'III', rh[:12])
            # magic a1b23c4d: nanosecond timestamps
            us = frac / 1000 if magic == 0xa1b23c4d else frac
            yield sec * 1000000 + us, linktype, f.read(incl)


def l3(linktype, d):
    """The IP packet of a frame and its family (4 or 6), or None."""
    if linktype == 1:			# Ethernet
        off, et = 14, struct.unpack('>H', d[12:14])[0]
        if et == 0x8100:
            off, et = 18, struct.unpack('>H', d[16:18])[0]
    elif linktype == 113:		# Linux cooked v1
        off, et = 16, struct.unpack('>H', d[14:16])[0]
    elif linktype == 276:		# Linux cooked v2
        off, et = 20, struct.unpack('>H', d[0:2])[0]
    elif linktype in (101, 228, 229) and d:	# raw IP
        off, et = 0, 0x0800 if d[0] >> 4 == 4 else 0x86dd
    else:
        return None
    if et == 0x0800:
        return 4, d[off:]
    if et == 0x86dd:
        return 6, d[off:]
    return None


def main():
    src = ipaddress.ip_address(sys.argv[2]) if len(sys.argv) > 2 else None
    c = dict(roce=0, notect=0, ect0=0, ect1=0, ce=0, icrc_bad=0, cnp=0,
             cnp_icrc_bad=0, data=0, data_notect=0)
    cnp_dscp, cnp_ecn = set(), set()
    cnp_last, cnp_gap, cnp_gap2, cnp_gap16, cnp_t = {}, None, None, None, []
    cnp_prev, cnp_hist = {}, {}
    for ts, lt, d in frames(sys.argv[1]):
        r = l3(lt, d)
        if not r:
            continue
        fam, ip = r
        if fam == 4:
            if len(ip) < 20 or ip[9] != 17:
                continue
            hl = (ip[0] & 0xf) * 4
            ip = ip[:struct.unpack('>H', ip[2:4])[0]]
            m = bytearray(ip[:hl])
            m[1] = m[8] = m[10] = m[11] = 0xff
            tc = ip[1]
            saddr = ipaddress.ip_address(ip[12:16])
        else:
            if len(ip) < 40 or ip[6] != 17:
                continue
            hl = 40
            ip = ip[:40 + struct.unpack('>H', ip[4:6])[0]]
            m = bytearray(ip[:40])
            m[0] |= 0x0f
            m[1] = m[2] = m[3] = m[7] = 0xff
            tc = ((ip[0] & 0xf) << 4) | (ip[1] >> 4)
            saddr = ipaddress.ip_address(ip[8:24])
        if len(ip) < hl + 8 + 12 + 4:
            continue
        if struct.unpack('>H', ip[hl + 2:hl + 4])[0] != ROCE_PORT:
            continue
        if src is not None and saddr != src:
            continue
        u = bytearray(ip[hl:hl + 8])
        u[6] = u[7] = 0xff
        b = bytearray(ip[hl + 8:hl + 20])
        b[4] = 0xff
        crc = zlib.crc32(b'\xff' * 8 + bytes(m) + bytes(u) + bytes(b) +
                         ip[hl + 20:-4]) & 0xffffffff
        good = struct.pack('<I', crc) == ip[-4:]
        ecn = tc & 3
        op = ip[hl + 8]
        c['roce'] += 1
        c[('notect', 'ect1', 'ect0', 'ce')[ecn]] += 1
        if not good:
            c['icrc_bad'] += 1
        if op == 0x81:
            c['cnp'] += 1
            if not good:
                c['cnp_icrc_bad'] += 1
            cnp_dscp.add(tc >> 2)
            cnp_ecn.add(ecn)
            qpn = int.from_bytes(ip[hl + 13:hl + 16], 'big')
            if qpn in cnp_last:
                g = ts - cnp_last[qpn]
                cnp_gap = g if cnp_gap is None else min(cnp_gap, g)
            if qpn in cnp_prev:
                g = ts - cnp_prev[qpn]
                cnp_gap2 = g if cnp_gap2 is None else min(cnp_gap2, g)
            if qpn in cnp_last:
                cnp_prev[qpn] = cnp_last[qpn]
            cnp_last[qpn] = ts
            h = cnp_hist.setdefault(qpn, [])
            h.append(ts)
            if len(h) > 16:
                g = ts - h.pop(0)
                cnp_gap16 = g if cnp_gap16 is None else min(cnp_gap16, g)
            cnp_t.append(ts)
        elif op <= 0x10 or 0x13 <= op <= 0x2b:
            c['data'] += 1		# requests, READ responses, UC
            if ecn == 0:
                c['data_notect'] += 1
    out = ' '.join(f'{k}={v}' for k, v in c.items())
    out += ' cnp_dscp=' + (','.join(map(str, sorted(cnp_dscp))) or '-')
    out += ' cnp_ecn=' + (','.join(map(str, sorted(cnp_ecn))) or '-')
    out += ' cnp_qpn=' + (','.join(f'{q:#x}' for q in sorted(cnp_last)) or '-')
    out += ' cnp_gap_min_us=' + ('-' if cnp_gap is None else f'{cnp_gap:.0f}')
    out += ' cnp_gap2_min_us=' + ('-' if cnp_gap2 is None else f'{cnp_gap2:.0f}')
    out += ' cnp_gap16_min_us=' + ('-' if cnp_gap16 is None else f'{cnp_gap16:.0f}')
    out += ' cnp_span_us=' + (f'{cnp_t[-1] - cnp_t[0]:.0f}' if len(cnp_t) > 1 else '-')
    out += ' cnp_first_us=' + (f'{cnp_t[0]:.0f}' if cnp_t else '-')
    print(out)


if __name__ == '__main__':
    main()
