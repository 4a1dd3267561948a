// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rocecc doctor's checks (daemon/policy/doctor.c), table
 * driven: a healthy host and port passes every check; each case changes
 * one fact of that healthy state and expects one check's status and the
 * exact fix command (and a piece of what it found).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "policy/doctor.h"
#include "tap.h"

static struct qdisc_info qd[16];

/* The healthy state: module, root fq, PFC on 3 with CNPs on 3, ... */
static void healthy(struct doc_host *h, struct doc_dev *d)
{
	static const struct doc_gid gids[] = {
		{ 0, false, "fe80::200:ff:fe00:1" },
		{ 1, true, "fe80::200:ff:fe00:1" },
		{ 2, false, "::ffff:10.0.0.1" },
		{ 3, true, "::ffff:10.0.0.1" },
	};

	memset(h, 0, sizeof(*h));
	memset(d, 0, sizeof(*d));
	memset(qd, 0, sizeof(qd));
	snprintf(h->release, sizeof(h->release), "6.1.0-57-amd64");
	h->btf = true;
	h->hz = 250;
	h->module_loaded = true;
	snprintf(h->conf_path, sizeof(h->conf_path), "/etc/rocecc/roceccd.conf");
	h->have_conf = true;
	rd_conf_defaults(&h->conf);
	h->conf.module_attach = true;
	h->conf.pfc_prio_set = true;
	h->conf.pfc_en = 0x08;
	h->rd_pid = 42;
	h->systemd = true;
	snprintf(h->url, sizeof(h->url), "http://127.0.0.1:9468/metrics");
	h->http_status = 200;

	snprintf(d->ibdev, sizeof(d->ibdev), "rxe1");
	d->port = 1;
	snprintf(d->netdev, sizeof(d->netdev), "veth1");
	d->ifindex = 2;
	d->module = true;
	d->have_pacing = true;
	d->budget_pct = 50;
	d->default_budget_us = 8000;
	d->max_delay_us = 1000000;
	qd[0] = (struct qdisc_info){ .handle = 0x80010000, .parent = TC_H_ROOT,
				     .kind = "fq", .fq = true,
				     .fq_horizon_us = 10000000,
				     .fq_horizon_drop = true,
				     .fq_flow_limit = 1000 };
	d->qd = qd;
	d->nqd = 1;
	d->ntxq = 1;
	d->have_cnp = true;
	d->cnp_dscp = 26;
	d->cnp_prio = 3;
	d->have_ect = true;
	d->ect_marked = 5;
	d->dcb.have_pfc = true;
	d->dcb.pfc.pfc_cap = 8;
	d->dcb.pfc.pfc_en = 0x08;
	d->dcb.have_buffer = true;
	d->dcb.buf.prio2buffer[3] = 1;
	d->dcb.buf.buffer_size[0] = 131072;
	d->dcb.buf.buffer_size[1] = 131072;
	d->dcb.buf.total_size = 262144;
	d->speed_mbps = 10000;
	d->mtu = 4200;
	d->active_mtu = 4096;
	d->max_mtu = 4096;
	memcpy(d->gid, gids, sizeof(gids));
	d->ngid = 4;
	d->qp[0] = (struct doc_qp){ 0x11, 14 };
	d->nqp = 1;
	d->rd_watches = true;
}

/* A root qdisc @kind 1: with @n children, child @bad (1-based) @badkind */
static void tree(struct doc_dev *d, const char *kind, unsigned int n,
		 unsigned int bad, const char *badkind)
{
	unsigned int i;

	memset(qd, 0, sizeof(qd));
	qd[0] = (struct qdisc_info){ .handle = 0x10000, .parent = TC_H_ROOT };
	snprintf(qd[0].kind, sizeof(qd[0].kind), "%s", kind);
	d->nqd = 1;
	for (i = 1; i <= n; i++) {
		struct qdisc_info *q = &qd[d->nqd];

		if (i == bad && !badkind)
			continue;	/* not listed: the class's default */
		*q = (struct qdisc_info){ .handle = (0x10 + i) << 16,
					  .parent = 0x10000 | i,
					  .kind = "fq", .fq = true,
					  .fq_horizon_us = 10000000,
					  .fq_horizon_drop = true,
					  .fq_flow_limit = 1000 };
		if (i == bad) {
			snprintf(q->kind, sizeof(q->kind), "%s", badkind);
			q->fq = false;
		}
		d->nqd++;
	}
	d->ntxq = n;
}

