/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc shared code: earliest-departure-time (EDT) pacing of a flow at its
 * DCQCN rate, inside the ACK-timeout budget of its QP. Written once for the
 * kernel module, BPF programs and userspace; the caller serialises calls on
 * one flow, supplies the clock (ns) and stamps the departure time on the
 * packet.
 *
 * Departure times
 * ---------------
 * A flow keeps the departure time of its next packet, next_tx. A packet
 * handed over at `now` leaves at start = max(now, next_tx), and
 * next_tx = start + len / rate (rocecc_rp_delay_ns(), dcqcn.h). Nothing is
 * dropped for pacing: the sender's own in-flight limit is the backpressure.
 *
 * The budget
 * ----------
 * An RC sender (rxe) arms its retransmission timer when it hands a packet
 * over (if the timer is not pending) and re-arms it whenever an ACK
 * arrives while packets are outstanding; it does not care when a packet
 * leaves the qdisc. ACKs come for the packets that carry BTH AckReq (the
 * last of a message, and every so many packets). Pacing is therefore safe
 * as long as each AckReq packet leaves less than the timeout after the
 * previous AckReq packet (whose ACK re-armed the timer), or after it was
 * handed over if the flow was quiet; a packet held longer times out
 * although nothing was lost (64 KB messages paced at 4 Mb/s take 130 ms,
 * longer than timeout 14's 67 ms; docs/design.md §6.4). The flow keeps
 * ack_ref, the departure time of its last AckReq packet, and no packet
 * may leave later than ack_ref + budget; ack_ref is taken as `now` once
 * it is older than the budget (the timer is then armed afresh by this
 * packet). Every packet is capped, not only AckReq ones, so departure
 * times stay monotonic: fq never reorders a QP's packets (a reordered PSN
 * would be a NAK). No packet is held longer than max_delay either (the
 * qdisc's horizon). When a cap binds the packet leaves at the cap and
 * the flow runs faster than its DCQCN rate (ROCECC_PACE_CAPPED): the
 * timeout wins over the rate.
 * Finally no packet leaves before the previous one, also when the budget
 * shrank in between (a QP's timeout became known).
 *
 * When pacing stops
 * -----------------
 * fq sends a packet without a departure time at once, and a flow's
 * packets in departure order, not in the order they came. A packet of a
 * flow that is no longer paced (its device is being detached, or its
 * qdisc stopped pacing) would thus overtake the packets of its QP still
 * held: the responder NAKs the PSN gap and drops everything up to the
 * held ones, and the go-back-N retransmissions then interleave with the
 * late originals and their ACKs and NAKs, which rxe's requester does not
 * always survive (a QP can end with NAK invalid request).
 *
 * The rule: a packet of a flow that is no longer paced leaves with the
 * last packet its flow held, or at `now` if that one has left
 * (rocecc_pace_unpaced(); fq keeps equal departure times in the order the
 * packets came). A caller that forgets the flow (detach) first waits
 * until that departure has passed; from then on a packet leaving at `now`
 * overtakes nothing.
 *
 * Asking for ACKs
 * ---------------
 * rxe asks for an ACK only at the end of a message (and every 64
 * packets), so with the cap alone a QP cannot be paced below one message
 * per budget (16 KB messages and a 15 ms budget: 8.7 Mb/s), and every
 * ACK-requesting packet may leave a whole budget after the previous one:
 * the timer then waits budget + the queueing the next packet meets, and a
 * starved TCG vCPU or a growing switch queue adds the rest (with half of
 * timeout 14 as budget, 2-to-1 runs retransmitted 14-75 times where ECT
 * alone did 1-2). Where the caller may ask for an ACK on a packet
 * (@may_ask: an RC request the responder acknowledges when its BTH
 * AckReq is set, which rxe's responder does for any packet), a packet
 * after which the next one could only leave past the budget gets
 * ROCECC_PACE_ACKREQ: the caller sets AckReq on it, the responder's ACK
 * re-arms rxe's timer, and it becomes the reference. ACK requests then
 * follow the rate instead of the message size: a QP can be paced down to
 * one packet per budget, and no ACK-requesting packet leaves more than
 * one budget after the previous one.
 * A QP that was quiet (no ACK-requesting packet within the last budget)
 * is asked on its next packet too: rxe never stops its timer once
 * everything is acknowledged (6.1 and 6.12), so the timer may still be
 * pending from an ACK up to a timeout ago and expire any moment; the ACK
 * of this first packet, a round trip later, re-arms it for what follows.
 * Left to the rate, the first ACK would come up to a budget later (in
 * 3-to-1 incasts at timeout 14, 2 retransmissions a run with an empty
 * switch queue).
 *
 * The budget is a share (pacing_budget_pct) of the timeout as rxe's jiffies
 * timer really applies it, at most max_delay: rocecc_pace_budget_ns().
 *
 * Arithmetic: 64-bit, saturating where a sum could pass 2^64 (a departure
 * time never wraps to the past), no loop, and only rocecc_div_u64() by a
 * variable, so that the BPF verifier and 32-bit kernels take it.
 */
#ifndef _ROCECC_PACING_H
#define _ROCECC_PACING_H

#include <rocecc/compat.h>
#include <rocecc/dcqcn.h>
#include <rocecc/roce.h>

#define ROCECC_PACE_NS_PER_SEC	1000000000U
#define ROCECC_PACE_TIMEOUT_MAX	31	/* IBA: 5 bits of ACK timeout */

/*
 * Both engines' defaults (rocecc.ko's module parameters, the BPF engine's
 * struct dcqcn_dev): pacing_budget_pct, pacing_default_budget_us (safe
 * for timeout exponents of 12 and up), pacing_max_delay_us (inside fq's
 * default horizon) and pacing_ack_req ("Asking for ACKs" above).
 */
#define ROCECC_PACE_BUDGET_PCT		20
#define ROCECC_PACE_DEFAULT_BUDGET_US	8000
#define ROCECC_PACE_MAX_DELAY_US	1000000
#define ROCECC_PACE_ACK_REQ		true

/*
 * Which qdisc paces. Departure times mean something only to fq, so a
 * netdev paces when its root qdisc is fq, mq with fq on every queue, or
 * rocecc's PFC qdisc with fq under every class; fq's horizon must not drop
 * what pacing may hold (pacing_max_delay_us), and a flow_limit below
 * ROCECC_FQ_FLOW_LIMIT_MIN may overflow (rxe keeps up to 65 skbs of a QP
 * in flight, and fq hashes rxe's unconnected QP sockets into orphan
 * buckets, so two QPs may share one fq flow). rocecc.ko's attach check and
 * rocecc doctor say so in these words: ROCECC_PACE_WHY_* (printf formats)
 * is what is wrong, ROCECC_PACE_FIX_* the command that mends it, and
 * ROCECC_PACE_MSG_* the module's message, both together.
 */
#define ROCECC_FQ_FLOW_LIMIT_MIN	256

/* netdev, the kind found */
#define ROCECC_PACE_WHY_KIND	"pacing needs the fq qdisc but %s has %s"
/* netdev */
#define ROCECC_PACE_FIX_KIND	"tc qdisc replace dev %s root fq flow_limit 1000"
#define ROCECC_PACE_PFC_NOTE	"with PFC: fq under each class of the rocecc qdisc"
#define ROCECC_PACE_MSG_KIND	ROCECC_PACE_WHY_KIND ": run '" \
				ROCECC_PACE_FIX_KIND "' (" ROCECC_PACE_PFC_NOTE ")"
/* netdev, horizon (us), pacing_max_delay_us */
#define ROCECC_PACE_WHY_HORIZON	\
	"fq on %s drops packets beyond its horizon (%u us) but pacing may hold one for %u us"
/* netdev */
#define ROCECC_PACE_FIX_HORIZON	"tc qdisc change dev %s root fq horizon_cap"
#define ROCECC_PACE_MSG_HORIZON	ROCECC_PACE_WHY_HORIZON ": run '" \
				ROCECC_PACE_FIX_HORIZON "'"
/* netdev, ROCECC_FQ_FLOW_LIMIT_MIN */
#define ROCECC_PACE_WHY_LIMIT	\
	"fq flow_limit on %s is below %u: QPs sharing an fq flow may overflow it"
/* netdev */
#define ROCECC_PACE_FIX_LIMIT	"tc qdisc change dev %s root fq flow_limit 1000"
#define ROCECC_PACE_MSG_LIMIT	ROCECC_PACE_WHY_LIMIT "; run '" \
				ROCECC_PACE_FIX_LIMIT "'"

/* Per-flow pacing state. Times in ns of the caller's clock. */
struct rocecc_pace {
	__u64 next_tx;		/* earliest departure of the next packet */
	__u64 ack_ref;		/* departure of the last AckReq packet */
	__u64 last_depart;	/* departure given to the last packet */
	__u64 budget_ns;	/* latest departure after ack_ref */
};

/* rocecc_pace() flags */
#define ROCECC_PACE_DELAYED	0x1	/* leaves after now */
#define ROCECC_PACE_CAPPED	0x2	/* the budget or max_delay bound */
#define ROCECC_PACE_ACKREQ	0x4	/* set BTH AckReq on this packet */

/* @a + @b, or ~0 where that would wrap. */
static inline __u64 rocecc_pace_add(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

/*
 * floor(@t * @pct / 100), at most @cap, for @t < 2^44 and @cap < 2^42,
 * without overflowing 64 bits: t = 100 q + r, and q * pct is only formed
 * when it fits (q < 2^16 or pct < 2^26); otherwise it is at least 2^42,
 * more than @cap.
 */
static inline __u64 rocecc_pace_share(__u64 t, __u32 pct, __u64 cap)
{
	__u64 q = rocecc_div_u64(t, 100), r = t - q * 100, x;

	if ((q >> 16) && (pct >> 26))
		return cap;
	x = q * pct + rocecc_div_u64(r * pct, 100);
	return x < cap ? x : cap;
}

/*
 * The pacing budget of a QP with ACK timeout exponent @timeout (IBA:
 * 4.096 us * 2^timeout, 0 = no timer) on a kernel with @hz jiffies per
 * second: @pct percent of the time rxe's retransmission timer surely
 * waits, at most @max_delay_us. rxe arms the timer for
 * j = nsecs_to_jiffies(4096 << timeout) jiffies (rounded down, at least
 * 1), and a jiffies timer fires up to one jiffy early relative to when it
 * was armed (jiffies may tick right after), so the time surely waited is
 * (j - 1) jiffies; one jiffy or less is 0. So at HZ 250 timeout 14 (67 ms)
 * is 16 jiffies, 60 ms, a budget of 30 ms at 50 %; from timeout 19
 * (2.1 s) on, 50 % exceed a max_delay of 1 s, which applies. No timer
 * (@timeout 0), an exponent above 31 or an @hz outside 1..1e6 (the
 * kernel's bounds) gets the cap.
 *
 * Exact in 64 bits for every input: 4096 << 31 is 2^43 ns, times an @hz
 * of at most 1e6 below 2^63; the jiffies are converted back in ns, exact
 * for an @hz that divides 1e6 (the kernel's jiffies_to_nsecs() goes
 * through a 32-bit count of us, which wraps for timeouts 30 and 31; those
 * are far above any cap a qdisc's horizon allows).
 */
static inline __u64 rocecc_pace_budget_ns(__u8 timeout, __u32 hz, __u32 pct,
					  __u32 max_delay_us)
{
	__u64 cap = (__u64)max_delay_us * 1000U, j, t;

	if (!timeout || timeout > ROCECC_PACE_TIMEOUT_MAX || !hz ||
	    hz > 1000000U)
		return cap;
	j = rocecc_div_u64((4096ULL << timeout) * hz, ROCECC_PACE_NS_PER_SEC);
	if (!j)
		j = 1;
	t = rocecc_div_u64((j - 1) * ROCECC_PACE_NS_PER_SEC, hz);
	return rocecc_pace_share(t, pct, cap);
}

/*
 * May the caller set BTH AckReq on packet @p (parsed from @buf, @n bytes
 * of it there) for rocecc_pace()'s @may_ask? An RC request (the responder
 * acknowledges it) that does not ask already, and only where the sender
 * left the UDP checksum 0 (rxe always does): nothing but the ICRC covers
 * the bit then, and rocecc_icrc_flip() mends that.
 */
static inline bool rocecc_pace_may_ask(const struct rocecc_pkt *p,
				       const __u8 *buf, __u32 n)
{
	__u32 o = p->l4_off;

	/* "o >= n" first: a verifier bounds o by it */
	if (p->bth.ack_req ||
	    ROCECC_OP_TRANSPORT(p->bth.opcode) != ROCECC_TRANSPORT_RC ||
	    rocecc_op_data_class(p->bth.opcode) != ROCECC_DATA_PACED ||
	    o >= n || n - o < ROCECC_UDP_HLEN)
		return false;
	return !buf[o + 6] && !buf[o + 7];
}

/*
 * A packet of @len bytes (at most ROCECC_RP_PACE_LEN_MAX count for the
 * rate) is handed over at @now; @ack_req: it carries BTH AckReq; @may_ask:
 * the caller can set AckReq on it (see "Asking for ACKs"). Returns its
 * departure time, never before @now; *@flags gets ROCECC_PACE_DELAYED if
 * that is after @now (the packet is to be held until then),
 * ROCECC_PACE_CAPPED if the budget or @max_delay_ns moved it earlier than
 * the rate would, and ROCECC_PACE_ACKREQ if the caller is to set AckReq
 * on it. Advances @s by the packet at @rp's current rate.
 */
static inline __u64 rocecc_pace(struct rocecc_pace *s,
				const struct rocecc_rp *rp, __u64 now,
				__u32 len, bool ack_req, bool may_ask,
				__u64 max_delay_ns, __u32 *flags)
{
	__u64 start = now > s->next_tx ? now : s->next_tx;
	__u64 ref, limit, lim2;
	bool quiet;

	*flags = 0;
	/* The timer's reference: the last AckReq, or now if older. */
	quiet = rocecc_pace_add(s->ack_ref, s->budget_ns) < now;
	ref = quiet ? now : s->ack_ref;
	limit = rocecc_pace_add(ref, s->budget_ns);
	lim2 = rocecc_pace_add(now, max_delay_ns);
	if (lim2 < limit)
		limit = lim2;
	if (start > limit) {
		start = limit;
		*flags |= ROCECC_PACE_CAPPED;
	}
	/* Never before the previous packet (the budget may shrink). */
	if (start < s->last_depart)
		start = s->last_depart;
	s->last_depart = start;
	if (len > ROCECC_RP_PACE_LEN_MAX)
		len = ROCECC_RP_PACE_LEN_MAX;
	s->next_tx = rocecc_pace_add(start, rocecc_rp_delay_ns(rp, len));
	/*
	 * Ask for an ACK if the next packet could not leave within the
	 * budget, or if the QP was quiet (its timer may be stale).
	 */
	if (!ack_req && may_ask &&
	    (quiet || s->next_tx > rocecc_pace_add(ref, s->budget_ns))) {
		ack_req = true;
		*flags |= ROCECC_PACE_ACKREQ;
	}
	if (ack_req)
		s->ack_ref = start;
	if (start > now)
		*flags |= ROCECC_PACE_DELAYED;
	return start;
}

/*
 * The departure of a packet of flow @s handed over at @now that is not
 * paced (see "When pacing stops"): @now, or the departure of the last
 * packet pacing gave the flow if that is later, so that it leaves behind
 * every packet still held. @s is not changed: once @now passes that
 * departure nothing is held any more.
 */
static inline __u64 rocecc_pace_unpaced(const struct rocecc_pace *s,
					__u64 now)
{
	return s->last_depart > now ? s->last_depart : now;
}

#endif /* _ROCECC_PACING_H */
