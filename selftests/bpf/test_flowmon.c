// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/flowmon.bpf.c through BPF_PROG_TEST_RUN: crafted request/response
 * sequences on one or more QP pairs, with the programs' clock set by the
 * test (flowmon_test_clock), and the exact histogram entries and counters
 * they must produce.
 *
 * The programs see the packets as a host "A" (10.0.0.1 / fd00::1) does:
 * flowmon_egress its requests to a peer, flowmon_ingress the peer's
 * responses. Every run must return TC_ACT_UNSPEC and hand back the frame
 * unchanged; the last test points count that over all runs.
 *
 * Expected latencies are written as the differences of the times the test
 * gives its packets; their buckets come from include/rocecc/hist.h, whose
 * own tests (selftests/unit/core/test_hist.c) pin them down independently, and
 * one anchor here is spelled out by hand.
 *
 * Needs root (or CAP_BPF + CAP_NET_ADMIN); skips otherwise.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_skip.h"
#include "flowmon.h"
#include "flowmon.skel.h"
#include "flowmon_lib.h"
#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct flowmon *skel;
static int fd_eg, fd_in, fd_flows, fd_qps, fd_stats, fd_pend, fd_events;
static int ncpus;
static unsigned int runs, bad_run, bad_ret, bad_data;

static void use(struct flowmon *s);

static const uint8_t A4[4] = { 10, 0, 0, 1 };
static const uint8_t B4[4] = { 10, 0, 0, 2 };
static const uint8_t C4[4] = { 10, 0, 0, 3 };
static const uint8_t A6[16] = { 0xfd, [15] = 1 };
static const uint8_t B6[16] = { 0xfd, [15] = 2 };

/* One QP pair as host A sees it */
struct qpair {
	int v6;
	const uint8_t *local, *peer;
	uint32_t lqpn, rqpn;
	uint32_t ifindex;
};

#define AETH_ACK	0x1f		/* ACK, credit count 31 (unlimited) */
#define AETH_RNR	0x20		/* RNR NAK, timer 0 */
#define AETH_NAK_SEQ	0x60		/* NAK: PSN sequence error */
#define AETH_NAK_ACC	0x62		/* NAK: remote access error */

/* ---------------------------------------------------------------- runs */

static void set_clock(uint64_t t)
{
	skel->bss->flowmon_test_now_ns = t;
}

static void run_pkt(int egress, uint32_t ifindex, const struct pkt *k,
		    uint64_t t)
{
	uint8_t f[FRAME_MAX], out[FRAME_MAX];
	uint32_t retval = 0, out_len = 0;
	size_t len = build(f, k);

	set_clock(t);
	runs++;
	if (run_frame(egress ? fd_eg : fd_in, ifindex, f, len, &retval, out,
		      &out_len, NULL)) {
		bad_run++;
		return;
	}
	bad_ret += retval != (uint32_t)TC_ACT_UNSPEC;
	bad_data += out_len != len || memcmp(out, f, len);
}

/* Raw frame, for the malformed and foreign ones */
static void run_raw(int egress, const uint8_t *f, size_t len)
{
	uint8_t out[FRAME_MAX];
	uint32_t retval = 0, out_len = 0;

	runs++;
	if (run_frame(egress ? fd_eg : fd_in, 1, f, len, &retval, out,
		      &out_len, NULL)) {
		bad_run++;
		return;
	}
	bad_ret += retval != (uint32_t)TC_ACT_UNSPEC;
	bad_data += out_len != len || memcmp(out, f, len);
}

/* A request (or CNP) from A to the peer at time t: egress */
static void tx(const struct qpair *q, uint64_t t, uint8_t op, uint32_t psn,
	       int ackreq)
{
	struct pkt k = { .v6 = q->v6, .src = q->local, .dst = q->peer,
			 .op = op, .qpn = q->rqpn, .psn = psn,
			 .ackreq = ackreq,
			 .payload = op == ROCECC_OP_CNP ? 16 : 0 };

	run_pkt(1, q->ifindex, &k, t);
}

/* A response (or request, or CNP) from the peer to A: ingress */
static void rx_ecn(const struct qpair *q, uint64_t t, uint8_t op,
		   uint32_t psn, uint8_t syndrome, uint8_t ecn)
{
	struct pkt k = { .v6 = q->v6, .src = q->peer, .dst = q->local,
			 .op = op, .qpn = q->lqpn, .psn = psn,
			 .syndrome = syndrome, .ecn = ecn,
			 .payload = op == ROCECC_OP_CNP ? 16 : 0 };

	run_pkt(0, q->ifindex, &k, t);
}

static void rx(const struct qpair *q, uint64_t t, uint8_t op, uint32_t psn,
	       uint8_t syndrome)
{
	rx_ecn(q, t, op, psn, syndrome, ROCECC_ECN_ECT0);
}

/* IP bytes of what tx()/rx() send for @op */
static uint32_t bytes(const struct qpair *q, uint8_t op)
{
	struct pkt k = { .v6 = q->v6, .op = op,
			 .payload = op == ROCECC_OP_CNP ? 16 : 0 };

	return ip_len(&k);
}

/* ---------------------------------------------------------------- maps */

/* What the daemon writes when it learns @q; @flags FLOWMON_QP_* */
static void add_qp_flags(const struct qpair *q, uint32_t flags)
{
	struct flowmon_qp_key k = { .ifindex = q->ifindex, .lqpn = q->lqpn };
	struct flowmon_qp v = { .rqpn = q->rqpn, .flags = flags };

	if (bpf_map_update_elem(fd_qps, &k, &v, BPF_ANY))
		tap_diag("qps update: %s", strerror(errno));
}

static void add_qp(const struct qpair *q)
{
	add_qp_flags(q, 0);
}

/* The flags of @q's qps entry, or -errno */
static int qp_flags(const struct qpair *q)
{
	struct flowmon_qp_key k = { .ifindex = q->ifindex, .lqpn = q->lqpn };
	struct flowmon_qp v;

	if (bpf_map_lookup_elem(fd_qps, &k, &v))
		return -errno;
	return (int)v.flags;
}

static void del_qp(const struct qpair *q)
{
	struct flowmon_qp_key k = { .ifindex = q->ifindex, .lqpn = q->lqpn };

	bpf_map_delete_elem(fd_qps, &k);
}

static void flow_key(const struct qpair *q, struct flowmon_key *k)
{
	memset(k, 0, sizeof(*k));
	if (q->v6) {
		memcpy(k->peer, q->peer, 16);
	} else {
		k->peer[10] = 0xff;
		k->peer[11] = 0xff;
		memcpy(k->peer + 12, q->peer, 4);
	}
	k->rqpn = q->rqpn;
	k->ifindex = q->ifindex;
}

/* The flow of @q, read under its lock; 0 or -errno (-ENOENT: none) */
static int get_flow(const struct qpair *q, struct flowmon_flow *f)
{
	struct flowmon_key k;

	flow_key(q, &k);
	memset(f, 0, sizeof(*f));
	if (bpf_map_lookup_elem_flags(fd_flows, &k, f, BPF_F_LOCK))
		return -errno;
	return 0;
}

static unsigned int count_flows(void)
{
	struct flowmon_key k, next;
	unsigned int n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd_flows, prev, &next)) {
		k = next;
		prev = &k;
		n++;
	}
	return n;
}

static void get_stats(struct flowmon_stats *sum)
{
	struct flowmon_stats v[ncpus];
	uint32_t zero = 0;
	int c;

	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(fd_stats, &zero, v))
		return;
	for (c = 0; c < ncpus; c++) {
		__u64 *d = (__u64 *)sum, *s = (__u64 *)&v[c];
		size_t i;

		for (i = 0; i < sizeof(*sum) / sizeof(__u64); i++)
			d[i] += s[i];
	}
}

