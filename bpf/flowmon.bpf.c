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
 * A pending entry's responses are replayed onto the flow the same way
 * (fm_merge()): one bpf_loop() step per response, each taking the flow's
 * lock for fm_response() and binning its samples after it (a bpf_loop()
 * inside the step), so the verifier checks the step once, not once per
 * response.
 *
 * Helpers: bpf_skb_load_bytes, bpf_map_lookup_elem, bpf_map_update_elem,
 * bpf_map_delete_elem, bpf_ktime_get_ns, bpf_spin_lock, bpf_spin_unlock
 * (all 5.1 or older), bpf_ringbuf_output (5.8) and bpf_loop (5.17);
 * bounded loops (5.3) and atomic adds. Nothing newer, so the same object
 * loads on Debian's 6.1 and on current kernels.
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

/* The zeroed value new flows and pending entries start from */
struct fm_zero {
	__u8 b[sizeof(struct flowmon_flow)];
};
_Static_assert(sizeof(struct flowmon_flow) >= sizeof(struct flowmon_pend),
	       "zero_flow serves both maps");

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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FLOWMON_MAX_PENDING);
	__type(key, struct flowmon_pkey);
	__type(value, struct flowmon_pend);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flowmon_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FLOWMON_EVENTS_BYTES);
} events SEC(".maps");

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

/* What a response is to the requester: fm_resp_class()'s bits */
#define FM_R_ACK		0x01	/* positive ACK: its own PSN is done */
#define FM_R_RNR		0x02	/* RNR NAK */
#define FM_R_NAK_SEQ		0x04	/* NAK: PSN sequence error */
#define FM_R_NAK_OTHER		0x08	/* NAK: invalid request, access, ... */
#define FM_R_PROBE		0x10	/* may answer an RTT probe */
#define FM_R_READ		0x20	/* a read response packet */
#define FM_R_DONE_READ		0x40	/* completes a read (LAST/ONLY) */
#define FM_R_DONE_ATOMIC	0x80	/* completes an atomic */

/*
 * The class of a response with opcode @op and AETH syndrome @syn; 0 for
 * anything else (a request, a CNP, a reserved syndrome: meaningless).
 */
static __always_inline __u32 fm_resp_class(__u8 op, __u8 syn)
{
	switch (op) {
	case ROCECC_OP_RC_ACK:
		switch (ROCECC_AETH_TYPE(syn)) {
		case ROCECC_AETH_ACK:
			return FM_R_ACK | FM_R_PROBE;
		case ROCECC_AETH_RNR_NAK:
			return FM_R_RNR;
		case ROCECC_AETH_NAK:
			return syn == (ROCECC_AETH_NAK << 5) ? FM_R_NAK_SEQ :
							       FM_R_NAK_OTHER;
		default:
			return 0;
		}
	case ROCECC_OP_RC_ATOMIC_ACK:
		return FM_R_PROBE | FM_R_DONE_ATOMIC;
	case ROCECC_OP_RC_READ_RESP_FIRST:
		return FM_R_PROBE | FM_R_READ;
	case ROCECC_OP_RC_READ_RESP_ONLY:
		return FM_R_PROBE | FM_R_READ | FM_R_DONE_READ;
	case ROCECC_OP_RC_READ_RESP_LAST:
		return FM_R_READ | FM_R_DONE_READ;
	case ROCECC_OP_RC_READ_RESP_MIDDLE:
		return FM_R_READ;
	default:
		return 0;
	}
}

/* A copy of a pending entry's counters, for the merge */
struct fm_rxc {
	FLOWMON_RX_COUNTERS;
};

/* @d's FLOWMON_RX_COUNTERS += @s's */
#define FM_RX_ADD(d, s)							\
	do {								\
		(d)->rx_pkts += (s)->rx_pkts;				\
		(d)->rx_bytes += (s)->rx_bytes;				\
		(d)->rx_ce += (s)->rx_ce;				\
		(d)->rx_cnp += (s)->rx_cnp;				\
		(d)->rx_acks += (s)->rx_acks;				\
		(d)->rx_nak_seq += (s)->rx_nak_seq;			\
		(d)->rx_nak_other += (s)->rx_nak_other;			\
		(d)->rx_rnr_nak += (s)->rx_rnr_nak;			\
	} while (0)

/*
 * Count an ingress packet of @bytes in @c, a flow or a pending entry (the
 * fields of FLOWMON_RX_COUNTERS): @p its parse, @cls its fm_resp_class().
 */
