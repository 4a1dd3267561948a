#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Seed corpus for fuzz_parse from the unit test vectors.

    gen_seeds.py <selftests/unit/core/data> <selftests/fuzz/corpus>

Every packet of every classic *.pcap there becomes seeds in fuzz_parse's
input format (two control bytes, then the packet, see fuzz_parse.c): whole,
with its tail unreadable, and with a packet length larger than the data.
Plus CNP-builder seeds for IPv4 and IPv6. Uses only the standard library.
"""

import glob
import hashlib
import os
import struct
import sys


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        end = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        end = ">"
    else:
        return None, []
    link = struct.unpack(end + "I", data[20:24])[0] & 0xFFFF
    pkts, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        pkts.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return link, pkts


def cnp_params(fam, qpn, sport, dscp, ttl, prio):
    src = bytes(10) + b"\xff\xff" + bytes([10, 0, 0, 2]) if fam == 2 \
        else bytes([0xfd] + [0] * 14 + [2])
    dst = bytes(10) + b"\xff\xff" + bytes([10, 0, 0, 1]) if fam == 2 \
        else bytes([0xfd] + [0] * 14 + [1])
    # struct rocecc_cnp_params, little-endian host
    return src + dst + struct.pack("<IIHHBBBB", qpn, 0, sport, 0, fam,
                                   dscp, ttl, prio)


def main():
    data_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    seeds = []
    for path in sorted(glob.glob(os.path.join(data_dir, "*.pcap"))):
        link, pkts = read_pcap(path)
        if link == 1:
            mode = 0
        elif link in (101, 228, 229):
            mode = 1
        else:
            continue
        for p in pkts[:16]:
            seeds.append(bytes([mode, 0]) + p)
            seeds.append(bytes([mode, min(len(p) - 40, 255)]) + p)
            seeds.append(bytes([mode | 4, 200]) + p[:60])
    for fam in (2, 10):
        seeds.append(bytes([2, 80]) + cnp_params(fam, 0x11, 0xC000, 48,
                                                 64, 6))
    for s in seeds:
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(s)
    print("%d seeds in %s" % (len(seeds), out))


if __name__ == "__main__":
    main()