static int drop_event(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

/* Empty every map the test writes: each case starts from nothing */
static void reset(void)
{
	struct flowmon_stats v[ncpus];
	struct flowmon_key fk;
	struct flowmon_pkey pk;
	struct flowmon_qp_key qk;
	struct ring_buffer *rb;
	uint32_t zero = 0;

	while (!bpf_map_get_next_key(fd_flows, NULL, &fk))
		bpf_map_delete_elem(fd_flows, &fk);
	while (!bpf_map_get_next_key(fd_pend, NULL, &pk))
		bpf_map_delete_elem(fd_pend, &pk);
	while (!bpf_map_get_next_key(fd_qps, NULL, &qk))
		bpf_map_delete_elem(fd_qps, &qk);
	rb = ring_buffer__new(fd_events, drop_event, NULL, NULL);
	if (rb) {
		ring_buffer__consume(rb);
		ring_buffer__free(rb);
	}
	memset(v, 0, sizeof(v));
	bpf_map_update_elem(fd_stats, &zero, v, BPF_ANY);
}

/* ------------------------------------------------------------- checks */

/*
 * Histogram @h must hold exactly the samples @want[0..n): every bucket and
 * the sum. The point's name lists them.
 */
static int check_hist(const char *what, const struct flowmon_hist *h,
		      unsigned int n, const uint64_t *want)
{
	static struct flowmon_hist w;
	char list[256] = "";
	size_t at = 0;
	unsigned int i;
	int ok;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < n; i++) {
		w.bucket[rocecc_hist_index(want[i], FLOWMON_HIST_SUB_BITS,
					   FLOWMON_HIST_RANGE_BITS)]++;
		w.sum_ns += want[i];
		if (i < 6 && at < sizeof(list) - 32)
			at += snprintf(list + at, sizeof(list) - at, "%s%llu",
				       i ? ", " : "",
				       (unsigned long long)want[i]);
	}
	if (n > 6)
		snprintf(list + at, sizeof(list) - at, ", ... (%u)", n);
	ok = tap_ok(!memcmp(h, &w, sizeof(w)), "%s: {%s}", what, list);
	if (!ok) {
		tap_diag("sum got %llu want %llu",
			 (unsigned long long)h->sum_ns,
			 (unsigned long long)w.sum_ns);
		for (i = 0; i < FLOWMON_HIST_BUCKETS; i++)
			if (h->bucket[i] != w.bucket[i])
				tap_diag("bucket %u [%llu, %llu]: got %llu want %llu",
					 i,
					 (unsigned long long)rocecc_hist_lower(i,
					 FLOWMON_HIST_SUB_BITS, FLOWMON_HIST_RANGE_BITS),
					 (unsigned long long)rocecc_hist_upper(i,
					 FLOWMON_HIST_SUB_BITS, FLOWMON_HIST_RANGE_BITS),
					 (unsigned long long)h->bucket[i],
					 (unsigned long long)w.bucket[i]);
	}
	return ok;
}

#define HIST(what, h, ...)						\
	check_hist(what, h,						\
		   ARRAY_SIZE(((uint64_t[]){ __VA_ARGS__ })),		\
		   (uint64_t[]){ __VA_ARGS__ })
#define HIST_EMPTY(what, h)	check_hist(what, h, 0, NULL)

#define FLOW_CTR(x)	{ #x, offsetof(struct flowmon_flow, x) }
static const struct { const char *name; size_t off; } flow_ctrs[] = {
	FLOW_CTR(tx_pkts), FLOW_CTR(tx_bytes), FLOW_CTR(rx_pkts),
	FLOW_CTR(rx_bytes), FLOW_CTR(rx_ce), FLOW_CTR(tx_cnp),
	FLOW_CTR(rx_cnp), FLOW_CTR(tx_ackreq), FLOW_CTR(tx_msgs),
	FLOW_CTR(tx_retrans), FLOW_CTR(rx_acks), FLOW_CTR(rx_nak_seq),
	FLOW_CTR(rx_nak_other), FLOW_CTR(rx_rnr_nak), FLOW_CTR(rtt_karn),
	FLOW_CTR(rtt_overrun), FLOW_CTR(mct_overrun),
};

#define STAT_CTR(x)	{ #x, offsetof(struct flowmon_stats, x) }
static const struct { const char *name; size_t off; } stat_ctrs[] = {
	STAT_CTR(tx_unknown_pkts), STAT_CTR(tx_unknown_bytes),
	STAT_CTR(rx_unknown_pkts), STAT_CTR(rx_unknown_bytes),
	STAT_CTR(tx_malformed), STAT_CTR(rx_malformed),
	STAT_CTR(flow_full), STAT_CTR(flow_replaced), STAT_CTR(pend_full),
	STAT_CTR(pend_merged), STAT_CTR(pend_resp_lost),
	STAT_CTR(events_lost),
};

/*
 * Counters of flow @f (or, if @f is NULL, of @st) against "name=value ..."
 * (printf format): the named ones must have those values and every other
 * counter must be zero. Pseudo counters of a flow: "pending" (messages
 * awaiting completion) and "lqpn".
 */
