#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The Grafana dashboard daemon/roceccd/monitoring/rocecc-fleet.dashboard.json
(TAP): its structure
(a `datasource` variable every query uses, panels that do not overlap, each
with targets), every query parses (promtool check rules over a rules file made
of them), and every metric name a query reads is one roceccd exports (roceccd
--list-metrics) or one rocecc.rules.yml records."""
import json
import os
import re
import subprocess

import yaml

import monlib

# Grafana's own variables, as a duration for promtool.
BUILTIN = {"__rate_interval": "2m", "__interval": "1m", "__range": "1h"}
VAR = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")
PANEL_TYPES = {"timeseries", "table", "state-timeline", "stat", "bargauge",
               "heatmap", "text"}


def self_test(tap):
    """The name extractor on expressions whose names are known."""
    cases = {
        'sum by (job, group, le) (rate(a_bucket{group=~"$group",le!="x"}[$__rate_interval]))':
            {"a_bucket"},
        'x:y:z{job="j"} / on (job, group) group_left () w:v:u > 2 and on (job) (c >= 3)':
            {"x:y:z", "w:v:u", "c"},
        'histogram_quantile(0.99, sum without (instance) (b)) > bool 1e-6 offset 5m':
            {"b"},
        'label_replace(m, "group", "$1", "g", "(.*)") unless ignoring(le) n # n2':
            {"m", "n"},
    }
    bad = {e: monlib.promql_names(e) for e, want in cases.items()
           if monlib.promql_names(e) != want}
    tap.ok(not bad, "the PromQL name extractor on known expressions", bad)


def queries(dash):
    """(where, expr) of every panel target and query variable."""
    out = []
    for p in dash["panels"]:
        for t in p.get("targets") or []:
            out.append((f"panel {p.get('id')} '{p.get('title')}' {t.get('refId')}",
                        t.get("expr", "")))
    for v in dash["templating"]["list"]:
        if v.get("type") == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
            out.append((f"variable {v['name']}", m.group(1) if m else q))
    return out


def check_structure(tap, dash):
    tap.ok(dash.get("schemaVersion", 0) >= 36 and dash.get("uid") and dash.get("title"),
           f"schemaVersion {dash.get('schemaVersion')}, uid {dash.get('uid')}")
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    ds = variables.get("datasource", {})
    tap.ok(ds.get("type") == "datasource" and ds.get("query") == "prometheus",
           "a `datasource` variable of Prometheus data sources")
    ds_ref = {"type": "prometheus", "uid": "${datasource}"}
    refs = [v.get("datasource") for v in variables.values() if v.get("type") == "query"]
    panels = [p for p in dash["panels"] if p["type"] != "row"]
    rows = [p for p in dash["panels"] if p["type"] == "row"]
    bad = []
    for p in panels:
        targets = p.get("targets") or []
        ids = [t.get("refId") for t in targets]
        if not (p.get("title") and p["type"] in PANEL_TYPES and targets and
                all(t.get("expr") for t in targets) and len(set(ids)) == len(ids) and
                p.get("datasource") == ds_ref and
                all(t.get("datasource") == ds_ref for t in targets)):
            bad.append(f"{p.get('id')} {p.get('title')}")
        refs.append(p.get("datasource"))
    tap.ok(len(panels) >= 15 and not bad,
           f"{len(panels)} panels, each titled, with targets that have an expr, "
           "a unique refId and the ${datasource}", bad)
    tap.ok(all(r == ds_ref for r in refs), "every query variable and panel uses ${datasource}")
    tap.ok(all(r.get("panels") == [] and not r.get("targets") and not r.get("collapsed")
               for r in rows), f"{len(rows)} open rows, holding no panels of their own")
    all_ids = [p.get("id") for p in dash["panels"]]
    tap.ok(len(set(all_ids)) == len(all_ids) and all(isinstance(i, int) for i in all_ids),
           "panel ids unique")
    cells, overlap = {}, []
    for p in dash["panels"]:
        g = p["gridPos"]
        if g["x"] < 0 or g["x"] + g["w"] > 24:
            overlap.append(f"{p['id']} outside the 24 columns")
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    overlap.append(f"{p['id']} over {cells[(x, y)]}")
                cells[(x, y)] = p["id"]
    tap.ok(not overlap, "no two panels overlap", sorted(set(overlap)))
    titles = " / ".join(p["title"].lower() for p in panels)
    wanted = ["group p99", "host p99", "straggler", "cnp", "ce ", "pfc frames", "storm",
              "per netdev"]
    tap.ok(all(w in titles + " " for w in wanted),
           "panels for group and host p99, stragglers, CNP and CE, PFC pauses and "
           "storms, per-netdev throughput", [w for w in wanted if w not in titles + " "])
    return variables


def check_variables(tap, qs, variables):
    """Grafana variables stand inside label matchers or ranges, and exist."""
    unknown, loose = set(), []
    for where, expr in qs:
        bare = re.sub(r'"(\\.|[^"\\])*"|\[[^\]]*\]', "", expr)
        if VAR.search(bare):
            loose.append(where)
        for m in VAR.finditer(expr):
            name = m.group(1) or m.group(2)
            if name not in variables and name not in BUILTIN:
                unknown.add(name)
    tap.ok(not unknown, "every variable a query uses is defined", sorted(unknown))
    tap.ok(not loose, "variables only inside label matchers and ranges", loose)


def check_parse(tap, qs):
    """promtool check rules over one recording rule per query."""
    def concrete(expr):
        return VAR.sub(lambda m: BUILTIN.get(m.group(1) or m.group(2), ".*"), expr)
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{i}:check", "expr": concrete(e)}
        for i, (_, e) in enumerate(qs)]}]}
    os.makedirs(monlib.OUT, exist_ok=True)
    path = os.path.join(monlib.OUT, "dashboard-queries.rules.yml")
    with open(path, "w") as f:
        yaml.safe_dump(rules, f, sort_keys=False, width=1000)
    p = subprocess.run(["promtool", "check", "rules", path], capture_output=True, text=True)
    tap.ok(p.returncode == 0, f"promtool check rules: all {len(qs)} queries parse",
           p.stdout + p.stderr)


def main():
    tap = monlib.Tap()
    self_test(tap)
    with open(monlib.DASHBOARD) as f:
        dash = json.load(f)
    tap.ok(True, "the dashboard is JSON")
    variables = check_structure(tap, dash)
    qs = queries(dash)
    check_variables(tap, qs, variables)
    check_parse(tap, qs)

    types, _ = monlib.list_metrics()
    exported = monlib.exported_names(types)
    recorded = {r["record"] for r in monlib.load_rules() if "record" in r}
    read, bad, nameless = set(), [], []
    for where, expr in qs:
        names = monlib.promql_names(expr)
        read |= names
        if not names:
            nameless.append(where)
        for n in sorted(names - exported - recorded):
            bad.append(f"{where}: {n}")
    tap.ok(not nameless, "every query names a metric", nameless)
    tap.ok(not bad, f"every name the queries read ({len(read)}) is exported by roceccd "
           "or recorded by rocecc.rules.yml", bad)
    tap.ok(read & recorded, f"the dashboard reads {len(read & recorded)} recorded series")
    tap.done()


if __name__ == "__main__":
    main()
