#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The man pages against the binaries they document (TAP).

- rocecc.8, roceccd.8, roceccd.conf.5 are clean under "mandoc -T lint -W all"
  and under man-db's "man --warnings" (groff, what Debian renders with).
- rocecc(8): the commands of its SYNOPSIS are exactly those "rocecc help"
  prints, each with the same keywords (command words, argument keywords,
  literal values such as mlx5 or p999); each documented object answers
  "rocecc OBJECT help" (exit 0) with a line for each documented command,
  and no documented command is refused as unknown; every option in OPTIONS
  is one the usage lists, and is accepted.
- roceccd(8): its OPTIONS are exactly the flags of "roceccd --help" (short
  and long form, and whether they take an argument), and roceccd accepts
  each of them.
- roceccd.conf(5): its keys, section by section, are exactly those
  "roceccd --check-config" prints; each one is a key the parser knows (a
  bad value for it is refused as a bad value, not as an unknown key); the
  documented defaults are the effective ones, "not set by default" exactly
  for the keys that are, and the module parameters' ranges and defaults
  are the parser's.

Each check compares both directions, so a line removed from either side
fails it. The genl objects (dev, param, flow, monitor) open rocecc.ko's
family before they read their command, so without the module only their
"help" proves that the CLI knows a command; pfc and buffer parse first.
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
HERE = os.path.join(TOP, "daemon")
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
ROCECC = os.path.join(BUILD, "daemon", "rocecc")
ROCECCD = os.path.join(BUILD, "daemon", "roceccd")
MAN_ROCECC = os.path.join(HERE, "rocecc", "rocecc.8")
MAN_ROCECCD = os.path.join(HERE, "roceccd", "roceccd.8")
MAN_CONF = os.path.join(HERE, "roceccd", "roceccd.conf.5")
PAGES = (MAN_ROCECC, MAN_ROCECCD, MAN_CONF)

sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from tap import ok, plan  # noqa: E402


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=30,
                          **kw)


def render(page):
    """The page as plain text, no line wrapping within 400 columns."""
    r = run(["mandoc", "-T", "ascii", "-O", "width=400", page])
    return re.sub(r".\x08", "", r.stdout)


def section(text, name):
    """The lines of section NAME of a rendered page."""
    out, inside = [], False
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Z ]+$", line):
            inside = line.strip() == name
            continue
        if inside:
            out.append(line)
    return out


# ---- lint -------------------------------------------------------------------

def check_lint():
    for page in PAGES:
        name = os.path.basename(page)
        r = run(["mandoc", "-T", "lint", "-W", "all", page])
        ok(r.returncode == 0 and not (r.stdout + r.stderr).strip(),
           "mandoc -T lint -W all %s: clean" % name, r.stdout + r.stderr)
        env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")
        r = run(["man", "--warnings", "-l", page], env=env)
        ok(r.returncode == 0 and not r.stderr.strip(),
           "man --warnings -l %s: clean" % name, r.stderr)


# ---- rocecc -----------------------------------------------------------------

KW = re.compile(r"[a-z][a-z0-9-]*")


def synopsis_entry(s):
    """(obj, cmd) and the keyword set of one "rocecc OBJ ..." synopsis."""
    words = s.split()
    assert words[0] == "rocecc", s
    obj = words[1]
    cmd = words[2] if len(words) > 2 and re.fullmatch(KW, words[2]) else ""
    rest = " ".join(words[3 if cmd else 2:])
    return (obj, cmd), set(KW.findall(rest))


def usage_entries(text):
    """Synopses of "rocecc help": first line up to the description column,
    then continuation lines that start with '['."""
    entries, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^  (rocecc \S.*)$", line)
        if m:
            if cur:
                entries.append(cur)
            cur = re.split(r"\s{2,}", m.group(1))[0]
        elif cur and re.match(r"^ {13}\[", line):
            cur += " " + re.split(r"\s{2,}", line.strip())[0]
        elif cur:
            entries.append(cur)
            cur = None
    if cur:
        entries.append(cur)
    return dict(synopsis_entry(e) for e in entries)


def man_entries(text):
    out = {}
    for line in section(text, "SYNOPSIS"):
        s = line.strip()
        if s.startswith("rocecc ") and "OBJECT" not in s and s != "rocecc help":
            k, v = synopsis_entry(s)
            out[k] = v
    return out


def cmd_name(k):
    return ("rocecc %s %s" % k).strip()