/* ---- the cases ------------------------------------------------------------ */

#define H	struct doc_host *h
#define D	struct doc_dev *d

static void nothing(H, D) { (void)h; (void)d; }
static void eng_none(H, D) { (void)h; d->module = false; }
static void eng_none_noconf(H, D) { h->have_conf = false; d->module = false; }
static void eng_none_other(H, D)
{
	snprintf(h->conf.module_devices, sizeof(h->conf.module_devices), "eth9");
	d->module = false;
}
static void eng_none_unloaded(H, D) { h->module_loaded = false; d->module = false; }
static void eng_two(H, D) { (void)h; d->bpf = true; }
static void eng_bpf(H, D) { (void)h; d->module = false; d->bpf = true; }
static void eng_hw(H, D) { (void)h; d->module = false; d->hw = true; }

static void q_pfifo(H, D)
{
	(void)h;
	snprintf(qd[0].kind, sizeof(qd[0].kind), "pfifo_fast");
	qd[0].fq = false;
	(void)d;
}
static void q_none(H, D) { (void)h; d->nqd = 0; }
static void q_horizon(H, D) { (void)h; (void)d; qd[0].fq_horizon_us = 500000; }
static void q_horizon_cap(H, D)
{
	(void)h;
	(void)d;
	qd[0].fq_horizon_us = 500000;
	qd[0].fq_horizon_drop = false;
}
static void q_limit(H, D) { (void)h; (void)d; qd[0].fq_flow_limit = 100; }
static void q_mq(H, D) { (void)h; tree(d, "mq", 2, 0, NULL); }
static void q_mq_bad(H, D) { (void)h; tree(d, "mq", 2, 2, "pfifo_fast"); }
static void q_rocecc(H, D) { (void)h; tree(d, "rocecc", 8, 0, NULL); }
static void q_rocecc_dflt(H, D) { (void)h; tree(d, "rocecc", 8, 4, NULL); }
static void q_rocecc_limit(H, D)
{
	(void)h;
	tree(d, "rocecc", 8, 0, NULL);
	qd[3].fq_flow_limit = 100;
}
static void q_err(H, D) { (void)h; d->qdisc_err = -EPERM; }
static void q_swpfc_fq(H, D) { (void)h; d->sw_dcb = true; }
static void q_swpfc_rocecc(H, D) { (void)h; d->sw_dcb = true; tree(d, "rocecc", 8, 0, NULL); }
static void q_swpfc_pfifo(H, D) { d->sw_dcb = true; q_pfifo(h, d); }

static void ect_none_noconf(H, D) { h->have_conf = false; d->module = false; }

static void cnp_dscp0(H, D) { (void)h; d->cnp_dscp = 0; }
static void cnp_dscp0_app(H, D)
{
	(void)h;
	d->cnp_dscp = 0;
	d->dcb.dscp_app[3] = 1ULL << 26;
}
static void cnp_dscp48(H, D) { (void)h; d->cnp_dscp = 48; }
static void cnp_prio6(H, D) { (void)h; d->cnp_prio = 6; }
static void cnp_app_ok(H, D)
{
	(void)h;
	d->cnp_dscp = 46;			/* 46 >> 3 = 5, APP: 3 */
	d->dcb.dscp_app[3] = 1ULL << 46;
}
static void cnp_app_other(H, D) { (void)h; d->dcb.dscp_app[5] = 1ULL << 40; }
static void cnp_conf(H, D)
{
	(void)d;
	h->conf.param_set[ROCECC_PARAM_NP_CNP_DSCP] = true;
	h->conf.param[ROCECC_PARAM_NP_CNP_DSCP] = 48;
	h->conf.param_set[ROCECC_PARAM_NP_CNP_PRIO] = true;
	h->conf.param[ROCECC_PARAM_NP_CNP_PRIO] = 6;
}
static void cnp_none(H, D) { (void)h; d->module = false; }
static void cnp_bpf(H, D) { (void)h; d->module = false; d->bpf = true; d->cnp_prio = 6; }
static void cnp_hw(H, D) { (void)h; d->module = false; d->hw = true; d->cnp_prio = 6; }
static void cnp_unread(H, D) { (void)h; d->have_cnp = false; }