static int check_ctrs(const char *what, const struct flowmon_flow *f,
		      const struct flowmon_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int check_ctrs(const char *what, const struct flowmon_flow *f,
		      const struct flowmon_stats *st, const char *fmt, ...)
{
	char spec[512], why[512] = "", *tok, *save = NULL;
	unsigned int n = f ? ARRAY_SIZE(flow_ctrs) : ARRAY_SIZE(stat_ctrs);
	unsigned long long want[32] = { 0 }, pending = 0, lqpn = 0;
	unsigned long long got_pending = 0, got_lqpn = 0;
	int bad = 0, named_pending = 0, named_lqpn = 0;
	size_t at = 0;
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(spec, sizeof(spec), fmt, ap);
	va_end(ap);
	{
		char copy[512];

		snprintf(copy, sizeof(copy), "%s", spec);
		for (tok = strtok_r(copy, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			char name[64];
			unsigned long long v;

			if (sscanf(tok, "%63[^=]=%llu", name, &v) != 2) {
				bad++;
				continue;
			}
			if (f && !strcmp(name, "pending")) {
				pending = v;
				named_pending = 1;
				continue;
			}
			if (f && !strcmp(name, "lqpn")) {
				lqpn = v;
				named_lqpn = 1;
				continue;
			}
			for (i = 0; i < n; i++)
				if (!strcmp(name, f ? flow_ctrs[i].name :
						      stat_ctrs[i].name))
					break;
			if (i == n) {
				bad++;
				tap_diag("no counter %s", name);
				continue;
			}
			want[i] = v;
		}
	}
	for (i = 0; i < n; i++) {
		const char *name = f ? flow_ctrs[i].name : stat_ctrs[i].name;
		size_t off = f ? flow_ctrs[i].off : stat_ctrs[i].off;
		unsigned long long got = f ?
			*(const __u64 *)((const char *)f + off) :
			*(const __u64 *)((const char *)st + off);

		if (got != want[i]) {
			bad++;
			at += snprintf(why + at, at < sizeof(why) ?
				       sizeof(why) - at : 0,
				       " %s=%llu (want %llu)", name, got,
				       want[i]);
		}
	}
	if (f) {
		got_pending = f->msg_tail - f->msg_head;
		got_lqpn = f->lqpn;
		if (named_pending && got_pending != pending) {
			bad++;
			at += snprintf(why + at, at < sizeof(why) ?
				       sizeof(why) - at : 0,
				       " pending=%llu (want %llu)",
				       got_pending, pending);
		}
		if (named_lqpn && got_lqpn != lqpn) {
			bad++;
			at += snprintf(why + at, at < sizeof(why) ?
				       sizeof(why) - at : 0,
				       " lqpn=%llu (want %llu)", got_lqpn,
				       lqpn);
		}
	}
	if (!tap_ok(!bad, "%s: %s, all else 0", what, spec))
		tap_diag("got:%s", why);
	return !bad;
}

/* --------------------------------------------------------------- cases */

/* A's QP 0x11 with B's 0x22; A's 0x12 with C's 0x22 (same remote QPN) */
static const struct qpair QB = { 0, A4, B4, 0x11, 0x22, 1 };
static const struct qpair QC = { 0, A4, C4, 0x12, 0x22, 1 };
static const struct qpair QB6 = { 1, A6, B6, 0x31, 0x42, 1 };

/*
 * The peer's first packet to us (its own request) creates the flow: from
 * then on our requests are tracked. Its bytes: SEND_ONLY.
 */
static void open_flow(const struct qpair *q, uint64_t t)
{
	rx(q, t, ROCECC_OP_RC_SEND_ONLY, 0x777, 0);
}


/*
 * Drain the events ring: how many there were, and how many announced @q's
 * flow (FLOWMON_EV_FLOW, peer and remote QPN) and @q's pending entry
 * (FLOWMON_EV_PENDING, peer and local QPN).
 */
struct ev_count {
	unsigned int n, flow, pend;
	const struct qpair *q;
	struct flowmon_key k;
};

static int ev_cb(void *ctx, void *data, size_t len)
{
	struct ev_count *c = ctx;
	const struct flowmon_event *e = data;

	if (len < sizeof(*e))
		return 0;
	c->n++;
	if (e->ifindex != c->k.ifindex || memcmp(e->peer, c->k.peer, 16))
		return 0;
	c->flow += e->kind == FLOWMON_EV_FLOW && e->qpn == c->q->rqpn;
	c->pend += e->kind == FLOWMON_EV_PENDING && e->qpn == c->q->lqpn;
	return 0;
}

static struct ev_count events(const struct qpair *q)
{
	struct ev_count c = { .q = q };
	struct ring_buffer *rb;

	flow_key(q, &c.k);
	rb = ring_buffer__new(fd_events, ev_cb, &c, NULL);
	if (rb) {
		ring_buffer__consume(rb);
		ring_buffer__free(rb);
	}
	return c;
}

/* The pending entry of @q's local QP, read under its lock */
static int get_pend(const struct qpair *q, struct flowmon_pend *pd)
{
	struct flowmon_key k;
	struct flowmon_pkey pk;

	flow_key(q, &k);
	memcpy(pk.peer, k.peer, 16);
	pk.lqpn = q->lqpn;
	pk.ifindex = q->ifindex;
	memset(pd, 0, sizeof(*pd));
	if (bpf_map_lookup_elem_flags(fd_pend, &pk, pd, BPF_F_LOCK))
		return -errno;
	return 0;
}

static struct flowmon_flow fl, fl2;	/* big: not on the stack */
static struct flowmon_pend pd;

/*
 * Counting from the first packet: a QP's requests leave and its ACKs come
 * back before the daemon knows it. Egress makes the flow from the key on
 * the wire, ingress keeps counters and responses in a pending entry, and
 * once the daemon resolves the QP (qps entry marked MERGE) the next packet
 * folds the entry in: every byte counted, every message timed exactly.
 */
static void test_first(void)
{
	const struct qpair *q = &QB;
	uint32_t wr = bytes(q, ROCECC_OP_RC_WRITE_ONLY);
	uint32_t ack = bytes(q, ROCECC_OP_RC_ACK);
	struct flowmon_stats st;
	struct ev_count ev;

	reset();
	tx(q, 1000, ROCECC_OP_RC_WRITE_ONLY, 100, 1);
	rx(q, 2000, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	tx(q, 3000, ROCECC_OP_RC_WRITE_ONLY, 101, 1);
	get_stats(&st);
	check_ctrs("unknown QP: nothing counted as unknown", NULL, &st, "%s",
		   "");
	tap_eq(get_flow(q, &fl), 0, "unknown QP: the first request made flow (peer, rqpn 0x22, ifindex 1)");
	check_ctrs("unknown QP: the flow", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u tx_ackreq=2 tx_msgs=2 lqpn=0 pending=2",
		   2 * wr);
	tap_ok(fl.first_ns == 1000 && fl.last_ns == 3000,
	       "unknown QP: the flow's first and last packet times");
	tap_eq(get_pend(q, &pd), 0, "unknown QP: its ACK is pending under (peer, lqpn 0x11, ifindex 1)");
	tap_ok(pd.rx_pkts == 1 && pd.rx_bytes == ack && pd.rx_acks == 1 &&
	       pd.nresp == 1 && pd.resp[0].t == 2000 &&
	       pd.resp[0].psn == 100 && pd.resp[0].opcode == ROCECC_OP_RC_ACK &&
	       pd.resp[0].syndrome == AETH_ACK && !pd.merged,
	       "unknown QP: pending counters and the response kept (time, PSN, opcode, syndrome)");
	ev = events(q);
	tap_ok(ev.n == 2 && ev.flow == 1 && ev.pend == 1,
	       "events: new flow (peer, rqpn 0x22), new pending (peer, lqpn 0x11)");

	/* The daemon resolves the QP; the next ACK folds the entry in */
	add_qp_flags(q, FLOWMON_QP_MERGE);
	rx(q, 4500, ROCECC_OP_RC_ACK, 101, AETH_ACK);
	get_flow(q, &fl);
	get_stats(&st);
	check_ctrs("resolved: merged", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=2 tx_ackreq=2 tx_msgs=2 lqpn=%u pending=0",
		   2 * wr, 2 * ack, q->lqpn);
	HIST("resolved: both RTTs exact, the first replayed", &fl.rtt, 1000,
	     1500);
	HIST("resolved: both messages timed exactly", &fl.mct, 1000, 1500);
	check_ctrs("resolved: stats", NULL, &st, "pend_merged=1");
	tap_eq(get_pend(q, &pd), -ENOENT, "resolved: the pending entry is gone");
	tap_eq(qp_flags(q), 0, "resolved: MERGE cleared in qps");
	tap_ok(fl.first_ns == 1000 && fl.last_ns == 4500,
	       "resolved: first and last packet times");
	tap_eq(events(q).n, 0, "resolved: no new event");

	/*
	 * Resolved without MERGE: the daemon writes a QP's qps entry when it
	 * learns the QP and marks it for the merge only later in its round
	 * (rd_resolve()), or a round later. The flow's first resolved packet
	 * folds the entry in anyway, before its own response: applied first,
	 * the coalesced ACK would complete 100 at 4000 (3000, its true time
	 * 1000) and the replay after it would find nothing left.
	 */
	reset();
	tx(q, 1000, ROCECC_OP_RC_WRITE_ONLY, 100, 1);
	rx(q, 2000, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	tx(q, 3000, ROCECC_OP_RC_WRITE_ONLY, 101, 1);
	add_qp(q);
	rx(q, 4000, ROCECC_OP_RC_ACK, 101, AETH_ACK);
	get_flow(q, &fl);
	get_stats(&st);
	HIST("unmarked: each message done at its own ACK", &fl.mct, 1000,
	     1000);
	check_ctrs("unmarked: folded in by the first resolved packet", &fl,
		   NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=2 tx_ackreq=2 tx_msgs=2 lqpn=%u pending=0",
		   2 * wr, 2 * ack, q->lqpn);
	check_ctrs("unmarked: stats", NULL, &st, "pend_merged=1");
	tap_eq(get_pend(q, &pd), -ENOENT, "unmarked: the entry is gone");

	/* The daemon's mark comes after the fold: nothing counted twice */
	add_qp_flags(q, FLOWMON_QP_MERGE);
	rx_ecn(q, 5000, ROCECC_OP_RC_SEND_ONLY, 7, 0, ROCECC_ECN_CE);
	get_flow(q, &fl);
	check_ctrs("late mark: finds nothing to fold", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=3 rx_bytes=%u rx_ce=1 rx_acks=2 tx_ackreq=2 tx_msgs=2 lqpn=%u pending=0",
		   2 * wr, 2 * ack + bytes(q, ROCECC_OP_RC_SEND_ONLY),
		   q->lqpn);
	HIST("late mark: nothing timed twice", &fl.mct, 1000, 1000);
	tap_eq(qp_flags(q), 0, "late mark: MERGE cleared in qps");
}

/*
 * The daemon's round as t_roceccd.t's busy run meets it: 16 KB writes of
 * four packets, four in flight (rocegen --depth 4), back to back. Their
 * ACKs come back before the daemon knows the QP (pending), then after it
 * wrote the qps entry but before it marked it MERGE, then after the mark.
 * Each message must be timed from its first packet out to the ACK that
 * covers its last PSN, whatever the daemon's timing: the wire interval
 * lies inside rocegen's post-to-completion interval.
 */
static void tx_msg(const struct qpair *q, uint64_t t, uint32_t psn)
{
	tx(q, t, ROCECC_OP_RC_WRITE_FIRST, psn, 0);
	tx(q, t + 100, ROCECC_OP_RC_WRITE_MIDDLE, psn + 1, 0);
	tx(q, t + 200, ROCECC_OP_RC_WRITE_MIDDLE, psn + 2, 0);
	tx(q, t + 300, ROCECC_OP_RC_WRITE_LAST, psn + 3, 1);
}

static void test_resolve_round(void)
{
	const struct qpair *q = &QB;
	uint32_t p = 0xfffff0;	/* the PSNs wrap on the way */
	struct flowmon_stats st;
	unsigned int i;

	reset();
	for (i = 0; i < 4; i++)			/* 0..3 posted at once */
		tx_msg(q, 1000 + 400 * i, p + 4 * i);
	rx(q, 3000, ROCECC_OP_RC_ACK, p + 3, AETH_ACK);		/* 0: 2000 */
	tx_msg(q, 3100, p + 16);				/* 4 */
	rx(q, 3500, ROCECC_OP_RC_ACK, p + 7, AETH_ACK);		/* 1: 2100 */
	tx_msg(q, 3600, p + 20);				/* 5 */
	add_qp(q);			/* the daemon learnt the QP */
	rx(q, 4000, ROCECC_OP_RC_ACK, p + 11, AETH_ACK);	/* 2: 2200 */
	tx_msg(q, 4100, p + 24);				/* 6 */
	add_qp_flags(q, FLOWMON_QP_MERGE);	/* ... and marked it */
	rx(q, 4500, ROCECC_OP_RC_ACK, p + 15, AETH_ACK);	/* 3: 2300 */
	rx(q, 5000, ROCECC_OP_RC_ACK, p + 23, AETH_ACK);	/* 4, 5 */
	rx(q, 5500, ROCECC_OP_RC_ACK, p + 27, AETH_ACK);	/* 6: 1400 */
	get_flow(q, &fl);
	get_stats(&st);
	HIST("daemon's round: every message from its first packet to its ACK",
	     &fl.mct, 2000, 2100, 2200, 2300, 1900, 1400, 1400);
	HIST("daemon's round: every RTT but 4's (coalesced)", &fl.rtt, 1700,
	     1800, 1900, 2000, 1100, 1100);
	check_ctrs("daemon's round", &fl, NULL,
		   "tx_pkts=28 tx_bytes=%u rx_pkts=6 rx_bytes=%u rx_acks=6 tx_ackreq=7 tx_msgs=7 lqpn=%u pending=0",
		   7 * (bytes(q, ROCECC_OP_RC_WRITE_FIRST) +
			2 * bytes(q, ROCECC_OP_RC_WRITE_MIDDLE) +
			bytes(q, ROCECC_OP_RC_WRITE_LAST)),
		   6 * bytes(q, ROCECC_OP_RC_ACK), q->lqpn);
	check_ctrs("daemon's round: stats", NULL, &st, "pend_merged=1");
	tap_eq(get_pend(q, &pd), -ENOENT, "daemon's round: the entry is gone");
}

/* UD packets (a CM MAD to QP 1) belong to no pair: nothing is made */
static void test_ud(void)
{
	struct qpair q = QB;
	struct pkt k = { .src = A4, .dst = B4, .op = ROCECC_OP_UD_SEND_ONLY,
			 .qpn = 1, .payload = 8 };
	struct flowmon_stats st;
	uint32_t n = ip_len(&k);

	reset();
	run_pkt(1, 1, &k, 1000);
	k.src = B4;
	k.dst = A4;
	run_pkt(0, 1, &k, 2000);
	get_stats(&st);
	check_ctrs("UD both ways: unknown", NULL, &st,
		   "tx_unknown_pkts=1 tx_unknown_bytes=%u rx_unknown_pkts=1 rx_unknown_bytes=%u",
		   n, n);
	q.lqpn = 1;
	q.rqpn = 1;
	tap_ok(count_flows() == 0 && get_pend(&q, &pd) == -ENOENT,
	       "UD: no flow, nothing pending");
}

/*
 * A stranger's packets to QPs that do not exist: the pending map holds
 * what it holds, the rest is counted as unknown; a pending entry keeps
 * FLOWMON_PEND_RESPS responses and counts the others.
 */
static void test_pend_bounds(void)
{
	struct flowmon *big = skel, *small;
	uint32_t ack = bytes(&QB, ROCECC_OP_RC_ACK);
	struct flowmon_stats st;
	struct qpair q[3];
	uint32_t i;

	reset();
	for (i = 0; i < FLOWMON_PEND_RESPS + 2; i++)
		rx(&QB, 1000 + i, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	get_pend(&QB, &pd);
	tap_ok(pd.rx_pkts == FLOWMON_PEND_RESPS + 2 &&
	       pd.nresp == FLOWMON_PEND_RESPS && pd.resp_lost == 2,
	       "%u ACKs pending: all counted, %u kept, 2 lost",
	       FLOWMON_PEND_RESPS + 2, FLOWMON_PEND_RESPS);
	add_qp_flags(&QB, FLOWMON_QP_MERGE);
	rx(&QB, 9000, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	get_stats(&st);
	check_ctrs("merged: the lost responses counted", NULL, &st,
		   "pend_merged=1 pend_resp_lost=2");

	small = flowmon__open();
	if (!small) {
		tap_ok(0, "small pending map: open: %s", strerror(errno));
		return;
	}
	small->rodata->flowmon_test_clock = true;
	bpf_map__set_max_entries(small->maps.pending, 2);
	if (!tap_ok(!flowmon__load(small), "a copy with 2 pending entries loads")) {
		flowmon__destroy(small);
		return;
	}
	use(small);
	for (i = 0; i < 3; i++) {
		q[i] = QB;
		q[i].lqpn = 0x300 + i;
		rx(&q[i], 100, ROCECC_OP_RC_ACK, 5, AETH_ACK);
	}
	get_stats(&st);
	check_ctrs("3 unknown QPs, room for 2", NULL, &st,
		   "pend_full=1 rx_unknown_pkts=1 rx_unknown_bytes=%u", ack);
	tap_ok(get_pend(&q[0], &pd) == 0 && get_pend(&q[1], &pd) == 0 &&
	       get_pend(&q[2], &pd) == -ENOENT,
	       "the first two pending, the third not");
	use(big);
	flowmon__destroy(small);
}

static void test_basic(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_WRITE_ONLY, 100, 1);
	rx(q, 6000, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	get_flow(q, &fl);
	check_ctrs("write, ACK", &fl, NULL,
		   "tx_pkts=1 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=1 tx_msgs=1 pending=0 lqpn=%u",
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) + bytes(q, ROCECC_OP_RC_ACK),
		   q->lqpn);
	HIST("write, ACK: RTT", &fl.rtt, 5000);
	HIST("write, ACK: MCT", &fl.mct, 5000);
	/* the anchor: 5000 = 19 * 256 + 136, octave 2^12, width 256 */
	tap_ok(fl.rtt.bucket[147] == 1 && fl.rtt.sum_ns == 5000,
	       "write, ACK: 5000 ns is in bucket 147 ([4864, 5119])");

	/* A duplicate ACK, as rxe sends for a duplicate request: nothing */
	rx(q, 9000, ROCECC_OP_RC_ACK, 100, AETH_ACK);
	get_flow(q, &fl2);
	tap_ok(!memcmp(&fl.rtt, &fl2.rtt, sizeof(fl.rtt)) &&
	       !memcmp(&fl.mct, &fl2.mct, sizeof(fl.mct)) &&
	       fl2.rx_acks == 2, "duplicate ACK: counted, no sample");

	/* Multi-packet message: first packet to the ACK of the last */
	tx(q, 20000, ROCECC_OP_RC_WRITE_FIRST, 101, 0);
	tx(q, 21000, ROCECC_OP_RC_WRITE_MIDDLE, 102, 0);
	tx(q, 22000, ROCECC_OP_RC_WRITE_LAST, 103, 1);
	rx(q, 29000, ROCECC_OP_RC_ACK, 103, AETH_ACK);
	get_flow(q, &fl);
	HIST("3-packet write: RTT from its last packet", &fl.rtt, 5000, 7000);
	HIST("3-packet write: MCT from its first packet", &fl.mct, 5000, 9000);
	check_ctrs("3-packet write", &fl, NULL,
		   "tx_pkts=4 tx_bytes=%u rx_pkts=4 rx_bytes=%u rx_acks=3 tx_ackreq=2 tx_msgs=2 pending=0 lqpn=%u",
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY) +
		   bytes(q, ROCECC_OP_RC_WRITE_FIRST) +
		   bytes(q, ROCECC_OP_RC_WRITE_MIDDLE) +
		   bytes(q, ROCECC_OP_RC_WRITE_LAST),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   3 * bytes(q, ROCECC_OP_RC_ACK), q->lqpn);

	/* rxe's long message: AckReq every 64 packets, not only the last */
	tx(q, 30000, ROCECC_OP_RC_SEND_FIRST, 104, 0);
	tx(q, 31000, ROCECC_OP_RC_SEND_MIDDLE, 105, 1);
	tx(q, 32000, ROCECC_OP_RC_SEND_LAST, 106, 1);
	rx(q, 33500, ROCECC_OP_RC_ACK, 105, AETH_ACK);
	get_flow(q, &fl);
	check_ctrs("send, mid-message ACK", &fl, NULL,
		   "tx_pkts=7 tx_bytes=%u rx_pkts=5 rx_bytes=%u rx_acks=4 tx_ackreq=4 tx_msgs=3 pending=1 lqpn=%u",
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY) +
		   bytes(q, ROCECC_OP_RC_WRITE_FIRST) +
		   bytes(q, ROCECC_OP_RC_WRITE_MIDDLE) +
		   bytes(q, ROCECC_OP_RC_WRITE_LAST) +
		   bytes(q, ROCECC_OP_RC_SEND_FIRST) +
		   bytes(q, ROCECC_OP_RC_SEND_MIDDLE) +
		   bytes(q, ROCECC_OP_RC_SEND_LAST),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   4 * bytes(q, ROCECC_OP_RC_ACK), q->lqpn);
	rx(q, 36000, ROCECC_OP_RC_ACK, 106, AETH_ACK);
	get_flow(q, &fl);
	HIST("send: both AckReq packets sampled", &fl.rtt, 5000, 7000, 2500,
	     4000);
	HIST("send: one message, done at its last ACK", &fl.mct, 5000, 9000,
	     6000);
}

static void test_coalesced(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 300, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 301, 1);
	tx(q, 3000, ROCECC_OP_RC_SEND_ONLY, 302, 1);
	rx(q, 10000, ROCECC_OP_RC_ACK, 302, AETH_ACK);
	get_flow(q, &fl);
	HIST("coalesced ACK: RTT only for the PSN it carries", &fl.rtt, 7000);
	HIST("coalesced ACK: MCT for every message it covers", &fl.mct, 9000,
	     8000, 7000);
	check_ctrs("coalesced ACK", &fl, NULL,
		   "tx_pkts=3 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=3 tx_msgs=3 pending=0",
		   3 * bytes(q, ROCECC_OP_RC_SEND_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_ACK));

	/*
	 * The probes of 300 and 301 were never answered. 128 PSNs later
	 * their slots come round again: a request there without AckReq,
	 * then an ACK for it, must not take 300's probe for its own.
	 */
	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 300, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 301, 1);
	rx(q, 3000, ROCECC_OP_RC_ACK, 301, AETH_ACK);
	tx(q, 4000, ROCECC_OP_RC_WRITE_FIRST, 302, 0);
	tx(q, 5000, ROCECC_OP_RC_WRITE_LAST, 300 + FLOWMON_PROBES, 0);
	rx(q, 6000, ROCECC_OP_RC_ACK, 300 + FLOWMON_PROBES, AETH_ACK);
	get_flow(q, &fl);
	HIST("stale probe 128 PSNs back: not matched", &fl.rtt, 1000);
	HIST("stale probe 128 PSNs back: MCT", &fl.mct, 2000, 1000, 2000);
}

static void test_reorder(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 400, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 401, 1);
	rx(q, 5000, ROCECC_OP_RC_ACK, 401, AETH_ACK);
	rx(q, 6000, ROCECC_OP_RC_ACK, 400, AETH_ACK);	/* late */
	get_flow(q, &fl);
	HIST("out-of-order ACKs: each request sampled by its own ACK",
	     &fl.rtt, 3000, 5000);
	HIST("out-of-order ACKs: both messages done at the first ACK",
	     &fl.mct, 4000, 3000);
	check_ctrs("out-of-order ACKs", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=3 rx_bytes=%u rx_acks=2 tx_ackreq=2 tx_msgs=2 pending=0",
		   2 * bytes(q, ROCECC_OP_RC_SEND_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   2 * bytes(q, ROCECC_OP_RC_ACK));

	/* An ACK for a PSN never sent changes nothing */
	rx(q, 7000, ROCECC_OP_RC_ACK, 402, AETH_ACK);
	rx(q, 7000, ROCECC_OP_RC_ACK, 0x900000, AETH_ACK);
	get_flow(q, &fl2);
	tap_ok(!memcmp(&fl.rtt, &fl2.rtt, sizeof(fl.rtt)) &&
	       !memcmp(&fl.mct, &fl2.mct, sizeof(fl.mct)) &&
	       fl2.rx_pkts == fl.rx_pkts + 2 && fl2.rx_acks == fl.rx_acks + 2 &&
	       fl2.snd_una == fl.snd_una,
	       "ACKs for PSNs not sent (next, and 2^23 away): counted, nothing else");
}

static void test_wrap(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 0xfffffe, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 0xffffff, 1);
	tx(q, 3000, ROCECC_OP_RC_SEND_ONLY, 0x000000, 1);
	tx(q, 4000, ROCECC_OP_RC_SEND_ONLY, 0x000001, 1);
	/* the sender is past the wrap; the ACK of a PSN before it */
	rx(q, 10000, ROCECC_OP_RC_ACK, 0xffffff, AETH_ACK);
	get_flow(q, &fl);
	HIST("PSN wrap: ACK 0xffffff, sent before the wrap, samples it",
	     &fl.rtt, 8000);
	HIST("PSN wrap: ... completes 0xfffffe and 0xffffff", &fl.mct, 9000,
	     8000);
	check_ctrs("PSN wrap: two messages left", &fl, NULL,
		   "tx_pkts=4 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=4 tx_msgs=4 pending=2",
		   4 * bytes(q, ROCECC_OP_RC_SEND_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_ACK));
	rx(q, 11000, ROCECC_OP_RC_ACK, 0x000001, AETH_ACK);
	get_flow(q, &fl);
	HIST("PSN wrap: ACK 1 samples PSN 1", &fl.rtt, 8000, 7000);
	HIST("PSN wrap: ... completes 0 and 1", &fl.mct, 9000, 8000, 8000,
	     7000);
	/* 0xfffffe's own ACK, overtaken by the later ones, arrives last */
	rx(q, 12000, ROCECC_OP_RC_ACK, 0xfffffe, AETH_ACK);
	get_flow(q, &fl2);
	HIST("PSN wrap: the late ACK of 0xfffffe samples it", &fl2.rtt, 8000,
	     7000, 11000);
	tap_ok(!memcmp(&fl.mct, &fl2.mct, sizeof(fl.mct)),
	       "PSN wrap: ... and completes nothing more");

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_WRITE_FIRST, 0xffffff, 0);
	tx(q, 2000, ROCECC_OP_RC_WRITE_LAST, 0x000000, 1);
	rx(q, 5000, ROCECC_OP_RC_ACK, 0xffffff, AETH_ACK);	/* no */
	rx(q, 6000, ROCECC_OP_RC_ACK, 0x000000, AETH_ACK);
	get_flow(q, &fl);
	HIST("message across the wrap: RTT", &fl.rtt, 4000);
	HIST("message across the wrap: MCT, not done by the ACK of its first packet",
	     &fl.mct, 5000);
}