#define FM_RX_COUNT(c, p, bytes, cls)					\
	do {								\
		(c)->rx_pkts++;						\
		(c)->rx_bytes += (bytes);				\
		(c)->rx_ce += (p)->ecn == ROCECC_ECN_CE;		\
		(c)->rx_cnp += (p)->bth.opcode == ROCECC_OP_CNP;	\
		(c)->rx_acks += !!((cls) & FM_R_ACK);			\
		(c)->rx_rnr_nak += !!((cls) & FM_R_RNR);		\
		(c)->rx_nak_seq += !!((cls) & FM_R_NAK_SEQ);		\
		(c)->rx_nak_other += !!((cls) & FM_R_NAK_OTHER);	\
	} while (0)

/*
 * A response of class @cls (non-zero) for PSN @psn to our requests, at
 * @now: the requester state of @f, under its lock. Also what the replay
 * of a pending entry's responses runs (fm_merge()).
 */
static __always_inline void fm_response(struct flowmon_flow *f, __u32 cls,
					__u32 psn, struct fm_samples *smp,
					__u64 now)
{
	__u32 resp = FM_RESP_NONE, slot;
	bool read_resp = cls & FM_R_READ;
	__u64 q, done;

	if (cls & FM_R_DONE_READ)
		resp = FLOWMON_MSG_READ;
	else if (cls & FM_R_DONE_ATOMIC)
		resp = FLOWMON_MSG_ATOMIC;
	if (!f->snd_nxt)
		return;			/* we have not seen a request yet */
	q = rocecc_psn_extend(f->snd_nxt, psn);
	/*
	 * Nothing can answer a PSN we did not send, except the responses
	 * of the newest request if it is a read: they use the PSNs after
	 * it, which no request of ours shows.
	 */
	if (q >= f->snd_nxt && !(read_resp && f->read_last))
		return;
	/*
	 * A positive ACK acknowledges its own PSN; every other response
	 * only those before it (a NAK's PSN is the one expected or
	 * refused, a read or atomic response's PSN lies in its own
	 * request's range). Plain messages up to @done are complete.
	 */
	done = (cls & FM_R_ACK) ? q : q - 1;

	if (cls & FM_R_PROBE) {
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

	if (!f->first_ns)
		f->first_ns = now;
	f->last_ns = now;
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
	__u32 cls = fm_resp_class(p->bth.opcode, p->aeth.syndrome);

	if (!f->first_ns)
		f->first_ns = now;
	f->last_ns = now;
	FM_RX_COUNT(f, p, bytes, cls);
	if (cls)
		fm_response(f, cls, p->bth.psn, smp, now);
}

/*
 * Does a packet with opcode @op belong to a QP pair (RC, UC, or a CNP to
 * one)? Only those create flows and pending entries.
 */
static __always_inline bool fm_paired(__u8 op)
{
	__u8 tr = ROCECC_OP_TRANSPORT(op);

	return op == ROCECC_OP_CNP || tr == ROCECC_TRANSPORT_RC ||
	       tr == ROCECC_TRANSPORT_UC;
}

/* Tell the daemon about a new flow or pending entry (@kind) */
static __always_inline void fm_event(__u32 kind, const __u8 *peer,
				     __u32 qpn, __u32 ifindex)
{
	struct flowmon_event ev = { .kind = kind, .ifindex = ifindex,
				    .qpn = qpn };
	struct flowmon_stats *st;

	__builtin_memcpy(ev.peer, peer, sizeof(ev.peer));
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0)) {
		st = fm_stats();
		if (st)
			st->events_lost++;
	}
}

/* A zeroed element of @map under @key if there is none; 0, or -errno */
static __always_inline long fm_new(void *map, const void *key)
{
	struct fm_zero *zero;
	__u32 k = 0;

	zero = bpf_map_lookup_elem(&zero_flow, &k);
	if (!zero)
		return -1;
	return bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
}

/*
 * The flow (@key) that local QP @lqpn's packets belong to, created if
 * needed. If it belongs to another local QP, that pairing is over (the
 * table now says otherwise): start afresh. A flow an egress packet made
 * (lqpn 0) is @lqpn's.
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

/* Egress: the flow @key, created by this packet if it is the first */
static __always_inline struct flowmon_flow *
fm_flow_tx(const struct flowmon_key *key)
{
	struct flowmon_stats *st;
	struct flowmon_flow *f;

	f = bpf_map_lookup_elem(&flows, key);
	if (f)
		return f;
	if (!fm_new(&flows, key))
		fm_event(FLOWMON_EV_FLOW, key->peer, key->rqpn, key->ifindex);
	f = bpf_map_lookup_elem(&flows, key);
	if (!f) {
		st = fm_stats();
		if (st)
			st->flow_full++;
	}
	return f;
}

