#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate RoCEv2 test vectors for selftests/unit/core/test_icrc.c.

The ICRCs here come from scapy, not from rocecc: scapy.contrib.roce computes
the ICRC of RoCEv2 over IPv4 itself. It has no IPv6 support, so for IPv6 this
script applies the same recipe as scapy (mask the variant fields of a copy of
the packet, zlib.crc32 over 8 x 0xff + the copy, least significant byte
first) with the IPv6 variant fields (traffic class, flow label, hop limit).
That recipe is checked here against scapy on every IPv4 vector and against a
CNP published by Mellanox (community article "RoCEv2 CNP Packet Format
Example", ICRC DA FC 1B EF).

Run with Debian's python3-scapy (/usr/bin/python3):

    selftests/unit/core/data/gen_icrc_vectors.py [outdir]

Writes into outdir (default: the directory of this script):
    scapy-ipv4.pcap    Ethernet frames, RoCEv2 over IPv4 (some VLAN tagged)
    scapy-ipv6.pcap    Ethernet frames, RoCEv2 over IPv6 (some VLAN tagged)
    scapy-cnp.pcap     raw IP (LINKTYPE_RAW): the expected CNPs below
    mellanox-cnp.pcap  raw IP: the published Mellanox CNP, byte for byte
    cnp-expected.txt   one line per CNP: the parameters rocecc_cnp_build()
                       gets and the packet it must produce, in hex
"""

import os
import struct
import sys
import zlib

from scapy.compat import raw
from scapy.contrib.roce import AETH, BTH, cnp
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

ROCE_PORT = 4791
FIXED_TIME = 1700000000  # reproducible pcap files
LINKTYPE_RAW = 101  # raw IPv4 or IPv6, by the version nibble
MAC_A = "02:00:00:00:00:0a"
MAC_B = "02:00:00:00:00:0b"

# RFC 3168
NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3


def tos(dscp, ecn):
    return (dscp << 2) | ecn


def icrc_generic(ip_pkt):
    """ICRC of an IP/UDP/BTH/... packet (bytes of the whole IP packet).

    Same recipe as scapy's BTH.compute_icrc, for either IP version.
    """
    data = bytearray(raw(ip_pkt))
    if data[0] >> 4 == 4:
        ihl = (data[0] & 0xF) * 4
        data[1] = 0xFF  # TOS
        data[8] = 0xFF  # TTL
        data[10:12] = b"\xff\xff"  # header checksum
        udp = ihl
    else:
        data[0] |= 0x0F  # traffic class (high nibble)
        data[1:4] = b"\xff\xff\xff"  # traffic class, flow label
        data[7] = 0xFF  # hop limit
        udp = 40
    data[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
    data[udp + 8 + 4] = 0xFF  # BTH FECN/BECN/resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(data[:-4])) & 0xFFFFFFFF
    return struct.pack("<I", crc)


def with_icrc(ip_pkt):
    """Return the bytes of ip_pkt with its ICRC set by icrc_generic().

    The ICRC goes in before the UDP checksum (if any) is computed.
    """
    icrc = icrc_generic(ip_pkt)
    pkt = ip_pkt.copy()
    pkt[BTH].icrc = struct.unpack("!I", icrc)[0]
    data = raw(pkt)
    assert data[-4:] == icrc
    return data


def pad(payload, padcnt):
    return payload + b"\x00" * padcnt


def v4_vectors():
    """(name, Ether frame) pairs; ICRC computed by scapy itself."""
    a, b = "192.168.10.1", "192.168.10.2"
    pl13 = bytes(range(1, 14))
    pl256 = bytes((i * 7) & 0xFF for i in range(256))
    pl1024 = bytes((i * 13 + 5) & 0xFF for i in range(1024))
    vecs = [
        ("v4 RC SEND_ONLY pad 3, DSCP 26 ECT(0)",
         Ether(src=MAC_A, dst=MAC_B) /
         IP(src=a, dst=b, tos=tos(26, ECT0), ttl=64, id=0x1234,
            flags="DF") /
         UDP(sport=0xC123, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x04, solicited=1, padcount=3, pkey=0xFFFF,
             dqpn=0x000011, ackreq=1, psn=0x000001) /
         Raw(pad(pl13, 3))),
        ("v4 RC WRITE_FIRST with RETH, CE, FECN",
         Ether(src=MAC_A, dst=MAC_B) /
         IP(src=a, dst=b, tos=tos(26, CE), ttl=63, id=0x2222,
            flags="DF") /
         UDP(sport=0xC456, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x06, pkey=0xFFFF, fecn=1, dqpn=0xABCDEF,
             psn=0xFFFFFE) /
         Raw(struct.pack(">QII", 0x00007F0012345678, 0x1234ABCD, 4096) +
             pl256)),
        ("v4 RC ACK with AETH",
         Ether(src=MAC_B, dst=MAC_A) /
         IP(src=b, dst=a, tos=tos(26, ECT0), ttl=64, id=0x0001,
            flags="DF") /
         UDP(sport=0xE001, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x11, pkey=0xFFFF, dqpn=0x000012, psn=0x123456) /
         AETH(syndrome=0x1F, msn=0x000042)),
        ("v4 RC READ_RESPONSE_ONLY with AETH, pad 2",
         Ether(src=MAC_B, dst=MAC_A) /
         IP(src=b, dst=a, tos=tos(0, NOT_ECT), ttl=255, id=0xBEEF) /
         UDP(sport=0xD00D, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x10, padcount=2, pkey=0x8001, dqpn=0x000100,
             psn=0x000200) /
         AETH(syndrome=0x00, msn=0xFFFFFF) /
         Raw(pad(b"read-response!", 2))),
        ("v4 CNP (scapy cnp())",
         Ether(src=MAC_B, dst=MAC_A) /
         IP(src=b, dst=a, tos=tos(48, NOT_ECT), ttl=64, id=0,
            flags="DF") /
         UDP(sport=0xC000, dport=ROCE_PORT, chksum=0) /
         cnp(dqpn=0x000011)),
        ("v4 VLAN prio 3 RC SEND_FIRST AckReq, UDP checksum set",
         Ether(src=MAC_A, dst=MAC_B) /
         Dot1Q(prio=3, vlan=100) /
         IP(src="10.0.0.1", dst="10.0.0.2", tos=tos(26, ECT1), ttl=7) /
         UDP(sport=0xF00F, dport=ROCE_PORT) /
         BTH(opcode=0x00, migreq=1, pkey=0xFFFF, dqpn=0x7FFFFF,
             ackreq=1, psn=0) /
         Raw(pl1024)),
        ("v4 IP options, UC WRITE_MIDDLE",
         Ether(src=MAC_A, dst=MAC_B) /
         IP(src=a, dst=b, tos=tos(10, ECT0), ttl=64, id=7,
            options=[b"\x01\x01\x01\x00"]) /
         UDP(sport=0xC001, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x27, pkey=0xFFFF, dqpn=0x000033, psn=0x000034) /
         Raw(pl256)),
        ("v4 UD SEND_ONLY with DETH",
         Ether(src=MAC_A, dst=MAC_B) /
         IP(src=a, dst=b, tos=tos(26, ECT0), ttl=64, flags="DF") /
         UDP(sport=0xC002, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=0x64, pkey=0xFFFF, dqpn=0x000001, psn=0x000005) /
         Raw(struct.pack(">II", 0x80010000, 0x000099) + pl13[:12])),
    ]
    return vecs


def v6_vectors():
    """(name, Ether frame bytes); ICRC by icrc_generic()."""
    a, b = "fd00::1", "fd00::2"
    vecs = []

    def add(name, l2, ip6):
        frame = raw(l2) + with_icrc(ip6)
        vecs.append((name, frame))

    add("v6 RC SEND_ONLY, DSCP 26 ECT(0), flow label",
        Ether(src=MAC_A, dst=MAC_B, type=0x86DD),
        IPv6(src=a, dst=b, tc=tos(26, ECT0), fl=0x12345, hlim=64) /
        UDP(sport=0xC321, dport=ROCE_PORT, chksum=0) /
        BTH(opcode=0x04, pkey=0xFFFF, dqpn=0x000021, ackreq=1,
            psn=0x000100, icrc=0) /
        Raw(bytes(range(64))))
    add("v6 RC ACK with AETH",
        Ether(src=MAC_B, dst=MAC_A, type=0x86DD),
        IPv6(src=b, dst=a, tc=tos(26, ECT0), fl=0, hlim=64) /
        UDP(sport=0xE321, dport=ROCE_PORT, chksum=0) /
        BTH(opcode=0x11, pkey=0xFFFF, dqpn=0x000022, psn=0x000100,
            icrc=0) /
        AETH(syndrome=0x60, msn=0x000007))
    add("v6 CE RC WRITE_ONLY with RETH, BECN",
        Ether(src=MAC_A, dst=MAC_B, type=0x86DD),
        IPv6(src=a, dst=b, tc=tos(26, CE), fl=0xFFFFF, hlim=1) /
        UDP(sport=0xC999, dport=ROCE_PORT) /
        BTH(opcode=0x0A, padcount=1, pkey=0xFFFF, becn=1, dqpn=0x000021,
            psn=0x000101, icrc=0) /
        Raw(struct.pack(">QII", 0x1000, 0x55, 99) + bytes(99) + b"\x00"))
    add("v6 VLAN CNP",
        Ether(src=MAC_B, dst=MAC_A) / Dot1Q(prio=6, vlan=5, type=0x86DD),
        IPv6(src=b, dst=a, tc=tos(48, NOT_ECT), hlim=64) /
        UDP(sport=0xC000, dport=ROCE_PORT, chksum=0) /
        BTH(opcode=0x81, pkey=0xFFFF, becn=1, dqpn=0x000021, icrc=0) /
        Raw(bytes(16)))
    return vecs


# Parameters of the CNPs rocecc_cnp_build() must reproduce:
# family, saddr, daddr, dest_qp, sport, dscp, ttl, ip_id, flow_label
CNP_PARAMS = [
    (4, "192.168.10.2", "192.168.10.1", 0x000011, 0xC000, 48, 64, 0, 0),
    (4, "10.1.2.3", "10.9.8.7", 0xFFFFFF, 0xFFFF, 63, 255, 0xFFFF, 0),
    (4, "172.16.0.1", "172.16.0.200", 0x000001, 49152, 0, 1, 0x1234, 0),
    (6, "fd00::2", "fd00::1", 0x000021, 0xC000, 48, 64, 0, 0),
    (6, "2001:db8::a:b:c:d", "2001:db8:ffff::1", 0xABCDEF, 0x1234, 26,
     255, 0, 0xFFFFF),
]


def cnp_packet(fam, src, dst, qpn, sport, dscp, ttl, ip_id, fl):
    if fam == 4:
        ip = IP(src=src, dst=dst, tos=tos(dscp, NOT_ECT), ttl=ttl, id=ip_id,
                flags="DF")
    else:
        ip = IPv6(src=src, dst=dst, tc=tos(dscp, NOT_ECT), fl=fl, hlim=ttl)
    pkt = ip / UDP(sport=sport, dport=ROCE_PORT, chksum=0) / cnp(dqpn=qpn)
    if fam == 4:
        data = raw(pkt)  # ICRC by scapy
        assert data[-4:] == icrc_generic(pkt)
        return data
    pkt[BTH].icrc = 0
    return with_icrc(pkt)


MELLANOX_CNP = bytes.fromhex(
    "4589003C98C640002011692716161608"
    "16161607DBAE12B7002800008100FFFF"
    "400000D2000000000000000000000000"
    "0000000000000000DAFC1BEF")


def stamp(pkts):
    for p in pkts:
        p.time = FIXED_TIME
    return pkts


def write_raw_ip(path, packets):
    """Write IPv4/IPv6 packets (bytes) as a classic LINKTYPE_RAW pcap."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535,
                            LINKTYPE_RAW))
        for data in packets:
            f.write(struct.pack("<IIII", FIXED_TIME, 0, len(data), len(data)))
            f.write(data)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.abspath(__file__))

    v4 = []
    for name, frame in v4_vectors():
        data = raw(frame)
        # scapy's ICRC must equal the generic recipe used for IPv6
        ip = frame[IP]
        assert data[-4:] == icrc_generic(ip), name
        v4.append(Ether(data))
    wrpcap(os.path.join(outdir, "scapy-ipv4.pcap"), stamp(v4))

    v6 = [Ether(frame) for _, frame in v6_vectors()]
    wrpcap(os.path.join(outdir, "scapy-ipv6.pcap"), stamp(v6))

    # The published CNP: scapy and the generic recipe agree with it
    m = IP(MELLANOX_CNP)
    assert icrc_generic(m) == MELLANOX_CNP[-4:]
    m2 = IP(MELLANOX_CNP)
    m2[BTH].icrc = None
    assert raw(m2)[-4:] == MELLANOX_CNP[-4:]
    write_raw_ip(os.path.join(outdir, "mellanox-cnp.pcap"), [MELLANOX_CNP])

    cnps = []
    with open(os.path.join(outdir, "cnp-expected.txt"), "w") as f:
        f.write("# generated by gen_icrc_vectors.py: family saddr daddr "
                "dest_qp sport dscp ttl ip_id flow_label packet-hex\n")
        for prm in CNP_PARAMS:
            data = cnp_packet(*prm)
            fam, src, dst, qpn, sport, dscp, ttl, ip_id, fl = prm
            f.write("%d %s %s %u %u %u %u %u %u %s\n" %
                    (fam, src, dst, qpn, sport, dscp, ttl, ip_id, fl,
                     data.hex()))
            cnps.append(data)
    write_raw_ip(os.path.join(outdir, "scapy-cnp.pcap"), cnps)


if __name__ == "__main__":
    main()