static void test_retrans(void)
{
	const struct qpair *q = &QB;
	uint32_t s = bytes(q, ROCECC_OP_RC_SEND_ONLY);

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 500, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 501, 1);
	/* ACK timeout: go back to 500 */
	tx(q, 50000, ROCECC_OP_RC_SEND_ONLY, 500, 1);
	tx(q, 50100, ROCECC_OP_RC_SEND_ONLY, 501, 1);
	rx(q, 53000, ROCECC_OP_RC_ACK, 500, AETH_ACK);
	rx(q, 53100, ROCECC_OP_RC_ACK, 501, AETH_ACK);
	get_flow(q, &fl);
	HIST_EMPTY("retransmitted: no RTT (Karn)", &fl.rtt);
	HIST("retransmitted: MCT from the first transmission", &fl.mct, 52000,
	     51100);
	check_ctrs("retransmitted", &fl, NULL,
		   "tx_pkts=4 tx_bytes=%u rx_pkts=3 rx_bytes=%u rx_acks=2 tx_ackreq=2 tx_msgs=2 tx_retrans=2 rtt_karn=2 pending=0",
		   4 * s, s + 2 * bytes(q, ROCECC_OP_RC_ACK));

	/* A new request after the retransmissions is timed again */
	tx(q, 60000, ROCECC_OP_RC_SEND_ONLY, 502, 1);
	rx(q, 61000, ROCECC_OP_RC_ACK, 502, AETH_ACK);
	get_flow(q, &fl);
	HIST("after retransmission: new request sampled", &fl.rtt, 1000);
}