def check_rocecc():
    r = run([ROCECC, "help"])
    ok(r.returncode == 0, "rocecc help: exit 0", r.stderr)
    cli = usage_entries(r.stdout)
    text = render(MAN_ROCECC)
    man = man_entries(text)
    ok(len(cli) >= 10 and len(man) >= 10,
       "both sides list commands (usage %d, man %d)" % (len(cli), len(man)))
    miss = sorted(cmd_name(k) for k in cli if k not in man)
    ok(not miss, "every command of rocecc help is in rocecc.8's SYNOPSIS",
       "\n".join(miss))
    extra = sorted(cmd_name(k) for k in man if k not in cli)
    ok(not extra, "every command of rocecc.8 is in rocecc help",
       "\n".join(extra))
    diff = []
    for k in sorted(set(cli) & set(man)):
        if cli[k] != man[k]:
            diff.append("%s: usage only %s, man only %s" % (
                cmd_name(k), sorted(cli[k] - man[k]), sorted(man[k] - cli[k])))
    ok(not diff, "each command has the same keywords in both", "\n".join(diff))

    # what the man page documents, the CLI accepts
    bad = []
    for obj in sorted({o for o, _ in man}):
        r = run([ROCECC, obj, "help"])
        if r.returncode != 0:
            bad.append("rocecc %s help: exit %d %s" % (obj, r.returncode,
                                                       r.stderr.strip()))
            continue
        for o, c in man:
            want = cmd_name((o, c))
            if o == obj and not re.search(r"^  %s(\s|$)" % re.escape(want),
                                          r.stdout, re.M):
                bad.append("rocecc %s help has no '%s'" % (obj, want))
    ok(not bad, "rocecc OBJECT help answers for every documented command",
       "\n".join(bad))
    r = run([ROCECC, "nosuchobject", "help"])
    ok(r.returncode == 2, "... and refuses an unknown object (exit 2)")
    bad = []
    for o, c in sorted(man):
        if not c:
            continue
        r = run([ROCECC, o, c], stdin=subprocess.DEVNULL)
        if "unknown command" in r.stderr:
            bad.append("rocecc %s %s: %s" % (o, c, r.stderr.strip()))
    ok(not bad, "no documented command is refused as unknown", "\n".join(bad))
    r = run([ROCECC, "pfc", "nosuchcommand"])
    ok(r.returncode == 2 and "unknown command" in r.stderr,
       "... while an undocumented one is (rocecc pfc nosuchcommand)")

    # options
    usage = run([ROCECC, "help"]).stdout
    m = re.search(r"^OPTIONS: (.*)$", usage, re.M)
    cli_opts = set(re.findall(r"(?<![\w-])(-\w)\b", m.group(1) if m else ""))
    man_opts = set()
    man_args = set()	# the options that take an argument ("--hw-root DIR")
    for line in section(text, "OPTIONS"):
        if re.match(r"^ {7}-", line):
            man_opts |= set(re.findall(r"(?<![\w-])(--?[\w-]+)", line))
            man_args |= set(re.findall(r"(?<![\w-])(--?[\w-]+) [A-Z]+\b",
                                       line))
    ok(cli_opts and cli_opts <= man_opts,
       "every option of rocecc help is in rocecc.8",
       "usage %s, man %s" % (sorted(cli_opts), sorted(man_opts)))
    short = {o for o in man_opts if not o.startswith("--")}
    ok(short <= cli_opts, "every short option of rocecc.8 is in rocecc help",
       "man only: %s" % sorted(short - cli_opts))
    bad = [o for o in sorted(man_opts)
           if run([ROCECC, o] + (["/"] if o in man_args else []) +
                  ["help"]).returncode]
    ok(not bad, "rocecc accepts every documented option", " ".join(bad))
    ok(run([ROCECC, "-Z", "help"]).returncode == 2,
       "... and refuses an unknown one (-Z)")


# ---- roceccd ------------------------------------------------------------------

FLAG = re.compile(r"^\s+(?:(-\w), )?(--[a-z][\w-]*)(?: ([A-Z]+))?")


def flags_of(lines):
    out = set()
    for line in lines:
        m = FLAG.match(line)
        if m:
            out.add((m.group(1) or "", m.group(2), bool(m.group(3))))
    return out


def check_roceccd():
    r = run([ROCECCD, "--help"])
    ok(r.returncode == 0, "roceccd --help: exit 0", r.stderr)
    cli = flags_of(r.stdout.splitlines())
    man = flags_of(section(render(MAN_ROCECCD), "OPTIONS"))
    ok(len(cli) >= 10, "roceccd --help lists its flags (%d)" % len(cli))
    fmt = lambda s: "\n".join("%s %s%s" % (a, b, " ARG" if c else "")
                             for a, b, c in sorted(s))
    ok(not (cli - man), "every flag of roceccd --help is in roceccd.8",
       fmt(cli - man))
    ok(not (man - cli), "every flag of roceccd.8 is in roceccd --help",
       fmt(man - cli))
    bad = []
    for short, long_, arg in sorted(man):
        for f in filter(None, (short, long_)):
            argv = [ROCECCD, "-c", "/dev/null", "--check-config", f]
            if arg:
                argv.append("@@")
            r = run(argv)
            if re.search(r"unrecognized option|invalid option", r.stderr):
                bad.append("%s: %s" % (f, r.stderr.strip()))
    ok(not bad, "roceccd accepts every documented flag", "\n".join(bad))
    r = run([ROCECCD, "-c", "/dev/null", "--check-config", "--no-such-flag"])
    ok(r.returncode == 2 and "unrecognized option" in r.stderr,
       "... and refuses an unknown one")


