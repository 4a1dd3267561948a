#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/lib/incast.sh incast_save (TAP), t_incast.t's
ROCECC_INCAST_SAVE: a run directory's regular files are copied in its tree,
and what is not a regular file (the flood's FIFO, which cannot be made on
the VM's 9p share, where cp -r failed on it; a symlink; an empty directory)
is left out and named."""
import os
import stat
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
LIB = os.path.join(TOP, "selftests/vm/lib/incast.sh")
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from tap import ok, plan  # noqa: E402


def save(src, dest, cwd):
    """incast_save DEST with INCAST_DIR=src: (exit status, stdout, stderr)."""
    p = subprocess.run(["bash", "-c", '. "$1"; INCAST_DIR=$2; incast_save "$3"',
                        "-", LIB, src, dest], cwd=cwd, capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def tree(d):
    """Every entry under d: relative path -> 'f' (regular), 'd' or 'other'."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            m = os.lstat(p).st_mode
            kind = "f" if stat.S_ISREG(m) else "d" if stat.S_ISDIR(m) else "other"
            out[os.path.relpath(p, d)] = kind
    return out


with tempfile.TemporaryDirectory() as t:
    src = os.path.join(t, "t_incast.abc123")
    os.makedirs(os.path.join(src, "2-ect"))
    os.makedirs(os.path.join(src, "empty"))
    for name, text in (("roceccd.log", "veth1: BPF datapath attached\n"),
                       ("2-ect/c1.json", "{}\n"), ("2-ect/stall.txt", "1 2\n")):
        with open(os.path.join(src, name), "w") as f:
            f.write(text)
    os.mkfifo(os.path.join(src, "2-ect/spoof.in"))
    os.symlink("roceccd.log", os.path.join(src, "log"))

    rc, out, err = save(src, "out/X", t)
    dest = os.path.join(t, "out/X")
    got = tree(dest) if os.path.isdir(dest) else {}
    ok(rc == 0, "a tree with a FIFO: exit 0", f"rc {rc}: {err}")
    ok(got == {"roceccd.log": "f", "2-ect": "d", "2-ect/c1.json": "f",
               "2-ect/stall.txt": "f"},
       "DEST (relative, new) gets the regular files in their tree, "
       "no FIFO, symlink or empty directory", got)
    with open(os.path.join(dest, "2-ect/stall.txt")) as f:
        ok(f.read() == "1 2\n", "a file's contents")
    ok(out == "# incast_save: not regular files, not copied: 2-ect/spoof.in log\n"
       or out == "# incast_save: not regular files, not copied: log 2-ect/spoof.in\n",
       "what is skipped is named in one TAP comment", out)

    rc, out, err = save(src, dest, t)
    again = os.path.join(dest, "t_incast.abc123")
    ok(rc == 0 and os.path.isdir(again) and
       tree(again) == {"roceccd.log": "f", "2-ect": "d", "2-ect/c1.json": "f",
                       "2-ect/stall.txt": "f"},
       "DEST a directory: into DEST/<the run directory's name>, as cp -r",
       f"rc {rc}: {err}")

    rc, out, err = save(os.path.join(t, "none"), dest, t)
    ok(rc != 0, "no run directory: fails", rc)

sys.exit(plan())
