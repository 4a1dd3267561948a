#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The attribute trees of include/uapi/linux/rocecc.h against the code (TAP).

- every command of enum rocecc_cmd has its tree;
- every attribute of every attribute enum appears in a tree (the stats and
  parameters as a range whose ends are the enum's first and last members);
- what each request may carry, by the tree, is exactly what the command's
  policy in kmod/genl.c lists;
- the attributes the trees say come back are exactly those the module puts
  (nla_put*() and nla_nest_start() calls in kmod/*.c), and vice versa.
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
UAPI = open(os.path.join(TOP, "include/uapi/linux/rocecc.h")).read()
KMOD = {p: open(p).read() for p in glob.glob(os.path.join(TOP, "kmod/*.c"))}
GENL = KMOD[os.path.join(TOP, "kmod/genl.c")]

sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from tap import ok, plan  # noqa: E402


def enum(name):
    body = re.search(r"enum %s \{(.*?)\n\};" % name, UAPI, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return [m for m in re.findall(r"^\s*(ROCECC_\w+)\s*[,=]?", body, re.M)
            if not re.search(r"UNSPEC$|_PAD$|^__|_MAX$", m)]


start = UAPI.index(" * Commands and their attribute trees")
TREE = UAPI[start:UAPI.index("*/", start)]
# sections: a heading line followed by a line of dashes
parts = re.split(r"\n \* (ROCECC_CMD_[^\n]*|Events[^\n]*)\n \* -+\n", TREE)
SECTIONS = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
EVENTS = SECTIONS.pop(next(k for k in SECTIONS if k.startswith("Events")))
CMD_TEXT = dict(SECTIONS)
# events are "ROCECC_CMD_X, ...:" paragraphs inside the events section
for m in re.finditer(r"\n \* ((?:ROCECC_CMD_\w+(?:, )?)+)[: ]", EVENTS):
    CMD_TEXT[m.group(1)] = EVENTS[m.end():].split("\n *\n * ROCECC_CMD_")[0]

documented = set(re.findall(r"ROCECC_\w+", TREE))
cmds = enum("rocecc_cmd")
heads = " ".join(CMD_TEXT)
miss = [c for c in cmds if c not in heads]
ok(not miss, "every command has an attribute tree", " ".join(miss))

for e in ("rocecc_attr", "rocecc_flow_attr", "rocecc_pfc_attr",
          "rocecc_pfc_prio_attr"):
    miss = [a for a in enum(e) if a not in documented]
    ok(not miss, "every member of enum %s is in a tree" % e, " ".join(miss))
for e in ("rocecc_stat", "rocecc_param"):
    members = enum(e)
    rng = re.search(r"(ROCECC_\w+) \.\.\. (ROCECC_\w+): NLA_\w+\n"
                    r" \*\s+\(every enum %s" % e, TREE)
    want_last = "ROCECC_PARAM_MAX" if e == "rocecc_param" else members[-1]
    ok(rng and rng.group(1) == members[0] and rng.group(2) == want_last,
       "enum %s is documented as the range %s ... %s" % (e, members[0],
                                                          want_last),
       rng.groups() if rng else "no range")

# requests against the policies
policies = {}
for m in re.finditer(r"static const struct nla_policy (\w+)\[[^]]*\] = \{(.*?)\n\};",
                     GENL, re.S):
    attrs = set(re.findall(r"\[(ROCECC_A_\w+)\]", m.group(2)))
    if "ROCECC_DEV_POLICY" in m.group(2):
        attrs |= {"ROCECC_A_DEV_IFINDEX", "ROCECC_A_DEV_NAME"}
    policies[m.group(1)] = attrs
ops = re.findall(r"\.cmd\s*=\s*(ROCECC_CMD_\w+),.*?\.policy\s*=\s*(\w+),",
                 GENL, re.S)
ok(len(ops) >= 7, "kmod/genl.c has its %d operations" % len(ops))
bad = []
for cmd, pol in ops:
    text = next((t for h, t in SECTIONS.items() if cmd in h), None)
    if text is None:
        bad.append("%s: no tree" % cmd)
        continue
    req = re.split(r"\n \*\s+reply:|\n \* The reply|\n \* One message", text)[0]
    got = set(re.findall(r"ROCECC_A_\w+", req))
    if re.search(r"request:\s+device", req):
        got |= {"ROCECC_A_DEV_IFINDEX", "ROCECC_A_DEV_NAME"}
    if got != policies.get(pol):
        bad.append("%s: tree %s, policy %s %s" % (cmd, sorted(got), pol,
                                                   sorted(policies.get(pol, ()))))
ok(not bad, "each request's attributes are its policy's", "\n".join(bad))

# replies and events against what the module puts
put = set()
for src in KMOD.values():
    put |= set(re.findall(r"\b\w*(?:put\w*|nest_start)\(\s*skb,\s*(ROCECC_\w+)",
                          src))
put = {a for a in put if not a.endswith("_PAD") and
       re.match(r"ROCECC_(A|FLOW_A|PFC_A|PFC_PRIO_A)_", a)}
replies = set()
for text in list(SECTIONS.values()) + [EVENTS]:
    for line in text.splitlines():
        m = re.match(r"^ \*\s+\[?(ROCECC_\w+)\]?: NLA_", line)
        if m:
            replies.add(m.group(1))
replies -= {"ROCECC_STAT_NP_CNP_SENT", "ROCECC_STAT_TX_NOT_RXE",
            "ROCECC_PARAM_RP_CLAMP_TGT_RATE", "ROCECC_PARAM_MAX"}
replies = {a for a in replies if not a.startswith("ROCECC_PARAM_")}
ok(not (put - replies), "every attribute the module puts is in a tree",
   " ".join(sorted(put - replies)))
extra = replies - put
ok(not extra, "every attribute a tree returns is put by the module",
   " ".join(sorted(extra)))

sys.exit(plan())