static void pfc_off(H, D) { (void)h; d->dcb.pfc.pfc_en = 0; }
static void pfc_cnp6_on(H, D)
{
	(void)h;
	d->cnp_dscp = 48;
	d->cnp_prio = 6;
	d->dcb.pfc.pfc_en = 0x48;
}
static void pfc_cnp6_ok(H, D)
{
	(void)h;
	d->cnp_dscp = 48;
	d->cnp_prio = 6;
}
static void pfc_both(H, D)
{
	h->conf.pfc_en = 0x48;
	d->cnp_dscp = 48;
	d->cnp_prio = 6;
}
static void pfc_both_ok(H, D)
{
	pfc_both(h, d);
	d->dcb.pfc.pfc_en = 0x48;
}
static void pfc_noconf_none(H, D) { h->have_conf = false; d->dcb.pfc.pfc_en = 0; }
static void pfc_noconf_dev(H, D) { h->have_conf = false; (void)d; }
static void pfc_lossy(H, D) { h->conf.pfc_en = 0; d->dcb.pfc.pfc_en = 0; }
static void pfc_nodcb(H, D) { (void)h; d->module = false; d->dcb_err = -EOPNOTSUPP; }
static void pfc_nodcb_noconf(H, D) { h->have_conf = false; d->dcb_err = -EOPNOTSUPP; }
static void pfc_extra(H, D) { (void)h; d->dcb.pfc.pfc_en = 0x18; }

static void buf_small(H, D) { (void)h; d->dcb.buf.buffer_size[1] = 8192; }
static void buf_nopfc(H, D) { h->conf.pfc_en = 0; d->dcb.pfc.pfc_en = 0; }
static void buf_none(H, D) { (void)h; d->dcb.have_buffer = false; }
static void buf_nospeed(H, D) { (void)h; d->speed_mbps = 0; }
static void buf_conf_cable(H, D)
{
	h->conf.pfc_cable_m = 100;
	d->dcb.buf.buffer_size[1] = 24000;
}

static void mtu_1500(H, D) { (void)h; d->mtu = 1500; d->active_mtu = 1024; }
static void mtu_toobig(H, D) { (void)h; d->mtu = 1500; }
static void mtu_stale(H, D) { (void)h; d->mtu = 9000; d->active_mtu = 1024; }
static void mtu_9000(H, D) { (void)h; d->mtu = 9000; }
static void mtu_unknown(H, D) { (void)h; d->active_mtu = 0; }

static void gid_cm_v1(H, D) { (void)h; d->cm_mode = DOC_CM_V1; }
static void gid_cm_v2(H, D) { (void)h; d->cm_mode = DOC_CM_V2; }
static void gid_v1only(H, D) { (void)h; d->gid[1].v2 = false; d->gid[3].v2 = false; }
static void gid_v1addr(H, D) { (void)h; d->gid[3].v2 = false; }
static void gid_none(H, D) { (void)h; d->ngid = 0; }
static void gid_err(H, D) { (void)h; d->gid_err = -ENOENT; }

