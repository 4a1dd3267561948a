#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The rules of daemon/roceccd/monitoring/rocecc.rules.yml (TAP): promtool
check rules; every name they read is one roceccd exports (roceccd
--list-metrics) or one they record; every alert has a test; and promtool test
rules on the files beside the rules (daemon/roceccd/monitoring/tests/, which
an operator reruns after changing a threshold) and on the message completion
tests this script writes, whose histograms have the le bounds roceccd exports
(from its own table), so that the p99, the group median and the straggler
alert are computed on the buckets a real scrape has.
"""
import os
import subprocess

import yaml

import monlib

INTERVAL = 15           # s between scrapes in the synthetic series
JOB = "rocecc"


def quantile(q, les, counts):
    """Prometheus' histogram_quantile over cumulative @counts at @les
    (floats, +Inf last): linear within the bucket that holds rank q."""
    rank = q * counts[-1]
    b = next(i for i, c in enumerate(counts) if c >= rank)
    if b == len(counts) - 1:
        return les[-2]
    start = les[b - 1] if b else 0.0
    below = counts[b - 1] if b else 0.0
    return start + (les[b] - start) * (rank - below) / (counts[b] - below)


def cumulative(les, msgs):
    """Cumulative bucket counts of @msgs {latency s: messages}."""
    return [sum(n for t, n in msgs.items() if t <= le) for le in les]


# Messages per scrape interval by completion time: 100 a second around
# 1 ms, a tail to 2.5 ms; a slow host's three times as long.
NORMAL = {0.0008: 600, 0.0010: 600, 0.0013: 240, 0.0018: 50, 0.0025: 10}


def scaled(msgs, factor=1.0, rate=1.0):
    return {t * factor: n * rate for t, n in msgs.items()}


class Hist:
    """The series of one histogram (roceccd's le bounds) whose messages per
    interval change at given sample indexes: phases [(from_index, msgs)]."""

    def __init__(self, name, labels, les_text, phases, samples):
        self.name, self.labels = name, labels
        self.les_text = les_text
        self.les = [float(x) for x in les_text]
        self.phases, self.samples = phases, samples

    def _series(self, suffix, extra, per_interval):
        """One counter series in promtool's notation: per phase, "first+inc
        x n" (n + 1 samples), the first sample of the first phase 0."""
        lab = ",".join(f'{k}="{v}"' for k, v in {**self.labels, **extra}.items())
        values, total = [], 0.0
        ends = [p[0] for p in self.phases[1:]] + [self.samples]
        for (start, _), end, inc in zip(self.phases, ends, per_interval):
            first = total + inc if start else 0.0
            values.append(f"{first:g}+{inc:g}x{end - start - 1}")
            total = first + inc * (end - start - 1)
        return {"series": f"{self.name}{suffix}{{{lab}}}",
                "values": " ".join(values)}

    def series(self):
        out = []
        for i, le in enumerate(self.les_text):
            inc = [cumulative(self.les, m)[i] for _, m in self.phases]
            out.append(self._series("_bucket", {"le": le}, inc))
        out.append(self._series("_count", {}, [sum(m.values()) for _, m in self.phases]))
        out.append(self._series("_sum", {}, [sum(t * n for t, n in m.items())
                                             for _, m in self.phases]))
        return out

    def counts(self, phase):
        return cumulative(self.les, self.phases[phase][1])


def merged(hists):
    """The cumulative counts of several histograms' first phases, summed."""
    return [sum(col) for col in zip(*[h.counts(0) for h in hists])]


def us(x):
    """Seconds to whole microseconds, rounded half up as PromQL's round()."""
    return int(x * 1e6 + 0.5)


def group_hist(les_text, instance, group, phases, samples):
    return Hist("rocecc_group_message_completion_seconds",
                {"job": JOB, "instance": instance, "group": group},
                les_text, phases, samples)


def straggler_test(les_text):
    """Group dp0 of four hosts, host4 three times slower from the start and
    back to normal at 12m; tp0 of three equal hosts; dp2 of four hosts, the
    slow one with half a message a second (too few to be judged)."""
    samples = 16 * 60 // INTERVAL                       # 16 minutes
    recover = 12 * 60 // INTERVAL
    h = []
    for i in (1, 2, 3):
        h.append(group_hist(les_text, f"host{i}:9468", "dp0", [(0, NORMAL)], samples))
    slow = group_hist(les_text, "host4:9468", "dp0",
                      [(0, scaled(NORMAL, 3)), (recover, NORMAL)], samples)
    h.append(slow)
    for i in (1, 2, 3):
        h.append(group_hist(les_text, f"host{i}:9468", "tp0", [(0, NORMAL)], samples))
    for i in (5, 6, 7):
        h.append(group_hist(les_text, f"host{i}:9468", "dp2", [(0, NORMAL)], samples))
    sparse = {0.003: 5, 0.0075: 2.5}            # 7.5 per 15 s: 0.5 a second
    h.append(group_hist(les_text, "host8:9468", "dp2", [(0, sparse)], samples))

    les = h[0].les
    normal = quantile(0.99, les, h[0].counts(0))
    slow99 = quantile(0.99, les, slow.counts(0))
    dp0_99 = quantile(0.99, les, merged(h[:4]))
    ratio = slow99 / normal          # the median of 1, 1, 1, 3 is a normal host

    def rec(name, labels, value):
        lab = ",".join(f'{k}="{v}"' for k, v in labels.items())
        return {"labels": f"{name}{{{lab}}}", "value": value}

    alert = {
        "exp_labels": {"severity": "warning", "factor": "2",
                       "job": JOB, "instance": "host4:9468", "group": "dp0"},
        "exp_annotations": {
            "summary": "host4:9468 is the straggler of group dp0",
            "description": f"Message completion p99 of host4:9468 in group dp0 (job {JOB}) is "
                           f"{ratio:.1f} x the median p99 of the group's hosts, above factor 2 "
                           "for 10 minutes."},
    }
    g = {"job": JOB}
    test = {
        "interval": f"{INTERVAL}s",
        "input_series": [s for x in h for s in x.series()],
        "promql_expr_test": [
            {"expr": "round(instance_group:rocecc_group_message_completion_seconds:p99_2m"
                     "{group=\"dp0\"} * 1e6)",
             "eval_time": "10m",
             "exp_samples": [rec("", {**g, "instance": f"host{i}:9468", "group": "dp0"},
                                 us(normal)) for i in (1, 2, 3)] +
                            [rec("", {**g, "instance": "host4:9468", "group": "dp0"},
                                 us(slow99))]},
            {"expr": "round(group:rocecc_group_message_completion_seconds:p99_2m * 1e6)",
             "eval_time": "10m",
             "exp_samples": [rec("", {**g, "group": "dp0"}, us(dp0_99)),
                             rec("", {**g, "group": "tp0"}, us(normal)),
                             rec("", {**g, "group": "dp2"},
                                 us(quantile(0.99, les, merged(h[7:]))))]},
            {"expr": "round(group:rocecc_group_message_completion_seconds:host_p99_median_2m * 1e6)",
             "eval_time": "10m",
             "exp_samples": [rec("", {**g, "group": "dp0"}, us(normal)),
                             rec("", {**g, "group": "tp0"}, us(normal)),
                             rec("", {**g, "group": "dp2"}, us(normal))]},
            {"expr": "group:rocecc_group_message_completion_seconds:hosts_2m",
             "eval_time": "10m",
             "exp_samples": [rec("group:rocecc_group_message_completion_seconds:hosts_2m",
                                 {**g, "group": k}, n)
                             for k, n in (("dp0", 4), ("tp0", 3), ("dp2", 3))]},
            {"expr": "round(instance_group:rocecc_group_message_completion_seconds:"
                     "p99_over_group_median_2m{instance=\"host4:9468\"} * 100)",
             "eval_time": "10m",
             "exp_samples": [rec("", {**g, "instance": "host4:9468", "group": "dp0"},
                                 int(ratio * 100 + 0.5))]},
        ],
        "alert_rule_test": [
            # slow from the first scrape, judged from 15 s on: pending 10m
            {"eval_time": "10m", "alertname": "RoceccStragglerHost", "exp_alerts": []},
            {"eval_time": "10m15s", "alertname": "RoceccStragglerHost", "exp_alerts": [alert]},
            {"eval_time": "11m45s", "alertname": "RoceccStragglerHost", "exp_alerts": [alert]},
            # back to normal at 12m: below the factor once its 2m window
            # holds enough fast messages
            {"eval_time": "14m", "alertname": "RoceccStragglerHost", "exp_alerts": []},
            {"eval_time": "15m45s", "alertname": "RoceccStragglerHost", "exp_alerts": []},
        ],
    }
    return test, {"normal": normal, "slow": slow99, "ratio": ratio}


def equal_test(les_text):
    """Four equal hosts in dp0, and host1's two netdevs: no alert, the
    median and the ratios as computed, the per-host p99 of all flows."""
    samples = 16 * 60 // INTERVAL
    h = [group_hist(les_text, f"host{i}:9468", "dp0", [(0, NORMAL)], samples)
         for i in (1, 2, 3, 4)]
    for nd in ("eth0", "eth1"):
        h.append(Hist("rocecc_netdev_message_completion_seconds",
                      {"job": JOB, "instance": "host1:9468", "netdev": nd, "dev": "mlx5_" + nd[-1]},
                      les_text, [(0, scaled(NORMAL, 1, 0.5))], samples))
    normal = quantile(0.99, h[0].les, h[0].counts(0))
    g = {"job": JOB, "group": "dp0"}
    lab = lambda d: "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"
    return {
        "interval": f"{INTERVAL}s",
        "input_series": [s for x in h for s in x.series()],
        "promql_expr_test": [
            {"expr": "round(instance_group:rocecc_group_message_completion_seconds:"
                     "p99_over_group_median_2m * 100)",
             "eval_time": "12m",
             "exp_samples": [{"labels": lab({**g, "instance": f"host{i}:9468"}), "value": 100}
                             for i in (1, 2, 3, 4)]},
            {"expr": "round(group:rocecc_group_message_completion_seconds:host_p99_median_2m * 1e6)",
             "eval_time": "12m",
             "exp_samples": [{"labels": lab(g), "value": us(normal)}]},
            {"expr": "round(instance:rocecc_netdev_message_completion_seconds:p99_2m * 1e6)",
             "eval_time": "12m",
             "exp_samples": [{"labels": lab({"job": JOB, "instance": "host1:9468"}),
                              "value": us(normal)}]},
        ],
        "alert_rule_test": [
            {"eval_time": t, "alertname": "RoceccStragglerHost", "exp_alerts": []}
            for t in ("5m", "10m15s", "15m45s")
        ],
    }


def write_latency_test(les_text):
    os.makedirs(monlib.OUT, exist_ok=True)
    path = os.path.join(monlib.OUT, "latency.test.yml")
    strag, figures = straggler_test(les_text)
    doc = {"rule_files": [monlib.RULES], "evaluation_interval": f"{INTERVAL}s",
           # recording rules first at every evaluation (else: random order)
           "group_eval_order": ["rocecc-latency", "rocecc-datapath", "rocecc-pfc",
                                "rocecc-alerts"],
           "tests": [strag, equal_test(les_text)]}
    with open(path, "w") as f:
        f.write("# generated by selftests/unit/monitoring/test_rules.py\n")
        yaml.safe_dump(doc, f, sort_keys=False, width=1000)
    return path, figures


def promtool(*args):
    p = subprocess.run(["promtool", *args], capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    tap = monlib.Tap()
    rc, out = promtool("check", "rules", monlib.RULES)
    tap.ok(rc == 0, "promtool check rules rocecc.rules.yml", out)

    types, les = monlib.list_metrics()
    tap.ok(len(types) > 80, f"roceccd --list-metrics: {len(types)} families")
    exported = monlib.exported_names(types)
    rules = monlib.load_rules()
    recorded = {r["record"] for r in rules if "record" in r}
    alerts = {r["alert"] for r in rules if "alert" in r}
    tap.ok(all(n.count(":") == 2 for n in recorded),
           "recorded names are level:metric:operations",
           [n for n in recorded if n.count(":") != 2])
    read = set()
    for r in rules:
        read |= monlib.promql_names(r["expr"])
    unknown = read - exported - recorded
    tap.ok(not unknown, f"the rules read {len(read)} names, each exported by "
           "roceccd or recorded here", sorted(unknown))
    tap.ok(all(r.get("labels", {}).get("severity") and
               {"summary", "description"} <= set(r.get("annotations", {}))
               for r in rules if "alert" in r),
           "every alert has a severity, a summary and a description")

    bounds = les.get("rocecc_group_message_completion_seconds", [])
    tap.ok(len(bounds) == 98 and bounds[-1] == "+Inf" and
           bounds == les.get("rocecc_netdev_message_completion_seconds"),
           f"the exported histograms' le bounds: {len(bounds)}, "
           f"{bounds[0] if bounds else '-'} .. {bounds[-2] if bounds else '-'}, +Inf")

    gen, fig = write_latency_test(bounds)
    tap.diag(f"synthetic p99: normal host {fig['normal'] * 1e3:.4f} ms, slow host "
             f"{fig['slow'] * 1e3:.4f} ms, {fig['ratio']:.2f} x the median")
    tests = sorted(os.path.join(monlib.PROMTOOL_TESTS, f)
                   for f in os.listdir(monlib.PROMTOOL_TESTS)
                   if f.endswith(".test.yml")) + [gen]
    tested = set()
    for path in tests:
        with open(path) as f:
            doc = yaml.safe_load(f)
        for t in doc["tests"]:
            tested |= {a["alertname"] for a in t.get("alert_rule_test", [])}
        rc, out = promtool("test", "rules", path)
        tap.ok(rc == 0 and "SUCCESS" in out,
               f"promtool test rules {os.path.relpath(path, monlib.TOP)}", out)
    tap.ok(alerts <= tested, f"every alert is tested ({', '.join(sorted(alerts))})",
           sorted(alerts - tested))
    tap.done()


if __name__ == "__main__":
    main()