static void test_nak(void)
{
	const struct qpair *q = &QB;
	uint32_t s = bytes(q, ROCECC_OP_RC_SEND_ONLY);
	uint32_t a = bytes(q, ROCECC_OP_RC_ACK);

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 600, 1);
	tx(q, 2000, ROCECC_OP_RC_SEND_ONLY, 601, 1);
	tx(q, 3000, ROCECC_OP_RC_SEND_ONLY, 602, 1);
	/* 601 lost: the responder expects it, implicitly acks 600 */
	rx(q, 5000, ROCECC_OP_RC_ACK, 601, AETH_NAK_SEQ);
	get_flow(q, &fl);
	HIST_EMPTY("NAK sequence error: no RTT sample", &fl.rtt);
	HIST("NAK sequence error: completes the message before it", &fl.mct,
	     4000);
	check_ctrs("NAK sequence error", &fl, NULL,
		   "tx_pkts=3 tx_bytes=%u rx_pkts=2 rx_bytes=%u tx_ackreq=3 tx_msgs=3 rx_nak_seq=1 pending=2",
		   3 * s, s + a);
	tx(q, 6000, ROCECC_OP_RC_SEND_ONLY, 601, 1);
	tx(q, 6100, ROCECC_OP_RC_SEND_ONLY, 602, 1);
	rx(q, 9000, ROCECC_OP_RC_ACK, 602, AETH_ACK);
	get_flow(q, &fl);
	HIST_EMPTY("NAK, go back: still no RTT (both resent)", &fl.rtt);
	HIST("NAK, go back: MCT includes the loss", &fl.mct, 4000, 7000,
	     6000);
	check_ctrs("NAK, go back", &fl, NULL,
		   "tx_pkts=5 tx_bytes=%u rx_pkts=3 rx_bytes=%u tx_ackreq=3 tx_msgs=3 rx_nak_seq=1 rx_acks=1 tx_retrans=2 rtt_karn=2 pending=0",
		   5 * s, s + 2 * a);

	/* RNR NAK for 700: nothing completes, the retry does */
	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 700, 1);
	rx(q, 3000, ROCECC_OP_RC_ACK, 700, AETH_RNR);
	get_flow(q, &fl);
	HIST_EMPTY("RNR NAK: no MCT (the message is not done)", &fl.mct);
	tx(q, 10000, ROCECC_OP_RC_SEND_ONLY, 700, 1);
	rx(q, 12000, ROCECC_OP_RC_ACK, 700, AETH_ACK);
	get_flow(q, &fl);
	HIST_EMPTY("RNR NAK, retry: no RTT", &fl.rtt);
	HIST("RNR NAK, retry: MCT includes the RNR wait", &fl.mct, 11000);
	check_ctrs("RNR NAK", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=3 rx_bytes=%u tx_ackreq=1 tx_msgs=1 rx_rnr_nak=1 rx_acks=1 tx_retrans=1 rtt_karn=1 pending=0",
		   2 * s, s + 2 * a);

	/* A fatal NAK (remote access error) is counted and acks before it */
	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_WRITE_ONLY, 800, 1);
	tx(q, 2000, ROCECC_OP_RC_WRITE_ONLY, 801, 1);
	rx(q, 4000, ROCECC_OP_RC_ACK, 801, AETH_NAK_ACC);
	get_flow(q, &fl);
	HIST_EMPTY("remote access NAK: no RTT", &fl.rtt);
	HIST("remote access NAK: the write before it completes", &fl.mct,
	     3000);
	check_ctrs("remote access NAK", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=2 rx_bytes=%u tx_ackreq=2 tx_msgs=2 rx_nak_other=1 pending=1",
		   2 * bytes(q, ROCECC_OP_RC_WRITE_ONLY), s + a);
}