static void ack_11(H, D) { (void)h; d->qp[0].timeout = 11; }
static void ack_12(H, D) { (void)h; d->qp[0].timeout = 12; }
static void ack_12_nohz(H, D) { h->hz = 0; d->qp[0].timeout = 12; }
static void ack_0(H, D) { (void)h; d->qp[0].timeout = 0; }
static void ack_min(H, D)
{
	(void)h;
	d->qp[1] = (struct doc_qp){ 0x12, 11 };
	d->qp[2] = (struct doc_qp){ 0x13, 18 };
	d->nqp = 3;
}
static void ack_fixed(H, D) { (void)h; d->default_budget_us = 2000; d->qp[0].timeout = 11; }
static void ack_pct(H, D) { (void)h; d->budget_pct = 100; }
static void ack_noqp(H, D) { (void)h; d->nqp = 0; }
static void ack_none(H, D) { (void)h; d->module = false; }
static void ack_bpf(H, D) { (void)h; d->module = false; d->bpf = true; d->qp[0].timeout = 11; }
static void ack_unread(H, D) { (void)h; d->have_pacing = false; }

static void rd_stopped(H, D) { h->rd_pid = 0; (void)d; }
static void rd_stopped_nosd(H, D)
{
	h->rd_pid = 0;
	h->systemd = false;
	snprintf(h->pidfile, sizeof(h->pidfile), "/run/rd.pid");
	h->pidfile_stale = true;
	(void)d;
}
static void rd_stopped_noconf(H, D) { h->rd_pid = 0; h->have_conf = false; (void)d; }
static void rd_stopped_noconf_nosd(H, D)
{
	rd_stopped_noconf(h, d);
	h->systemd = false;
}
static void rd_nohttp(H, D)
{
	h->http_status = 0;
	snprintf(h->http_err, sizeof(h->http_err), "connection refused");
	(void)d;
}
static void rd_404(H, D) { h->http_status = 404; (void)d; }
static void rd_unwatched(H, D) { (void)h; d->rd_watches = false; }
static void rd_badconf(H, D)
{
	h->have_conf = false;
	snprintf(h->conf_err, sizeof(h->conf_err),
		 "/etc/rocecc/roceccd.conf:3: [daemon] port: '0' is not a TCP port");
	(void)d;
}

static void k_612(H, D) { snprintf(h->release, sizeof(h->release), "6.12.117+deb12-amd64"); (void)d; }
static void k_618(H, D) { snprintf(h->release, sizeof(h->release), "6.18.0-1-amd64"); (void)d; }
static void k_bare(H, D) { snprintf(h->release, sizeof(h->release), "6.1.0-57"); (void)d; }
static void btf_no(H, D) { h->btf = false; (void)d; }

struct tcase {
	const char *check;
	const char *what;
	void (*mod)(struct doc_host *h, struct doc_dev *d);
	enum doc_status want;
	const char *fix;	/* exact */
	const char *found;	/* a substring of found, or NULL */
};

#define P	DOC_PASS
#define S	DOC_SKIP
#define W	DOC_WARN
#define F	DOC_FAIL
#define BUFSET	"rocecc buffer set dev veth1 buffer-size "
#define CLASS(n) " && tc qdisc replace dev veth1 parent 1:" #n " fq flow_limit 1000"
#define TREE	"tc qdisc replace dev veth1 root handle 1: rocecc" CLASS(1) \
		CLASS(2) CLASS(3) CLASS(4) CLASS(5) CLASS(6) CLASS(7) CLASS(8)

