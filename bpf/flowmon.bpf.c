// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * flowmon: per-flow RoCEv2 wire telemetry, two TC (clsact) programs:
 * flowmon_egress on the egress hook and flowmon_ingress on the ingress
 * hook of each RoCE netdev. What a flow is, what is measured and how the
 * maps are read: flowmon.h.
 *
 * They observe and never act: packets are only read (bpf_skb_load_bytes()),
 * and both programs always return TC_ACT_UNSPEC, which passes the packet
 * and lets any filter after ours run, as if we were not there.
 *
 * Per packet: copy the headers into a per-CPU scratch buffer, parse them
 * with the shared parser (include/rocecc/roce.h), find the flow, then
 * update it under its bpf_spin_lock: egress and ingress of one flow run on
 * different CPUs (rxe transmits from its tasks, receives in softirq).
 * Inside the lock there are no helper or BPF-to-BPF calls (a 6.1 verifier
 * rule), so everything called there is __always_inline or a plain static
 * inline of the shared headers, which clang inlines.
 *
 * Latency samples are taken under the lock but added to the histograms
 * after it is dropped, with atomic adds: one coalesced ACK may complete up
 * to FLOWMON_MSGS messages, and a counted loop that also computed bucket
 * numbers would be walked by the verifier once per iteration and per path
 * (the loop counter is precise), about 200k instructions and seconds of
 * load time. So the locked loop only copies the samples into the per-CPU
 * scratch area, and bpf_loop() (5.17) bins them: its callback is verified
 * once. Per-CPU scratch is safe: TC programs run with bottom halves off
 * and do not nest on a CPU.
 *
 * Helpers: bpf_skb_load_bytes, bpf_map_lookup_elem, bpf_map_update_elem,
 * bpf_ktime_get_ns, bpf_spin_lock, bpf_spin_unlock (all 5.1 or older) and
 * bpf_loop (5.17); bounded loops (5.3) and atomic adds. Nothing newer, so
 * the same object loads on Debian's 6.1 and on current kernels.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <rocecc/roce.h>
#include <rocecc/psn.h>
#include <rocecc/hist.h>
#include "flowmon.h"

/* Headers are copied into this much room: all the parser reads */
#define FM_BUF_LEN	128
_Static_assert(FM_BUF_LEN >= ROCECC_PARSE_HDR_MAX, "parser needs more room");

/*
 * Extended PSNs of a flow start at 2^32 + the first PSN sent, so that
 * extending an older PSN never goes below zero and 0 can mean "nothing
 * sent yet".
 */
#define FM_EXT_BASE	(1ULL << 32)

_Static_assert(!(FLOWMON_PROBES & (FLOWMON_PROBES - 1)), "power of two");
_Static_assert(!(FLOWMON_MSGS & (FLOWMON_MSGS - 1)), "power of two");

/* Latency samples taken under a flow's lock, binned after it */
struct fm_samples {
	__u32 rtt_valid;
	__u32 n_mct;
	__u64 rtt;
	__u64 mct[FLOWMON_MSGS];	/* at most one per pending message */
};

struct fm_scratch {
	__u8 buf[FM_BUF_LEN];
	struct rocecc_pkt pkt;
	struct fm_samples smp;
};

/* The zeroed value new flows start from: too big for the stack */
struct fm_zero {
	__u8 b[sizeof(struct flowmon_flow)];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FLOWMON_MAX_QPS);
	__type(key, struct flowmon_qp_key);
	__type(value, struct flowmon_qp);
} qps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FLOWMON_MAX_FLOWS);
	__type(key, struct flowmon_key);
	__type(value, struct flowmon_flow);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flowmon_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fm_scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct fm_zero);
} zero_flow SEC(".maps");

/*
 * Test hook: a loader that sets flowmon_test_clock before load makes the
 * programs read the time from flowmon_test_now_ns, so that tests get exact
 * latencies. It is read-only data, so for everybody else the verifier
 * removes the branch.
 */
const volatile bool flowmon_test_clock;
__u64 flowmon_test_now_ns;

static __always_inline __u64 fm_now(void)
{
	if (flowmon_test_clock)
		return flowmon_test_now_ns;
	return bpf_ktime_get_ns();
}

static __always_inline struct flowmon_stats *fm_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * The extended PSN whose low 32 bits are @lo, at or before @ref and less
 * than 2^32 before it (pending probes and messages are within 2^23).
 */
static __always_inline __u64 fm_ext32(__u64 ref, __u32 lo)
{
	return ref - (__u32)((__u32)ref - lo);
}