static void test_read_atomic(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	open_flow(q, 100);
	/* a 3-packet read: PSNs 900..902 */
	tx(q, 1000, ROCECC_OP_RC_READ_REQUEST, 900, 1);
	rx(q, 4000, ROCECC_OP_RC_READ_RESP_FIRST, 900, AETH_ACK);
	rx(q, 4500, ROCECC_OP_RC_READ_RESP_MIDDLE, 901, 0);
	get_flow(q, &fl);
	HIST("read: RTT to its first response", &fl.rtt, 3000);
	HIST_EMPTY("read: not done before its last response", &fl.mct);
	rx(q, 5000, ROCECC_OP_RC_READ_RESP_LAST, 902, AETH_ACK);
	tx(q, 6000, ROCECC_OP_RC_WRITE_ONLY, 903, 1);
	rx(q, 8000, ROCECC_OP_RC_ACK, 903, AETH_ACK);
	get_flow(q, &fl);
	HIST("read, write: RTT", &fl.rtt, 3000, 2000);
	HIST("read, write: MCT", &fl.mct, 4000, 2000);
	check_ctrs("read, write", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=5 rx_bytes=%u rx_acks=1 tx_ackreq=2 tx_msgs=2 pending=0",
		   bytes(q, ROCECC_OP_RC_READ_REQUEST) +
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_READ_RESP_FIRST) +
		   bytes(q, ROCECC_OP_RC_READ_RESP_MIDDLE) +
		   bytes(q, ROCECC_OP_RC_READ_RESP_LAST) +
		   bytes(q, ROCECC_OP_RC_ACK));

	/*
	 * A read holds back what follows it, as at the requester: its
	 * responses lost, the write's ACK completes neither; the retried
	 * read's responses complete the read, the write's next ACK the
	 * write.
	 */
	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 0x10, 1);
	tx(q, 2000, ROCECC_OP_RC_READ_REQUEST, 0x11, 1);	/* 0x11..12 */
	tx(q, 3000, ROCECC_OP_RC_WRITE_ONLY, 0x13, 1);
	rx(q, 6000, ROCECC_OP_RC_ACK, 0x13, AETH_ACK);
	get_flow(q, &fl);
	HIST("read, responses lost: the send before it completes", &fl.mct,
	     5000);
	check_ctrs("read, responses lost", &fl, NULL,
		   "tx_pkts=3 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=3 tx_msgs=3 pending=2",
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_READ_REQUEST) +
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_ACK));
	tx(q, 20000, ROCECC_OP_RC_READ_REQUEST, 0x11, 1);
	tx(q, 20100, ROCECC_OP_RC_WRITE_ONLY, 0x13, 1);
	rx(q, 22000, ROCECC_OP_RC_READ_RESP_FIRST, 0x11, AETH_ACK);
	rx(q, 22500, ROCECC_OP_RC_READ_RESP_LAST, 0x12, AETH_ACK);
	get_flow(q, &fl);
	HIST("read retried: done at its last response", &fl.mct, 5000,
	     20500);
	rx(q, 23000, ROCECC_OP_RC_ACK, 0x13, AETH_ACK);
	get_flow(q, &fl);
	HIST("read retried: the write after it, at its next ACK", &fl.mct,
	     5000, 20500, 20000);
	HIST("read retried: RTT only from the write's first ACK (the send's ACK was coalesced, the rest resent)",
	     &fl.rtt, 3000);

	/* Atomics: done by the ATOMIC_ACK of their PSN */
	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_FETCH_ADD, 0x50, 1);
	tx(q, 1500, ROCECC_OP_RC_CMP_SWAP, 0x51, 1);
	rx(q, 3000, ROCECC_OP_RC_ATOMIC_ACK, 0x50, AETH_ACK);
	get_flow(q, &fl);
	HIST("atomic: RTT", &fl.rtt, 2000);
	HIST("atomic: MCT, the second not done by the first's ATOMIC_ACK",
	     &fl.mct, 2000);
	rx(q, 4000, ROCECC_OP_RC_ATOMIC_ACK, 0x51, AETH_ACK);
	get_flow(q, &fl);
	HIST("atomic: second", &fl.mct, 2000, 2500);
	check_ctrs("atomics", &fl, NULL,
		   "tx_pkts=2 tx_bytes=%u rx_pkts=3 rx_bytes=%u tx_ackreq=2 tx_msgs=2 pending=0",
		   bytes(q, ROCECC_OP_RC_FETCH_ADD) +
		   bytes(q, ROCECC_OP_RC_CMP_SWAP),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   2 * bytes(q, ROCECC_OP_RC_ATOMIC_ACK));
}