static const struct tcase cases[] = {
	{ "engine", "module attached", nothing, P, "", "module" },
	{ "engine", "none, the configuration attaches", eng_none, F,
	  "rocecc dev attach veth1", "none" },
	{ "engine", "none, no configuration", eng_none_noconf, W,
	  "rocecc dev attach veth1", NULL },
	{ "engine", "none, the configuration attaches others", eng_none_other, W,
	  "rocecc dev attach veth1", NULL },
	{ "engine", "none, module not loaded", eng_none_unloaded, F,
	  "modprobe rocecc && rocecc dev attach veth1", NULL },
	{ "engine", "module and BPF both", eng_two, F,
	  "rocecc dev detach veth1", "both" },
	{ "engine", "BPF", eng_bpf, P, "", "bpf" },
	{ "engine", "hardware", eng_hw, P, "", "hw" },

	{ "qdisc", "root fq", nothing, P, "", "fq (flow_limit 1000" },
	{ "qdisc", "root pfifo_fast", q_pfifo, F,
	  "tc qdisc replace dev veth1 root fq flow_limit 1000",
	  "pacing needs the fq qdisc but veth1 has pfifo_fast" },
	{ "qdisc", "no qdisc listed", q_none, F,
	  "tc qdisc replace dev veth1 root fq flow_limit 1000", "has none" },
	{ "qdisc", "fq horizon below pacing_max_delay_us, drop", q_horizon, F,
	  "tc qdisc change dev veth1 root fq horizon_cap",
	  "beyond its horizon (500000 us) but pacing may hold one for 1000000 us" },
	{ "qdisc", "fq horizon below it, capped", q_horizon_cap, P, "", NULL },
	{ "qdisc", "fq flow_limit 100", q_limit, W,
	  "tc qdisc change dev veth1 root fq flow_limit 1000", "below 256" },
	{ "qdisc", "mq of fq", q_mq, P, "", "mq with fq under every queue" },
	{ "qdisc", "mq, queue 2 pfifo_fast", q_mq_bad, F,
	  "tc qdisc replace dev veth1 parent 1:2 fq flow_limit 1000",
	  "has pfifo_fast under 1:2" },
	{ "qdisc", "rocecc with fq under every class", q_rocecc, P, "",
	  "rocecc with fq under every class" },
	{ "qdisc", "rocecc, class 4 left at its default", q_rocecc_dflt, F,
	  "tc qdisc replace dev veth1 parent 1:4 fq flow_limit 1000",
	  "has pfifo (default) under 1:4" },
	{ "qdisc", "rocecc, one fq with flow_limit 100", q_rocecc_limit, W,
	  "tc qdisc change dev veth1 parent 1:3 fq flow_limit 1000", NULL },
	{ "qdisc", "qdiscs unreadable", q_err, W, "", "cannot read" },
	{ "qdisc", "root fq, PFC on through the module's software DCB",
	  q_swpfc_fq, W, TREE, "only the rocecc root obeys" },
	{ "qdisc", "rocecc tree, PFC through the software DCB", q_swpfc_rocecc,
	  P, "", NULL },
	{ "qdisc", "root pfifo_fast, PFC through the software DCB",
	  q_swpfc_pfifo, F, TREE, "has pfifo_fast" },
	{ "qdisc", "hardware paces", eng_hw, S, "", NULL },

	{ "ect", "module marks", nothing, P, "", "(5 so far)" },
	{ "ect", "none, the configuration attaches", eng_none, F,
	  "rocecc dev attach veth1", "nothing marks" },
	{ "ect", "none, no configuration", ect_none_noconf, W,
	  "rocecc dev attach veth1", NULL },
	{ "ect", "hardware: not readable", eng_hw, S, "", "firmware" },

	{ "cnp", "DSCP 26 -> 3, prio 3", nothing, P, "",
	  "priority 3 by DSCP >> 3" },
	{ "cnp", "DSCP 0 (lossy 0), prio 3 (lossless)", cnp_dscp0, F,
	  "rocecc param set dev veth1 np_cnp_dscp 24", "np_cnp_dscp 0 (priority 0" },
	{ "cnp", "DSCP 0, prio 3, APP table has 26 -> 3", cnp_dscp0_app, F,
	  "rocecc param set dev veth1 np_cnp_dscp 26", NULL },
	{ "cnp", "DSCP 48 (6), prio 3", cnp_dscp48, F,
	  "rocecc param set dev veth1 np_cnp_dscp 24", NULL },
	{ "cnp", "DSCP 26 (lossless 3), prio 6", cnp_prio6, F,
	  "rocecc param set dev veth1 np_cnp_prio 3", NULL },
	{ "cnp", "DSCP 46 -> 3 by the APP table", cnp_app_ok, P, "",
	  "priority 3 by the APP table" },
	{ "cnp", "APP table without the CNP's DSCP", cnp_app_other, P, "",
	  "priority 3 by DSCP >> 3" },
	{ "cnp", "the configuration wants 48 / 6", cnp_conf, W,
	  "rocecc param set dev veth1 np_cnp_dscp 48 np_cnp_prio 6", NULL },
	{ "cnp", "no engine", cnp_none, S, "", NULL },
	{ "cnp", "BPF engine: its loader sets its parameters", cnp_bpf, F, "",
	  NULL },
	{ "cnp", "mlx5: rocecc param set reaches the firmware", cnp_hw, F,
	  "rocecc param set dev veth1 np_cnp_prio 3", NULL },
	{ "cnp", "parameters unread", cnp_unread, W, "", NULL },

	{ "pfc", "PFC on 3, CNP on 3", nothing, P, "", "PFC on 3 (RoCE priority 3, CNP priority 3)" },
	{ "pfc", "PFC off on the RoCE priority", pfc_off, F,
	  "rocecc pfc set dev veth1 prio-pfc 3:on", "PFC on none" },
	{ "pfc", "CNP on its own priority 6 with PFC", pfc_cnp6_on, W,
	  "rocecc pfc set dev veth1 prio-pfc 6:off", NULL },
	{ "pfc", "CNP on its own lossy priority 6", pfc_cnp6_ok, P, "", NULL },
	{ "pfc", "configuration 3,6 lossless, 6 off", pfc_both, F,
	  "rocecc pfc set dev veth1 prio-pfc 6:on", NULL },
	{ "pfc", "configuration 3,6 lossless, both on", pfc_both_ok, P, "", NULL },
	{ "pfc", "no configuration, no PFC", pfc_noconf_none, W,
	  "rocecc pfc set dev veth1 prio-pfc 3:on", NULL },
	{ "pfc", "no configuration, the device's PFC", pfc_noconf_dev, P, "", NULL },
	{ "pfc", "priorities = none: lossy by choice", pfc_lossy, P, "", NULL },
	{ "pfc", "no DCB, the configuration wants 3", pfc_nodcb, F,
	  "rocecc dev attach veth1", "no DCB support" },
	{ "pfc", "no DCB, no configuration", pfc_nodcb_noconf, W, "", NULL },
	{ "pfc", "PFC on 3 and 4, configuration 3", pfc_extra, W,
	  "rocecc pfc set dev veth1 prio-pfc 4:off", NULL },

	{ "buffer", "128K against the headroom", nothing, P, "",
	  "buffer 1: 131072 B; headroom calculator: 23552 B" },
	{ "buffer", "buffer 1 of 8K", buf_small, F,
	  BUFSET "0:233K,1:23K", "buffer 1: 8192 B" },
	{ "buffer", "cable 100 m, buffer 1 of 24000 B", buf_conf_cable, F,
	  BUFSET "0:237440,1:24704", "headroom calculator: 24704 B" },
	{ "buffer", "no PFC", buf_nopfc, S, "", NULL },
	{ "buffer", "no DCB buffers", buf_none, W, "", NULL },
	{ "buffer", "unknown speed", buf_nospeed, W, "",
	  "the link speed is unknown" },

	{ "mtu", "4200 / 4096", nothing, P, "", "netdev MTU 4200, RoCE active MTU 4096" },
	{ "mtu", "9000 / 4096", mtu_9000, P, "", NULL },
	{ "mtu", "1500 / 1024", mtu_1500, W, "ip link set dev veth1 mtu 4176",
	  NULL },
	{ "mtu", "1500 / 4096: does not fit", mtu_toobig, F,
	  "ip link set dev veth1 mtu 4176", NULL },
	{ "mtu", "9000 / 1024: the port did not follow", mtu_stale, W,
	  "ip link set dev veth1 mtu 9000", NULL },
	{ "mtu", "active MTU unknown", mtu_unknown, W, "", NULL },

	{ "gid", "v1 and v2 GIDs, rdma_cm default", nothing, P, "",
	  "RoCE v2 GIDs 1 fe80::200:ff:fe00:1, 3 ::ffff:10.0.0.1" },
	{ "gid", "rdma_cm on RoCE v2 (configfs)", gid_cm_v2, P, "", NULL },
	{ "gid", "rdma_cm on RoCE v1", gid_cm_v1, F,
	  "echo 'RoCE v2' > /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_mode",
	  "rdma_cm default IB/RoCE v1" },
	{ "gid", "v1 GIDs only", gid_v1only, F, "", "no RoCE v2 GID for" },
	{ "gid", "no v2 GID for 10.0.0.1", gid_v1addr, F, "",
	  "no RoCE v2 GID for ::ffff:10.0.0.1" },
	{ "gid", "no GID", gid_none, F, "", "no GID on veth1" },
	{ "gid", "GIDs unreadable", gid_err, W, "", "cannot read the GIDs" },

	{ "ack_timeout", "timeout 14 (budget 30 ms)", nothing, P, "",
	  "shortest budget 30000 us" },
	{ "ack_timeout", "timeout 12 at HZ 250 (waits 12 ms, budget 6 ms)", ack_12, W,
	  "echo 6000 > /sys/module/rocecc/parameters/pacing_default_budget_us",
	  NULL },
	{ "ack_timeout", "timeout 11 (8.4 ms: waits 4 ms, budget 2 ms)", ack_11, F,
	  "echo 2000 > /sys/module/rocecc/parameters/pacing_default_budget_us",
	  "QP 0x11, timeout 11 (8.4 ms) at HZ 250" },
	{ "ack_timeout", "HZ unknown: 100 assumed", ack_12_nohz, F,
	  "echo 0 > /sys/module/rocecc/parameters/pacing_default_budget_us",
	  "(assumed)" },
	{ "ack_timeout", "timeout 0: no timer", ack_0, P, "", NULL },
	{ "ack_timeout", "the shortest of three QPs", ack_min, F,
	  "echo 2000 > /sys/module/rocecc/parameters/pacing_default_budget_us",
	  "QP 0x12" },
	{ "ack_timeout", "after the fix", ack_fixed, P, "", NULL },
	{ "ack_timeout", "pacing_budget_pct 100", ack_pct, F,
	  "echo 20 > /sys/module/rocecc/parameters/pacing_budget_pct", NULL },
	{ "ack_timeout", "no QP known", ack_noqp, S, "", NULL },
	{ "ack_timeout", "no engine", ack_none, S, "", NULL },
	{ "ack_timeout", "BPF engine: no module parameter to set", ack_bpf, F,
	  "", NULL },
	{ "ack_timeout", "parameters unread", ack_unread, W, "", NULL },

	{ "roceccd", "running, answering, watching", nothing, P, "",
	  "roceccd (pid 42) answers http://127.0.0.1:9468/metrics and watches veth1" },
	{ "roceccd", "stopped (systemd)", rd_stopped, F,
	  "systemctl start roceccd", "not running" },
	{ "roceccd", "stopped, stale pid file, no systemd", rd_stopped_nosd, F,
	  "roceccd -c /etc/rocecc/roceccd.conf --pidfile /run/rd.pid",
	  "pid file /run/rd.pid is stale" },
	{ "roceccd", "stopped, no configuration", rd_stopped_noconf, W,
	  "systemctl start roceccd", NULL },
	{ "roceccd", "stopped, no configuration, no systemd",
	  rd_stopped_noconf_nosd, W, "roceccd", NULL },
	{ "roceccd", "no HTTP answer", rd_nohttp, F,
	  "systemctl restart roceccd", "connection refused" },
	{ "roceccd", "HTTP 404", rd_404, F, "systemctl restart roceccd",
	  "HTTP 404" },
	{ "roceccd", "does not list the netdev", rd_unwatched, W, "",
	  "does not list veth1" },
	{ "roceccd", "bad configuration", rd_badconf, F,
	  "roceccd -c /etc/rocecc/roceccd.conf --check-config",
	  "is not a TCP port" },

	{ "kernel", "6.1", nothing, P, "", "6.1.0-57-amd64" },
	{ "kernel", "6.12", k_612, P, "", NULL },
	{ "kernel", "6.18", k_618, W, "", NULL },
	{ "kernel", "6.1 without a flavour", k_bare, W, "", NULL },
	{ "btf", "present", nothing, P, "", NULL },
	{ "btf", "absent", btf_no, W, "", NULL },
};