# ---- roceccd.conf -------------------------------------------------------------

def effective_conf():
    """{(section, key): (value, set)} from roceccd --check-config."""
    r = run([ROCECCD, "-c", "/dev/null", "--check-config"])
    out, sec = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^\[(\w+)\]$", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^(#?)([a-z][\w]*) = (.*)$", line)
        if m and sec:
            out[(sec, m.group(2))] = (m.group(3), not m.group(1))
    return r.returncode, out


def man_keys():
    """{(section, key): the roff text of its paragraph} of roceccd.conf.5."""
    out, sec, key, tp = {}, None, None, False
    for line in open(MAN_CONF).read().splitlines():
        tag, tp = tp, line == ".TP"     # is this line the tag of a .TP?
        if line.startswith(".SH"):
            sec = key = None
            continue
        m = re.match(r"^\.SS \[(\w+)\]$", line)
        if m:
            sec, key = m.group(1), None
            continue
        if tag and sec:
            m = re.match(r"^\.B (\S+)$", line)
            key = m.group(1).replace("\\-", "-") if m else None
            if key:
                out[(sec, key)] = ""
            continue
        if line.startswith(".PP"):
            key = None
            continue
        if tp:
            continue
        if key:
            out[(sec, key)] += line + "\n"
    return out


def roff_words(s):
    s = re.sub(r"\\f[BIRP]", "", s).replace("\\-", "-").replace("\\(mu", "*")
    s = re.sub(r"^\.\w+ ?", "", s, flags=re.M)
    return " ".join(s.replace('"', " ").split())


def check_conf():
    rc, eff = effective_conf()
    ok(rc == 0 and len(eff) > 40,
       "roceccd --check-config prints every key (%d)" % len(eff))
    man = man_keys()
    fmt = lambda ks: "\n".join("[%s] %s" % k for k in sorted(ks))
    ok(not (set(eff) - set(man)),
       "every key roceccd knows is in roceccd.conf.5", fmt(set(eff) - set(man)))
    ok(not (set(man) - set(eff)),
       "every key of roceccd.conf.5 is one roceccd knows",
       fmt(set(man) - set(eff)))

    bad = []
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        for sec, key in sorted(man):
            f.seek(0)
            f.truncate()
            # too long for a netdev name, no number, path, time or word
            f.write("[%s]\n%s = %s\n" % (sec, key, "@" * 40))
            f.flush()
            r = run([ROCECCD, "-c", f.name, "--check-config"])
            if (r.returncode != 1 or "unknown" in r.stderr or
                    "[%s] %s:" % (sec, key) not in r.stderr):
                bad.append("[%s] %s: %s" % (sec, key, r.stderr.strip()))
        ok(not bad, "roceccd parses every documented key (a bad value is "
           "refused as a bad value)", "\n".join(bad))
        f.seek(0)
        f.truncate()
        f.write("[pfc]\nno_such_key = 1\n")
        f.flush()
        r = run([ROCECCD, "-c", f.name, "--check-config"])
        ok(r.returncode == 1 and "unknown key" in r.stderr,
           "... while an undocumented key is refused as unknown")

    bad = []
    for k in sorted(set(man) & set(eff)):
        val, is_set = eff[k]
        text = roff_words(man[k])
        if k[0] == "module" and k[1] not in ("attach", "devices", "fq",
                                              "profile"):
            # "UNIT, MIN..MAX, DEFAULT:" against "#k = DEFAULT ; not set
            # (MIN..MAX UNIT; ...)"
            m = re.match(r"^(?:(.*?), )?(\d+)\.\.(\d+), (\d+):", text)
            rng = re.search(r"\((\d+)\.\.(\d+) ", val)
            want = val.split(" ;")[0]
            if not m or not rng or (m.group(2), m.group(3), m.group(4)) != \
                    (rng.group(1), rng.group(2), want):
                bad.append("[%s] %s: man '%s', roceccd '%s'" % (k + (text[:40], val)))
            continue
        not_set = "Not set by default" in text
        if not_set != (not is_set):
            bad.append("[%s] %s: man says %s, roceccd %s" % (
                k + ("not set" if not_set else "a default",
                     "prints it commented out" if not is_set else "sets " + val)))
            continue
        if is_set:
            m = re.search(r"Default (\S+) \.", text)
            if not m or m.group(1) != val:
                bad.append("[%s] %s: man default %s, roceccd %s" % (
                    k + (m.group(1) if m else "(none)", val)))
    ok(not bad, "the documented defaults and ranges are roceccd's",
       "\n".join(bad))


def main():
    for path in (ROCECC, ROCECCD):
        if not os.access(path, os.X_OK):
            print("Bail out! %s not built (make -C %s)" % (path, HERE))
            return 1
    check_lint()
    check_rocecc()
    check_roceccd()
    check_conf()
    return plan()


if __name__ == "__main__":
    sys.exit(main())
