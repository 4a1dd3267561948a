#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Ask rocecc.ko to attach a netdev over its generic netlink family
directly (standard library only), past the checks the rocecc CLI makes
first: what the kernel itself says.

  genl_attach.py NETDEV
      Prints the kernel's error message (extack) if there is one; exits 0
      when attached, else with the errno of the refusal.

The numbers come from include/uapi/linux/rocecc.h, read at run time.
"""
import os
import re
import socket
import struct
import sys

NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
NLMSGERR_ATTR_MSG = 1
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200


def uapi():
    """ROCECC_GENL_NAME, ROCECC_CMD_DEV_ATTACH, ROCECC_A_DEV_NAME."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..")
    with open(os.path.join(top, "include/uapi/linux/rocecc.h")) as f:
        text = f.read()

    def member(enum, name):
        body = re.search(r"enum %s \{(.*?)\};" % enum, text, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        names = [m.strip() for m in body.split(",") if m.strip()]
        return names.index(name)

    fam = re.search(r'#define ROCECC_GENL_NAME\s+"(\w+)"', text).group(1)
    return fam, member("rocecc_cmd", "ROCECC_CMD_DEV_ATTACH"), \
        member("rocecc_attr", "ROCECC_A_DEV_NAME")


def attr(t, data):
    a = struct.pack("HH", 4 + len(data), t) + data
    return a + b"\0" * (-len(a) % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, t = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[t & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def talk(s, ftype, cmd, payload, seq):
    body = struct.pack("BBH", cmd, 1, 0) + payload
    s.send(struct.pack("IHHII", 16 + len(body), ftype,
                       NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body)
    reply = None
    while True:
        buf = s.recv(65536)
        off = 0
        while off < len(buf):
            ln, typ, flags, _, _ = struct.unpack_from("IHHII", buf, off)
            msg = buf[off:off + ln]
            off += (ln + 3) & ~3
            if typ == NLMSG_ERROR:
                err = -struct.unpack_from("i", msg, 16)[0]
                text = ""
                if flags & NLM_F_ACK_TLVS:
                    # after the error: the request, or its header if capped
                    req = 16 if flags & NLM_F_CAPPED else \
                        struct.unpack_from("I", msg, 20)[0]
                    a = attrs(msg[20 + ((req + 3) & ~3):])
                    text = a.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
                return err, reply, text
            reply = msg


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    fam, cmd_attach, a_name = uapi()
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.setsockopt(270, NETLINK_EXT_ACK, 1)  # SOL_NETLINK
    err, reply, text = talk(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                            attr(CTRL_ATTR_FAMILY_NAME, fam.encode() + b"\0"), 1)
    if err or reply is None:
        sys.exit("generic netlink family '%s' not found: %s" %
                 (fam, os.strerror(err)))
    fid = struct.unpack("H", attrs(reply[20:])[CTRL_ATTR_FAMILY_ID][:2])[0]
    err, _, text = talk(s, fid, cmd_attach,
                        attr(a_name, sys.argv[1].encode() + b"\0"), 2)
    if text:
        print(text)
    sys.exit(err)


if __name__ == "__main__":
    main()