static const struct doc_check *find(const char *name)
{
	const struct doc_check *c;
	unsigned int i;

	for (i = 0; (c = doc_check(i)); i++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void run_case(const struct tcase *t)
{
	const struct doc_check *c = find(t->check);
	struct doc_host h;
	struct doc_dev d;
	struct doc_result r;
	bool ok;

	healthy(&h, &d);
	t->mod(&h, &d);
	if (!tap_ok(c != NULL, "%s: %s: the check exists", t->check, t->what))
		return;
	doc_run(c, &h, c->host ? NULL : &d, &r);
	ok = r.status == t->want && !strcmp(r.fix, t->fix) &&
	     (!t->found || strstr(r.found, t->found)) &&
	     (t->want == DOC_PASS || t->want == DOC_SKIP ||
	      r.expected[0]) &&
	     ((t->want != DOC_PASS && t->want != DOC_SKIP) ||
	      !r.expected[0]) && r.found[0];
	tap_ok(ok, "%s: %s: %s%s%s", t->check, t->what,
	       doc_status_name(t->want), t->fix[0] ? ", fix: " : "", t->fix);
	if (!ok) {
		tap_diag("status %s", doc_status_name(r.status));
		tap_diag("found    '%s'", r.found);
		tap_diag("expected '%s'", r.expected);
		tap_diag("fix      '%s'", r.fix);
	}
}

/* The healthy state passes everything; the exit status follows the worst */
static void test_healthy(void)
{
	const struct doc_check *c;
	struct doc_host h;
	struct doc_dev d;
	struct doc_result r;
	unsigned int i, bad = 0, n = 0;

	healthy(&h, &d);
	for (i = 0; (c = doc_check(i)); i++, n++) {
		doc_run(c, &h, c->host ? NULL : &d, &r);
		if (r.status != DOC_PASS) {
			bad++;
			tap_diag("%s: %s %s", r.check,
				 doc_status_name(r.status), r.found);
		}
	}
	tap_eq(n, 12, "twelve checks");
	tap_eq(bad, 0, "the healthy state passes every one");
	tap_eq(doc_exit_status(DOC_PASS), 0, "exit 0 when all pass");
	tap_eq(doc_exit_status(DOC_SKIP), 0, "... or some are skipped");
	tap_eq(doc_exit_status(DOC_WARN), 1, "exit 1 for a warning");
	tap_eq(doc_exit_status(DOC_FAIL), 2, "exit 2 for a failure");
}

static void test_coverage(void)
{
	const struct doc_check *c;
	unsigned int i, j, missing = 0;
	bool st[DOC_FAIL + 1];

	/* every check has a PASS case and a WARN or FAIL case with a fix */
	for (i = 0; (c = doc_check(i)); i++) {
		memset(st, 0, sizeof(st));
		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
			if (!strcmp(cases[j].check, c->name))
				st[cases[j].want] = true;
		if (!st[DOC_PASS] || !(st[DOC_WARN] || st[DOC_FAIL])) {
			missing++;
			tap_diag("%s: cases missing", c->name);
		}
	}
	tap_eq(missing, 0, "every check has PASS and WARN/FAIL cases");
}

int main(void)
{
	size_t i;

	test_healthy();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_coverage();
	tap_ok(doc_kernel_tested("6.1.0-0.deb11.28-amd64"),
	       "kernel: bullseye-backports 6.1 is of the tested set");
	tap_ok(!doc_kernel_tested("6.10.0-1-amd64"),
	       "kernel: 6.10 is not (6.1 is a series, not a prefix)");
	return tap_done();
}