static void test_ce_cnp(void)
{
	const struct qpair *q = &QB;

	reset();
	add_qp(q);
	rx_ecn(q, 1000, ROCECC_OP_RC_SEND_ONLY, 1, 0, ROCECC_ECN_CE);
	rx_ecn(q, 2000, ROCECC_OP_RC_SEND_ONLY, 2, 0, ROCECC_ECN_ECT0);
	rx_ecn(q, 2100, ROCECC_OP_RC_SEND_ONLY, 3, 0, ROCECC_ECN_ECT1);
	rx_ecn(q, 2200, ROCECC_OP_RC_SEND_ONLY, 4, 0, ROCECC_ECN_NOT_ECT);
	rx_ecn(q, 3000, ROCECC_OP_RC_SEND_ONLY, 5, 0, ROCECC_ECN_CE);
	tx(q, 3500, ROCECC_OP_CNP, 0, 0);	/* rocecc.ko's CNP to B */
	rx(q, 4000, ROCECC_OP_CNP, 0, 0);	/* B's CNP to us */
	get_flow(q, &fl);
	check_ctrs("CE (2 of 5) and CNPs", &fl, NULL,
		   "tx_pkts=1 tx_bytes=%u rx_pkts=6 rx_bytes=%u rx_ce=2 tx_cnp=1 rx_cnp=1 lqpn=%u",
		   bytes(q, ROCECC_OP_CNP),
		   5 * bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_CNP), q->lqpn);
	HIST_EMPTY("CE and CNPs: no latency", &fl.rtt);
}

/* First non-loopback netdev, or 0 */
static uint32_t other_ifindex(void)
{
	struct if_nameindex *ni = if_nameindex(), *p;
	uint32_t idx = 0;

	for (p = ni; p && p->if_index; p++)
		if (p->if_index > 1) {
			idx = p->if_index;
			break;
		}
	if (ni)
		if_freenameindex(ni);
	return idx;
}