/*
 * Ingress packet @p (@bytes) for local QP @pk->lqpn, which qps does not
 * know yet: counted, and kept if a response, in its pending entry
 * (created if it is the first). False if there is no room: not counted.
 */
static __always_inline bool fm_pend(const struct flowmon_pkey *pk,
				    const struct rocecc_pkt *p, __u32 bytes,
				    __u64 now)
{
	__u32 cls = fm_resp_class(p->bth.opcode, p->aeth.syndrome);
	struct flowmon_stats *st;
	struct flowmon_pend *pd;
	struct flowmon_resp *r;
	bool counted = false;

	pd = bpf_map_lookup_elem(&pending, pk);
	if (!pd) {
		if (!fm_new(&pending, pk))
			fm_event(FLOWMON_EV_PENDING, pk->peer, pk->lqpn,
				 pk->ifindex);
		pd = bpf_map_lookup_elem(&pending, pk);
		if (!pd) {
			st = fm_stats();
			if (st)
				st->pend_full++;
			return false;
		}
	}
	bpf_spin_lock(&pd->lock);
	if (!pd->merged) {
		if (!pd->first_ns)
			pd->first_ns = now;
		pd->last_ns = now;
		FM_RX_COUNT(pd, p, bytes, cls);
		if (cls && pd->nresp < FLOWMON_PEND_RESPS) {
			r = &pd->resp[pd->nresp & (FLOWMON_PEND_RESPS - 1)];
			r->t = now;
			r->psn = p->bth.psn;
			r->opcode = p->bth.opcode;
			r->syndrome = p->aeth.syndrome;
			pd->nresp++;
		} else if (cls) {
			pd->resp_lost++;
		}
		counted = true;
	}
	bpf_spin_unlock(&pd->lock);
	/* merged meanwhile (a race with the QP's first resolved packet) */
	return counted;
}

struct fm_replay_ctx {
	struct flowmon_flow *f;
	struct flowmon_pend *pd;
	struct fm_samples *smp;
};

/* bpf_loop() step: replay response @i of a pending entry onto its flow */
static long fm_replay_one(__u32 i, void *data)
{
	struct fm_replay_ctx *c = data;
	struct flowmon_resp *r = &c->pd->resp[i & (FLOWMON_PEND_RESPS - 1)];
	__u32 cls = fm_resp_class(r->opcode, r->syndrome);
	struct flowmon_flow *f = c->f;

	if (!cls)
		return 0;
	c->smp->rtt_valid = 0;
	c->smp->n_mct = 0;
	bpf_spin_lock(&f->lock);
	fm_response(f, cls, r->psn, c->smp, r->t);
	bpf_spin_unlock(&f->lock);
	fm_bin(f, c->smp);
	return 0;
}

/*
 * Local QP @pk->lqpn, pending until now, is flow @f's: fold its pending
 * entry (if any, and if nobody else does) into @f, counters and then the
 * responses in the order they came, and delete it.
 */
static __always_inline void fm_merge(const struct flowmon_pkey *pk,
				     struct flowmon_flow *f,
				     struct fm_samples *smp)
{
	struct fm_replay_ctx c = { .f = f, .smp = smp };
	struct flowmon_stats *st;
	struct flowmon_pend *pd;
	struct fm_rxc cp = {};
	__u64 first;
	__u32 n, lost;

	pd = bpf_map_lookup_elem(&pending, pk);
	if (!pd)
		return;
	bpf_spin_lock(&pd->lock);
	if (pd->merged) {
		bpf_spin_unlock(&pd->lock);
		return;
	}
	pd->merged = 1;
	first = pd->first_ns;
	FM_RX_ADD(&cp, pd);
	n = pd->nresp;
	lost = pd->resp_lost;
	bpf_spin_unlock(&pd->lock);

	bpf_spin_lock(&f->lock);
	if (!f->first_ns || (first && first < f->first_ns))
		f->first_ns = first;
	FM_RX_ADD(f, &cp);
	bpf_spin_unlock(&f->lock);