/*
 * now - then, or 0 if the clock seems to have gone backwards, without a
 * branch (the sign of a difference below 2^63).
 */
static __always_inline __u64 fm_elapsed(__u64 now, __u64 then)
{
	__u64 d = now - then;

	return d & ((d >> 63) - 1);
}

/* Bin one sample: atomic adds, the lock may be held by somebody else. */
static __always_inline void fm_hist_add(struct flowmon_hist *h, __u64 ns)
{
	__u64 i = rocecc_hist_index(ns, FLOWMON_HIST_SUB_BITS,
				    FLOWMON_HIST_RANGE_BITS);

	/*
	 * hist.h keeps i in range; make the verifier see it too: a 64-bit
	 * compare on the very register that indexes (a 32-bit one makes
	 * clang compare a zero-extended copy, whose bound the verifier does
	 * not carry over).
	 */
	barrier_var(i);
	if (i >= FLOWMON_HIST_BUCKETS)
		i = FLOWMON_HIST_BUCKETS - 1;
	__sync_fetch_and_add(&h->bucket[i], 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
}

struct fm_bin_ctx {
	struct flowmon_hist *h;
	struct fm_samples *smp;
};

static long fm_bin_mct(__u32 i, void *data)
{
	struct fm_bin_ctx *c = data;

	fm_hist_add(c->h, c->smp->mct[i & (FLOWMON_MSGS - 1)]);
	return 0;
}

/* After the lock: bin what was sampled under it */
static __always_inline void fm_bin(struct flowmon_flow *f,
				   struct fm_samples *smp)
{
	struct fm_bin_ctx c = { .h = &f->mct, .smp = smp };
	__u32 n = smp->n_mct;

	if (smp->rtt_valid)
		fm_hist_add(&f->rtt, smp->rtt);
	if (n > FLOWMON_MSGS)
		n = FLOWMON_MSGS;
	if (n)
		bpf_loop(n, fm_bin_mct, &c, 0);
}

/* What an RC request opcode means to the requester's bookkeeping */
#define FM_REQ		0x1	/* a request: consumes a PSN */
#define FM_FIRST	0x2	/* first packet of a message */
#define FM_LAST		0x4	/* last packet of a message */

/* A response that completes no read or atomic: no FLOWMON_MSG_* value */
#define FM_RESP_NONE	0xff

static __always_inline __u32 fm_req_class(__u8 op, __u32 *kind)
{
	*kind = FLOWMON_MSG_PLAIN;
	switch (op) {
	case ROCECC_OP_RC_SEND_FIRST:
	case ROCECC_OP_RC_WRITE_FIRST:
		return FM_REQ | FM_FIRST;
	case ROCECC_OP_RC_SEND_MIDDLE:
	case ROCECC_OP_RC_WRITE_MIDDLE:
		return FM_REQ;
	case ROCECC_OP_RC_SEND_LAST:
	case ROCECC_OP_RC_SEND_LAST_IMM:
	case ROCECC_OP_RC_SEND_LAST_INV:
	case ROCECC_OP_RC_WRITE_LAST:
	case ROCECC_OP_RC_WRITE_LAST_IMM:
		return FM_REQ | FM_LAST;
	case ROCECC_OP_RC_SEND_ONLY:
	case ROCECC_OP_RC_SEND_ONLY_IMM:
	case ROCECC_OP_RC_SEND_ONLY_INV:
	case ROCECC_OP_RC_WRITE_ONLY:
	case ROCECC_OP_RC_WRITE_ONLY_IMM:
		return FM_REQ | FM_FIRST | FM_LAST;
	case ROCECC_OP_RC_READ_REQUEST:
	case ROCECC_OP_RC_FLUSH:		/* answered by a READ_RESP_ONLY */
	case ROCECC_OP_RC_ATOMIC_WRITE:		/* likewise */
		*kind = FLOWMON_MSG_READ;
		return FM_REQ | FM_FIRST | FM_LAST;
	case ROCECC_OP_RC_CMP_SWAP:
	case ROCECC_OP_RC_FETCH_ADD:
		*kind = FLOWMON_MSG_ATOMIC;
		return FM_REQ | FM_FIRST | FM_LAST;
	default:
		return 0;
	}
}

/*
 * An RC request @p leaves. A PSN at or after snd_nxt is new (a gap is
 * fine: a read request of n packets consumes n PSNs); an older one is a
 * retransmission, which times nothing and spoils the RTT probe of its PSN.
 */
static __always_inline void fm_request(struct flowmon_flow *f,
				       const struct rocecc_pkt *p,
				       __u32 class, __u32 kind, __u64 now)
{
	__u32 slot;
	__u64 ext;

	if (!f->snd_nxt) {
		ext = FM_EXT_BASE | p->bth.psn;
		f->snd_nxt = ext;
		f->snd_una = ext;
	} else {
		ext = rocecc_psn_extend(f->snd_nxt, p->bth.psn);
	}
	slot = ext & (FLOWMON_PROBES - 1);

	if (ext < f->snd_nxt) {
		f->tx_retrans++;
		if (f->probe_t[slot] && f->probe_seq[slot] == (__u32)ext) {
			f->probe_t[slot] = 0;
			f->rtt_karn++;
		}
		return;
	}
	f->snd_nxt = ext + 1;
	f->read_last = kind == FLOWMON_MSG_READ;

	if (p->bth.ack_req) {
		/* the slot's probe, if still unacknowledged, is lost */
		if (f->probe_t[slot] &&
		    fm_ext32(ext, f->probe_seq[slot]) >= f->snd_una)
			f->rtt_overrun++;
		f->probe_seq[slot] = (__u32)ext;
		f->probe_t[slot] = now;
		f->tx_ackreq++;
	}

	if (class & FM_FIRST) {
		f->open = 1;
		f->open_t = now;
	}
	if ((class & FM_LAST) && f->open) {
		f->open = 0;
		f->tx_msgs++;
		if (f->msg_tail - f->msg_head >= FLOWMON_MSGS) {
			f->mct_overrun++;
		} else {
			struct flowmon_msg *m;

			m = &f->msg[f->msg_tail & (FLOWMON_MSGS - 1)];
			m->t_first = f->open_t;
			m->last = (__u32)ext;
			m->kind = kind;
			f->msg_tail++;
		}
	}
}

/* Note the completion of the message at the head of the ring. */
static __always_inline void fm_pop(struct flowmon_flow *f,
				   const struct flowmon_msg *m,
				   struct fm_samples *smp, __u64 now)
{
	smp->mct[smp->n_mct & (FLOWMON_MSGS - 1)] = fm_elapsed(now, m->t_first);
	smp->n_mct++;
	f->msg_head++;
}

/*
 * Complete pending messages, oldest first, as the requester would on a
 * response for extended PSN @q: first the plain ones (send, write) whose
 * last PSN is at most @plain_upto, then, if the response is a read's
 * READ_RESP_LAST/ONLY (@resp FLOWMON_MSG_READ) or an atomic's ATOMIC_ACK
 * (FLOWMON_MSG_ATOMIC; else @resp is FM_RESP_NONE), the read or atomic it
 * answers, if that is next. The first message that is not complete stops
 * the walk. Nothing after a read or atomic can complete on the same
 * response (its PSNs come after @q), so the walk ends there too. At most
 * FLOWMON_MSGS samples: the ring's size.
 */
static __always_inline void fm_complete(struct flowmon_flow *f, __u64 q,
					__u64 plain_upto, __u32 resp,
					struct fm_samples *smp, __u64 now)
{
	struct flowmon_msg *m;
	__u64 last;
	__u32 i;

	for (i = 0; i < FLOWMON_MSGS; i++) {
		if (f->msg_head == f->msg_tail)
			return;
		m = &f->msg[f->msg_head & (FLOWMON_MSGS - 1)];
		if (m->kind != FLOWMON_MSG_PLAIN ||
		    fm_ext32(f->snd_nxt, m->last) > plain_upto)
			break;
		fm_pop(f, m, smp, now);
	}
	/*
	 * Tests on m->kind rather than on @resp: @resp is a constant on each
	 * path here, and a test the verifier can decide makes it precise,
	 * which would have it walk the loop above once per kind of response.
	 */
	if (f->msg_head == f->msg_tail)
		return;
	m = &f->msg[f->msg_head & (FLOWMON_MSGS - 1)];
	last = fm_ext32(f->snd_nxt, m->last);	/* its request's PSN */
	if (m->kind != resp || last > q ||
	    (m->kind == FLOWMON_MSG_ATOMIC && last != q))
		return;
	fm_pop(f, m, smp, now);
}

/* A response @p to our requests arrives (RC, opcode 0x0d..0x12). */
static __always_inline void fm_response(struct flowmon_flow *f,
					const struct rocecc_pkt *p,
					struct fm_samples *smp, __u64 now)
{
	__u32 resp = FM_RESP_NONE, slot;
	__u8 op = p->bth.opcode;
	bool probe = false, read_resp = false, positive = false;
	__u64 q, done;

	/*
	 * What it says, counted whatever its PSN. @positive: does it
	 * acknowledge its own PSN (a positive ACK), or only those before it
	 * (every other: a NAK's PSN is the one expected or refused, a read
	 * or atomic response's PSN lies in its own request's range)?
	 */
	switch (op) {
	case ROCECC_OP_RC_ACK:
		switch (ROCECC_AETH_TYPE(p->aeth.syndrome)) {
		case ROCECC_AETH_ACK:
			f->rx_acks++;
			probe = true;
			positive = true;
			break;
		case ROCECC_AETH_RNR_NAK:
			f->rx_rnr_nak++;
			break;
		case ROCECC_AETH_NAK:
			if (p->aeth.syndrome == (ROCECC_AETH_NAK << 5))
				f->rx_nak_seq++;
			else
				f->rx_nak_other++;
			break;
		default:
			return;		/* reserved syndrome: meaningless */
		}
		break;
	case ROCECC_OP_RC_ATOMIC_ACK:
		probe = true;
		resp = FLOWMON_MSG_ATOMIC;
		break;
	case ROCECC_OP_RC_READ_RESP_FIRST:
		probe = true;
		read_resp = true;
		break;
	case ROCECC_OP_RC_READ_RESP_ONLY:
		probe = true;
		read_resp = true;
		resp = FLOWMON_MSG_READ;
		break;
	case ROCECC_OP_RC_READ_RESP_LAST:
		read_resp = true;
		resp = FLOWMON_MSG_READ;
		break;
	case ROCECC_OP_RC_READ_RESP_MIDDLE:
		read_resp = true;
		break;
	default:
		return;
	}

	if (!f->snd_nxt)
		return;			/* we have not seen a request yet */
	q = rocecc_psn_extend(f->snd_nxt, p->bth.psn);
	/*
	 * Nothing can answer a PSN we did not send, except the responses
	 * of the newest request if it is a read: they use the PSNs after
	 * it, which no request of ours shows.
	 */
	if (q >= f->snd_nxt && !(read_resp && f->read_last))
		return;
	done = positive ? q : q - 1;	/* plain messages up to here are done */

	if (probe) {
		slot = q & (FLOWMON_PROBES - 1);
		if (f->probe_t[slot] && f->probe_seq[slot] == (__u32)q) {
			smp->rtt = fm_elapsed(now, f->probe_t[slot]);
			smp->rtt_valid = 1;
			f->probe_t[slot] = 0;
		}
	}
	if (done + 1 > f->snd_una)
		f->snd_una = done + 1;
	fm_complete(f, q, done, resp, smp, now);
}

/* Egress packet @p of flow @f, under its lock */
static __always_inline void fm_tx(struct flowmon_flow *f,
				  const struct rocecc_pkt *p, __u32 bytes,
				  __u64 now)
{
	__u32 class, kind;

	f->tx_pkts++;
	f->tx_bytes += bytes;
	if (p->bth.opcode == ROCECC_OP_CNP) {
		f->tx_cnp++;
		return;
	}
	class = fm_req_class(p->bth.opcode, &kind);
	if (class)
		fm_request(f, p, class, kind, now);
}

/* Ingress packet @p of flow @f, under its lock */
static __always_inline void fm_rx(struct flowmon_flow *f,
				  const struct rocecc_pkt *p, __u32 bytes,
				  struct fm_samples *smp, __u64 now)
{
	__u8 op = p->bth.opcode;

	f->rx_pkts++;
	f->rx_bytes += bytes;
	if (p->ecn == ROCECC_ECN_CE)
		f->rx_ce++;
	if (op == ROCECC_OP_CNP)
		f->rx_cnp++;
	else if (op >= ROCECC_OP_RC_READ_RESP_FIRST &&
		 op <= ROCECC_OP_RC_ATOMIC_ACK)
		fm_response(f, p, smp, now);
}

/*
 * The flow (@key) that local QP @lqpn's packets belong to, created if
 * needed. If it belongs to another local QP, that pairing is over (the
 * table now says otherwise): start afresh.
 */
static __always_inline struct flowmon_flow *
fm_flow_get(const struct flowmon_key *key, __u32 lqpn)
{
	struct flowmon_stats *st;
	struct flowmon_flow *f;
	struct fm_zero *zero;
	__u32 k = 0;

	f = bpf_map_lookup_elem(&flows, key);
	if (f && (f->lqpn == lqpn || !f->lqpn))
		return f;

	zero = bpf_map_lookup_elem(&zero_flow, &k);
	st = fm_stats();
	if (!zero || !st)
		return NULL;
	if (f) {
		if (bpf_map_update_elem(&flows, key, zero, BPF_EXIST)) {
			st->flow_full++;	/* no spare element */
			return NULL;
		}
		st->flow_replaced++;
	} else {
		/* -EEXIST: another CPU was quicker, fine; full: see below */
		bpf_map_update_elem(&flows, key, zero, BPF_NOEXIST);
	}
	f = bpf_map_lookup_elem(&flows, key);
	if (!f)
		st->flow_full++;
	return f;
}

static __always_inline int fm_handle(struct __sk_buff *skb, bool egress)
{
	struct flowmon_key key = {};
	struct flowmon_stats *st;
	struct flowmon_flow *f;
	struct rocecc_pkt *p;
	struct fm_scratch *s;
	__u32 zero = 0, len, bytes;
	__u64 now;
	int rc;

	/* Only IPv4 and IPv6 frames, 802.1Q-tagged or not, can be RoCEv2 */
	if (skb->protocol != bpf_htons(ETH_P_IP) &&
	    skb->protocol != bpf_htons(ETH_P_IPV6) &&
	    skb->protocol != bpf_htons(ETH_P_8021Q))
		return TC_ACT_UNSPEC;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return TC_ACT_UNSPEC;
	p = &s->pkt;
	/*
	 * Shorter than an Ethernet header: not RoCE. (Tested with "<", not
	 * "== 0": the 6.1 verifier learns a lower bound for the copy's
	 * length only from the former.)
	 */
	len = skb->len;
	if (len < ROCECC_ETH_HLEN)
		return TC_ACT_UNSPEC;
	if (len > FM_BUF_LEN)
		len = FM_BUF_LEN;
	if (bpf_skb_load_bytes(skb, 0, s->buf, len))
		return TC_ACT_UNSPEC;
	rc = rocecc_parse_eth(s->buf, len, skb->len, p);
	if (rc != ROCECC_ROCE) {
		/*
		 * Count what was on its way to the RoCE port and broken;
		 * anything that failed before its UDP header might be
		 * anybody's.
		 */
		if (rc != ROCECC_NOT_ROCE && p->dport == ROCECC_UDP_PORT) {
			st = fm_stats();
			if (st && egress)
				st->tx_malformed++;
			else if (st)
				st->rx_malformed++;
		}
		return TC_ACT_UNSPEC;
	}

	now = fm_now();
	bytes = p->icrc_off + ROCECC_ICRC_LEN - p->l3_off;
	key.ifindex = skb->ifindex;

	if (egress) {
		/* l -> r: the key is on the wire */
		__builtin_memcpy(key.peer, p->daddr, sizeof(key.peer));
		key.rqpn = p->bth.dest_qp;
		f = bpf_map_lookup_elem(&flows, &key);
		if (!f) {
			st = fm_stats();
			if (st) {
				st->tx_unknown_pkts++;
				st->tx_unknown_bytes += bytes;
			}
			return TC_ACT_UNSPEC;
		}
		bpf_spin_lock(&f->lock);
		fm_tx(f, p, bytes, now);
		bpf_spin_unlock(&f->lock);
	} else {
		/* r -> l: the QP table says who r is */
		struct flowmon_qp_key qk = {
			.ifindex = skb->ifindex,
			.lqpn = p->bth.dest_qp,
		};
		struct flowmon_qp *qp = bpf_map_lookup_elem(&qps, &qk);

		if (!qp) {
			st = fm_stats();
			if (st) {
				st->rx_unknown_pkts++;
				st->rx_unknown_bytes += bytes;
			}
			return TC_ACT_UNSPEC;
		}
		__builtin_memcpy(key.peer, p->saddr, sizeof(key.peer));
		key.rqpn = qp->rqpn & ROCECC_BTH_QPN_MASK;
		f = fm_flow_get(&key, qk.lqpn);
		if (!f)
			return TC_ACT_UNSPEC;
		s->smp.rtt_valid = 0;
		s->smp.n_mct = 0;
		bpf_spin_lock(&f->lock);
		if (!f->lqpn)
			f->lqpn = qk.lqpn;
		fm_rx(f, p, bytes, &s->smp, now);
		bpf_spin_unlock(&f->lock);
		fm_bin(f, &s->smp);
	}
	return TC_ACT_UNSPEC;
}

SEC("tc")
int flowmon_egress(struct __sk_buff *skb)
{
	return fm_handle(skb, true);
}

SEC("tc")
int flowmon_ingress(struct __sk_buff *skb)
{
	return fm_handle(skb, false);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