static void test_pairing(void)
{
	uint32_t other = other_ifindex();
	struct qpair qb2 = QB;
	struct flowmon_stats st;

	/* 0x11 <-> B:0x22 and 0x12 <-> C:0x22: same remote QPN */
	reset();
	add_qp(&QB);
	add_qp(&QC);
	open_flow(&QB, 100);
	open_flow(&QC, 200);
	tap_eq(count_flows(), 2, "same rqpn, two peers: two flows");
	tx(&QC, 1000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
	rx(&QC, 4000, ROCECC_OP_RC_ACK, 10, AETH_ACK);
	tx(&QB, 1000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
	rx(&QB, 2000, ROCECC_OP_RC_ACK, 10, AETH_ACK);
	get_flow(&QC, &fl);
	get_flow(&QB, &fl2);
	HIST("peer C's flow: its own RTT", &fl.rtt, 3000);
	HIST("peer B's flow: its own RTT", &fl2.rtt, 1000);
	tap_ok(fl.lqpn == QC.lqpn && fl2.lqpn == QB.lqpn &&
	       fl.tx_pkts == 1 && fl2.tx_pkts == 1 && fl.rx_pkts == 2 &&
	       fl2.rx_pkts == 2, "each flow: its local QP, its packets");

	/* The same local QPN on another netdev is another QP */
	if (other) {
		struct qpair qo = QB;

		qo.ifindex = other;
		qo.rqpn = 0x99;
		add_qp(&qo);
		open_flow(&qo, 300);
		tx(&qo, 5000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
		rx(&qo, 5500, ROCECC_OP_RC_ACK, 10, AETH_ACK);
		get_flow(&qo, &fl);
		get_flow(&QB, &fl2);
		tap_ok(count_flows() == 3 && fl.rx_pkts == 2 &&
		       fl2.rx_pkts == 2 && fl.lqpn == QB.lqpn,
		       "lqpn 0x11 on ifindex %u: its own flow, B's untouched",
		       other);
		HIST("the other netdev's flow: RTT", &fl.rtt, 500);
	} else {
		tap_ok(1, "# SKIP no netdev besides lo for the ifindex test");
		tap_ok(1, "# SKIP no netdev besides lo for the ifindex test");
	}

	/*
	 * B's QP 0x22 now pairs with our new QP 0x13 (the daemon replaced
	 * 0x11's entry): the flow starts afresh.
	 */
	reset();
	add_qp(&QB);
	open_flow(&QB, 100);
	tx(&QB, 1000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
	del_qp(&QB);
	qb2.lqpn = 0x13;
	add_qp(&qb2);
	rx(&qb2, 2000, ROCECC_OP_RC_ACK, 10, AETH_ACK);
	get_flow(&QB, &fl);
	get_stats(&st);
	check_ctrs("remote QP reused by a new local QP: fresh flow", &fl,
		   NULL, "rx_pkts=1 rx_bytes=%u rx_acks=1 lqpn=%u",
		   bytes(&QB, ROCECC_OP_RC_ACK), qb2.lqpn);
	check_ctrs("remote QP reused: stats", NULL, &st, "flow_replaced=1");
	HIST_EMPTY("remote QP reused: the old QP's request is not matched",
		   &fl.rtt);
}

static void test_ipv6(void)
{
	const struct qpair *q = &QB6;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_WRITE_ONLY, 5, 1);
	rx(q, 3500, ROCECC_OP_RC_ACK, 5, AETH_ACK);
	tap_eq(get_flow(q, &fl), 0, "IPv6: flow keyed by the peer's IPv6 address");
	HIST("IPv6: RTT", &fl.rtt, 2500);
	HIST("IPv6: MCT", &fl.mct, 2500);
	check_ctrs("IPv6", &fl, NULL,
		   "tx_pkts=1 tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=1 tx_msgs=1 lqpn=%u",
		   bytes(q, ROCECC_OP_RC_WRITE_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_ACK), q->lqpn);
}

/* More in flight than the probe table and the message ring hold */
static void test_overrun(void)
{
	const struct qpair *q = &QB;
	static uint64_t mct[FLOWMON_MSGS];
	const uint32_t n = FLOWMON_MSGS + 1, base = 0x1000;
	uint32_t i;

	reset();
	add_qp(q);
	open_flow(q, 100);
	for (i = 0; i < n; i++)
		tx(q, 1000 * (i + 1), ROCECC_OP_RC_SEND_ONLY, base + i, 1);
	rx(q, 1000000, ROCECC_OP_RC_ACK, base + n - 1, AETH_ACK);
	get_flow(q, &fl);
	for (i = 0; i < FLOWMON_MSGS; i++)
		mct[i] = 1000000 - 1000 * (i + 1);
	HIST("129 in flight: RTT of the last", &fl.rtt, 1000000 - 1000 * n);
	check_hist("129 in flight: one coalesced ACK completes the 128 the ring held",
		   &fl.mct, FLOWMON_MSGS, mct);
	check_ctrs("129 in flight", &fl, NULL,
		   "tx_pkts=%u tx_bytes=%u rx_pkts=2 rx_bytes=%u rx_acks=1 tx_ackreq=%u tx_msgs=%u rtt_overrun=1 mct_overrun=1 pending=0",
		   n, n * bytes(q, ROCECC_OP_RC_SEND_ONLY),
		   bytes(q, ROCECC_OP_RC_SEND_ONLY) +
		   bytes(q, ROCECC_OP_RC_ACK), n, n);
}

/*
 * Malformed and truncated RoCE packets, both ways: the flow never changes.
 * Those the parser followed as far as UDP port 4791 are counted; those it
 * gave up on earlier are not (nothing says they were RoCE).
 */
enum { M_IPLEN, M_CUT_BTH, M_UDPLEN, M_TVER, M_CUT_AETH };

static const struct {
	const char *name;
	int what;
	int counted;
} malformed[] = {
	{ "IP total length 4 bytes beyond the frame",	M_IPLEN,    0 },
	{ "frame cut inside the BTH",			M_CUT_BTH,  0 },
	{ "UDP length not the IP payload length",	M_UDPLEN,   1 },
	{ "BTH transport version 1",			M_TVER,     1 },
	{ "ACK without room for its AETH",		M_CUT_AETH, 1 },
};

static void test_malformed(void)
{
	const struct qpair *q = &QB;
	struct flowmon_stats st, st2;
	uint8_t f[FRAME_MAX];
	unsigned int i;
	size_t len;
	int d;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
	get_flow(q, &fl);
	for (i = 0; i < ARRAY_SIZE(malformed); i++) {
		for (d = 0; d < 2; d++) {
			/* egress: our next request; ingress: its ACK */
			struct pkt k = { .src = d ? A4 : B4, .dst = d ? B4 : A4,
					 .op = d ? ROCECC_OP_RC_SEND_ONLY :
						   ROCECC_OP_RC_ACK,
					 .qpn = d ? q->rqpn : q->lqpn,
					 .psn = d ? 11 : 10, .ackreq = 1,
					 .syndrome = AETH_ACK };

			get_stats(&st);
			len = build(f, &k);
			switch (malformed[i].what) {
			case M_IPLEN:
				f[14 + 3] += 4;
				break;
			case M_CUT_BTH:
				len = 14 + 28 + 6;
				break;
			case M_UDPLEN:
				f[14 + 20 + 5] -= 4;
				break;
			case M_TVER:
				f[14 + 28 + 1] = 1;
				break;
			case M_CUT_AETH:
				/* lengths consistent, the AETH gone */
				f[14 + 3] -= 4;
				f[14 + 20 + 5] -= 4;
				len -= 4;
				break;
			}
			if (malformed[i].what == M_CUT_AETH && d)
				continue;	/* a send has no AETH */
			run_raw(d, f, len);
			get_flow(q, &fl2);
			get_stats(&st2);
			st.tx_malformed += d && malformed[i].counted;
			st.rx_malformed += !d && malformed[i].counted;
			tap_ok(!memcmp(&fl, &fl2, sizeof(fl)) &&
			       !memcmp(&st, &st2, sizeof(st)),
			       "%s, %s: flow unchanged, %s", malformed[i].name,
			       d ? "egress" : "ingress",
			       malformed[i].counted ? "counted malformed" :
						      "not counted");
		}
	}
	tap_eq(count_flows(), 1, "malformed: no flow created");
}

/* Packets that are not RoCE at all: nothing anywhere */
static void test_foreign(void)
{
	static const uint8_t arp[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1,
		0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1 };
	const struct qpair *q = &QB;
	struct pkt k = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_ACK,
			 .qpn = 0x11, .psn = 10, .syndrome = AETH_ACK };
	struct flowmon_stats st, st2;
	uint8_t f[FRAME_MAX];
	size_t len;
	int d;

	reset();
	add_qp(q);
	open_flow(q, 100);
	tx(q, 1000, ROCECC_OP_RC_SEND_ONLY, 10, 1);
	get_flow(q, &fl);
	get_stats(&st);

	for (d = 0; d < 2; d++) {
		run_raw(d, arp, sizeof(arp));
		/* the ACK as TCP, as UDP to 4790, and as an IPv4 fragment */
		len = build(f, &k);
		f[14 + 9] = 6;
		run_raw(d, f, len);
		len = build(f, &k);
		f[14 + 20 + 3] = 4790 & 0xff;
		run_raw(d, f, len);
		len = build(f, &k);
		f[14 + 6] = 0x20;		/* MF */
		run_raw(d, f, len);
		/* 802.1Q-tagged ARP, and an IPv6 ICMP echo */
		memset(f, 0, sizeof(f));
		memcpy(f + 12, "\x81\x00\x00\x03\x08\x06", 6);
		run_raw(d, f, 64);
		memset(f, 0, sizeof(f));
		memcpy(f + 12, "\x86\xdd\x60\x00\x00\x00\x00\x08\x3a\x40", 10);
		f[14 + 40] = 128;
		run_raw(d, f, 14 + 48);
	}
	get_flow(q, &fl2);
	get_stats(&st2);
	tap_ok(!memcmp(&fl, &fl2, sizeof(fl)) && !memcmp(&st, &st2, sizeof(st)) &&
	       count_flows() == 1,
	       "12 non-RoCE frames (ARP, TCP, UDP 4790, fragment, VLAN ARP, ICMPv6): flows and stats unchanged");
}

/* Run the helpers above against skeleton @s */
static void use(struct flowmon *s)
{
	skel = s;
	fd_eg = bpf_program__fd(s->progs.flowmon_egress);
	fd_in = bpf_program__fd(s->progs.flowmon_ingress);
	fd_flows = bpf_map__fd(s->maps.flows);
	fd_qps = bpf_map__fd(s->maps.qps);
	fd_stats = bpf_map__fd(s->maps.stats);
	fd_pend = bpf_map__fd(s->maps.pending);
	fd_events = bpf_map__fd(s->maps.events);
}

/* A copy of the programs whose flow table has room for 2 flows */
static void test_full(void)
{
	struct flowmon *big = skel, *small;
	struct flowmon_stats st;
	struct qpair q[3];
	int i;

	small = flowmon__open();
	if (!small) {
		tap_ok(0, "full table: open: %s", strerror(errno));
		return;
	}
	small->rodata->flowmon_test_clock = true;
	bpf_map__set_max_entries(small->maps.flows, 2);
	if (!tap_ok(!flowmon__load(small), "full table: a copy with 2 flows loads")) {
		flowmon__destroy(small);
		return;
	}
	use(small);
	for (i = 0; i < 3; i++) {
		q[i] = QB;
		q[i].lqpn = 0x100 + i;
		q[i].rqpn = 0x200 + i;
		add_qp(&q[i]);
		open_flow(&q[i], 100);
	}
	get_stats(&st);
	tap_eq(count_flows(), 2, "full table: 2 flows, the third not created");
	check_ctrs("full table", NULL, &st, "flow_full=1");
	tap_eq(get_flow(&q[2], &fl), -ENOENT, "full table: no flow for the third");
	use(big);
	flowmon__destroy(small);
}

static void diag_prog(const char *name, int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		tap_diag("%s: %u instructions, verifier walked %u", name,
			 info.xlated_prog_len / 8, info.verified_insns);
}

int main(void)
{
	int err;

	err = bpf_load_denied();
	if (err)
		return tap_skip_all("cannot load BPF programs: %s",
				    strerror(err));
	libbpf_set_print(bpf_test_log);
	skel = flowmon__open();
	if (!skel) {
		tap_ok(0, "flowmon.bpf.o opens: %s", strerror(errno));
		return tap_done();
	}
	skel->rodata->flowmon_test_clock = true;
	err = flowmon__load(skel);
	if (err) {
		tap_ok(0, "flowmon.bpf.o loads: %s", strerror(errno));
		fputs(bpf_test_log_buf, stdout);
		return tap_done();
	}
	tap_ok(1, "flowmon.bpf.o loads (the verifier accepts both programs)");
	use(skel);
	ncpus = libbpf_num_possible_cpus();
	diag_prog("flowmon_egress", fd_eg);
	diag_prog("flowmon_ingress", fd_in);

	test_first();
	test_resolve_round();
	test_ud();
	test_pend_bounds();
	test_basic();
	test_coalesced();
	test_reorder();
	test_wrap();
	test_retrans();
	test_nak();
	test_read_atomic();
	test_ce_cnp();
	test_pairing();
	test_ipv6();
	test_overrun();
	test_malformed();
	test_foreign();
	test_full();

	tap_eq(bad_run, 0, "%u runs: the kernel ran every one", runs);
	tap_eq(bad_ret, 0, "%u runs: every verdict TC_ACT_UNSPEC", runs);
	tap_eq(bad_data, 0, "%u runs: every frame left unchanged", runs);
	flowmon__destroy(skel);
	return tap_done();
}