	c.pd = pd;
	if (n > FLOWMON_PEND_RESPS)
		n = FLOWMON_PEND_RESPS;
	if (n)
		bpf_loop(n, fm_replay_one, &c, 0);
	bpf_map_delete_elem(&pending, pk);
	st = fm_stats();
	if (st) {
		st->pend_merged++;
		st->pend_resp_lost += lost;
	}
}

/* Count a packet no flow or pending entry takes */
static __always_inline void fm_unknown(bool egress, __u32 bytes)
{
	struct flowmon_stats *st = fm_stats();

	if (!st)
		return;
	if (egress) {
		st->tx_unknown_pkts++;
		st->tx_unknown_bytes += bytes;
	} else {
		st->rx_unknown_pkts++;
		st->rx_unknown_bytes += bytes;
	}
}

/* Egress: l -> r, the key is on the wire */
static __always_inline void fm_egress(struct fm_scratch *s, __u32 ifindex,
				      __u32 bytes, __u64 now)
{
	struct flowmon_key key = { .ifindex = ifindex };
	const struct rocecc_pkt *p = &s->pkt;
	struct flowmon_flow *f;

	__builtin_memcpy(key.peer, p->daddr, sizeof(key.peer));
	key.rqpn = p->bth.dest_qp;
	f = bpf_map_lookup_elem(&flows, &key);
	if (!f && fm_paired(p->bth.opcode))
		f = fm_flow_tx(&key);
	if (!f) {
		fm_unknown(true, bytes);
		return;
	}
	bpf_spin_lock(&f->lock);
	fm_tx(f, p, bytes, now);
	bpf_spin_unlock(&f->lock);
}

/* Ingress: r -> l, the QP table says who r is, or l is pending */
static __always_inline void fm_ingress(struct fm_scratch *s, __u32 ifindex,
				       __u32 bytes, __u64 now)
{
	const struct rocecc_pkt *p = &s->pkt;
	struct flowmon_qp_key qk = {
		.ifindex = ifindex,
		.lqpn = p->bth.dest_qp,
	};
	struct flowmon_pkey pk = { .lqpn = qk.lqpn, .ifindex = ifindex };
	struct flowmon_key key = { .ifindex = ifindex };
	struct flowmon_flow *f;
	struct flowmon_qp *qp;

	__builtin_memcpy(pk.peer, p->saddr, sizeof(pk.peer));
	qp = bpf_map_lookup_elem(&qps, &qk);
	if (!qp) {
		if (!fm_paired(p->bth.opcode) || !fm_pend(&pk, p, bytes, now))
			fm_unknown(false, bytes);
		return;
	}
	__builtin_memcpy(key.peer, p->saddr, sizeof(key.peer));
	key.rqpn = qp->rqpn & ROCECC_BTH_QPN_MASK;
	f = fm_flow_get(&key, qk.lqpn);
	if (!f)
		return;
	/*
	 * Fold the QP's pending entry in before this packet's response is
	 * applied: the first packet of a flow no ingress packet resolved yet
	 * (lqpn 0) looks for one whether or not the daemon marked the qps
	 * entry, for the daemon writes the entry first and marks it only
	 * later (rd_resolve()); a response applied before the older ones
	 * kept there would complete their messages at its own, later time.
	 */
	if ((qp->flags & FLOWMON_QP_MERGE) || !f->lqpn) {
		if (qp->flags & FLOWMON_QP_MERGE)
			qp->flags = 0;	/* racy on purpose: fm_merge() decides */
		fm_merge(&pk, f, &s->smp);
	}
	s->smp.rtt_valid = 0;
	s->smp.n_mct = 0;
	bpf_spin_lock(&f->lock);
	if (!f->lqpn)
		f->lqpn = qk.lqpn;
	fm_rx(f, p, bytes, &s->smp, now);
	bpf_spin_unlock(&f->lock);
	fm_bin(f, &s->smp);
}

static __always_inline int fm_handle(struct __sk_buff *skb, bool egress)
{
	struct flowmon_stats *st;
	struct rocecc_pkt *p;
	struct fm_scratch *s;
	__u32 zero = 0, len, bytes;
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

	bytes = p->icrc_off + ROCECC_ICRC_LEN - p->l3_off;
	if (egress)
		fm_egress(s, skb->ifindex, bytes, fm_now());
	else
		fm_ingress(s, skb->ifindex, bytes, fm_now());
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
