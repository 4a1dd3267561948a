#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One dump of rocecc.ko's flows (ROCECC_CMD_FLOW_GET) over raw generic
netlink (standard library only), for the VM tests.

  flow_dump.py [--pause]

With --pause the request is sent (the module fills the first part of the
dump at once), "requested" is printed, and the rest is read only after a
line arrives on stdin: what changes meanwhile happens during the dump.
Prints "flows N intr I err E": the flow messages received, whether any
message (NLMSG_DONE included) carried NLM_F_DUMP_INTR, the dump's error.
"""
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLM_F_REQUEST, NLM_F_DUMP, NLM_F_DUMP_INTR = 1, 0x300, 0x10
NLMSG_ERROR, NLMSG_DONE = 2, 3
ROCECC_CMD_FLOW_GET = 11


def attr(t, payload):
    a = struct.pack('HH', 4 + len(payload), t) + payload
    return a + b'\0' * (-len(a) % 4)


def msgs(d):
    off = 0
    while off + 16 <= len(d):
        ln, typ, flags = struct.unpack('IHH', d[off:off + 8])
        yield typ, flags, d[off:off + ln]
        off += (ln + 3) & ~3


def family(s):
    body = struct.pack('BBH', CTRL_CMD_GETFAMILY, 1, 0) + \
        attr(CTRL_ATTR_FAMILY_NAME, b'rocecc\0')
    s.send(struct.pack('IHHII', 16 + len(body), GENL_ID_CTRL,
                       NLM_F_REQUEST, 1, 0) + body)
    for typ, _, m in msgs(s.recv(65536)):
        off = 20
        while typ == GENL_ID_CTRL and off + 4 <= len(m):
            al, at = struct.unpack('HH', m[off:off + 4])
            if at == CTRL_ATTR_FAMILY_ID:
                return struct.unpack('H', m[off + 4:off + 6])[0]
            off += (al + 3) & ~3
    sys.exit('no rocecc family')


def main():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.bind((0, 0))
    fam = family(s)
    body = struct.pack('BBH', ROCECC_CMD_FLOW_GET, 1, 0)
    s.send(struct.pack('IHHII', 16 + len(body), fam,
                       NLM_F_REQUEST | NLM_F_DUMP, 2, 0) + body)
    if '--pause' in sys.argv[1:]:
        print('requested', flush=True)
        sys.stdin.readline()
    flows = intr = err = 0
    while True:
        for typ, flags, m in msgs(s.recv(65536)):
            if struct.unpack('I', m[8:12])[0] != 2:
                continue
            intr |= bool(flags & NLM_F_DUMP_INTR)
            if typ in (NLMSG_DONE, NLMSG_ERROR):
                err = struct.unpack('i', m[16:20])[0]
                print('flows %d intr %d err %d' % (flows, intr, err))
                return
            if typ == fam:
                flows += 1


if __name__ == '__main__':
    main()
