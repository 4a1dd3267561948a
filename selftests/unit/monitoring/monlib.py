# SPDX-License-Identifier: GPL-2.0
"""What the tests of daemon/roceccd/monitoring/ share: TAP output, the metric
families roceccd exports (from `roceccd --list-metrics`, the daemon's own
table), the rules file, and the metric names a PromQL expression reads."""
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "../../.."))
MONITORING = os.path.join(TOP, "daemon/roceccd/monitoring")
PROMTOOL_TESTS = os.path.join(MONITORING, "tests")
RULES = os.path.join(MONITORING, "rocecc.rules.yml")
DASHBOARD = os.path.join(MONITORING, "rocecc-fleet.dashboard.json")
ROCECCD = os.environ.get("ROCECCD", os.path.join(TOP, "build/daemon/roceccd"))
OUT = os.environ.get("MONITORING_OUT", os.path.join(TOP, "build/unit/monitoring"))

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None, todo=None):
        self.n += 1
        line = ("ok" if cond else "not ok") + f" {self.n} - {name}"
        if todo:
            line += f" # TODO {todo}"
        elif not cond:
            self.failed += 1
        print(line, flush=True)
        if not cond and diag:
            self.diag(diag)
        return cond

    def diag(self, text):
        for line in str(text).splitlines():
            print("# " + line)

    def done(self):
        print(f"1..{self.n}")
        sys.exit(1 if self.failed else 0)


def list_metrics():
    """roceccd --list-metrics: {family: type} and {histogram: [le, ...]}
    (le as the daemon writes them, "+Inf" last), at the default buckets
    per octave (an empty configuration file)."""
    out = subprocess.run([ROCECCD, "-c", "/dev/null", "--list-metrics"],
                         check=True, capture_output=True, text=True).stdout
    types, les = {}, {}
    for line in out.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        m = re.match(r'(\S+)_bucket\{le="([^"]+)"\} 0$', line)
        if m:
            les.setdefault(m.group(1), []).append(m.group(2))
    return types, les


def exported_names(types):
    """The names a query can read: a histogram family's _bucket, _sum and
    _count series, every other family by its name."""
    names = set()
    for fam, typ in types.items():
        if typ == "histogram":
            names |= {fam + "_bucket", fam + "_sum", fam + "_count"}
        else:
            names.add(fam)
    return names


def load_rules(path=RULES):
    with open(path) as f:
        doc = yaml.safe_load(f)
    return [r for g in doc["groups"] for r in g["rules"]]


KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan"}


def promql_names(expr):
    """The metric names a PromQL expression reads: identifiers that are not
    functions, aggregations, keywords or label names. Grafana variables
    ($name, ${name}) must stand inside label matchers or ranges."""
    s = re.sub(r"#[^\n]*", " ", expr)                       # comments
    s = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|`[^`]*`', " ", s)
    s = re.sub(r"\{[^{}]*\}", " ", s)                       # label matchers
    s = re.sub(r"\[[^\[\]]*\]", " ", s)                     # ranges
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)",
               " ", s)                                      # label lists
    s = re.sub(r"\b\d+(\.\d+)?(e[+-]?\d+)?(ms|s|m|h|d|w|y)?\b", " ", s,
               flags=re.I)                                  # numbers
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", s):
        word = m.group(0)
        rest = s[m.end():].lstrip()
        if word.lower() in KEYWORDS or rest.startswith("("):
            continue
        names.add(word)
    return names
