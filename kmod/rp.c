// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the reaction point. Byte counting and rate events go to the
 * shared DCQCN core (rocecc/dcqcn.h); this file turns its rate into
 * departure times and keeps them inside the QP's timeout budget.
 *
 * Pacing (earliest departure time, EDT)
 * -------------------------------------
 * The arithmetic is shared (rocecc/pacing.h): a packet handed to IP at
 * `now` gets a departure time from its flow's next_tx, capped by the QP's
 * timeout budget around its last AckReq departure and by
 * pacing_max_delay_us, never before the flow's previous packet. Here, if
 * that time is after `now`, the skb gets skb->tstamp = start as a
 * CLOCK_MONOTONIC stamp (rocecc_skb_set_edt(), what fq compares with
 * ktime_get_ns()), and the fq qdisc holds it until then. Nothing is ever
 * dropped for pacing: rxe stops handing over packets when 65 skbs of a QP
 * are in flight (freed only when they leave the qdisc), which is the
 * backpressure. A drop would make 6.1's rxe roll back and retry at once,
 * a busy loop, and fails the work request and the QP on 6.12, whose rxe
 * no longer retries a failed ip_local_out().
 *
 * The budget
 * ----------
 * pacing_budget_pct (20) of the QP's timeout as rxe's jiffies timer really
 * applies it (rocecc_pace_budget_ns() at this kernel's HZ), at most
 * pacing_max_delay_us; the timeout comes from ib_query_qp() through the QP
 * cache, and until it is known pacing_default_budget_us applies (8 ms:
 * safe for timeout exponents of 12 and up). pacing_max_delay_us (1 s)
 * keeps departure times inside fq's horizon (10 s by default; attach
 * checks it). The rest of the timeout is for what pacing does not see:
 * the switch queue the ACK-requesting packet meets (Kmax 80 KB is 32 ms
 * at the testbed's 20 Mb/s), the return path and a late softirq (a
 * starved TCG vCPU stalls for tens of ms); with 50 % (30 ms of timeout
 * 14's 60 ms) 2-to-1 incasts retransmitted 14-75 times a run.
 *
 * With pacing_ack_req (on) the hook sets BTH AckReq on an RC request
 * after which the next packet could only leave past the budget
 * (rocecc/pacing.h, "Asking for ACKs"; counted: pacing_ackreq): rxe's
 * responder acknowledges any packet that asks, and that ACK re-arms the
 * sender's timer. So a QP is paced down to one packet per budget (1 KB
 * per 12 ms, 0.7 Mb/s, at timeout 14), whatever its message size. Below
 * that, or without asking, the cap binds and the flow runs faster than
 * its DCQCN rate (counted: pacing_capped): the timeout wins over the
 * rate; without asking that happens below one message per budget (16 KB
 * messages: 11 Mb/s).
 *
 * Detach first stops pacing the device (draining, rocecc_dp_dev_drain()):
 * from then on a packet leaves with the last one its flow held, if that
 * is later than now (rocecc_pace_unpaced()), and so does one of a device
 * whose qdisc stopped pacing (pace_ok); otherwise it would overtake them
 * in fq (pacing.h, "When pacing stops").
 *
 * READ responses are data the responder sends; they belong to the flow
 * (remote = the requester's QP), their bytes count for the byte counter
 * and they are ECT-marked, but they are not delayed: rxe's responder has
 * no in-flight limit, so delayed responses would pile up in fq until its
 * flow_limit drops them, and rxe turns a failed transmit of a response
 * into an RNR NAK. Their rate is therefore not enforced (unpaced_pkts).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/spinlock.h>
#include <linux/string.h>

#include "rocecc.h"
#include "dp.h"

/*
 * Take the budget of the flow's local QP from its resolved entry @e, if @e
 * is really the QP of this flow. Caller holds f->lock.
 */
void rocecc_rp_set_budget(struct rocecc_flow *f, u32 lqpn,
			  const struct rocecc_qp *e)
{
	if (e->rqpn != f->key.rqpn || memcmp(e->raddr, f->key.raddr, 16))
		return;
	/* read without the lock: rocecc_rp_tx(), rocecc_flow_of_qp() */
	WRITE_ONCE(f->lqpn, lqpn);
	f->qp_timeout = e->timeout;
	f->pace.budget_ns = e->budget_ns;
	WRITE_ONCE(f->budget_known, true);
}

/*
 * A data packet of @f is handed to IP at @now. Counts it, runs the RP,
 * and returns its departure time, or 0 to send it at once. *@ask: the
 * caller is to set BTH AckReq on the packet (only if @tx->may_ask).
 */
u64 rocecc_rp_tx(struct rocecc_dev *rdev, const struct rocecc_params *p,
		 struct rocecc_flow *f, const struct rocecc_tx *tx, u64 now,
		 bool *ask)
{
	u32 line = READ_ONCE(rdev->dp.line_rate_kbps);
	bool pace = tx->pace && READ_ONCE(rdev->dp.pace_ok) &&
		    !READ_ONCE(rdev->dp.draining);
	struct rocecc_qp *e = NULL;
	u64 max_delay = (u64)READ_ONCE(rocecc_pacing_max_delay_us) *
			NSEC_PER_USEC;
	unsigned long tick = jiffies;
	u64 start, depart = 0, inc;
	u32 flags = 0;

	/*
	 * The QP's entry: for its timeout until the flow has it, and once a
	 * jiffy in any case. The lookup marks the entry used, and an entry
	 * unused for flow_idle_ms is dropped (qp.c): without this, the entry
	 * of a QP that sends without pause would expire, and the CNPs its
	 * remote sends would find no resolved entry (resolver_miss) until
	 * the resolver has made a new one.
	 */
	if (tx->lqpn && (READ_ONCE(f->lqpn) != tx->lqpn ||
			 !READ_ONCE(f->budget_known) ||
			 READ_ONCE(f->qp_seen) != tick)) {
		WRITE_ONCE(f->qp_seen, tick);
		e = rocecc_qp_lookup(rdev, tx->lqpn, ROCECC_QP_LOCAL);
		if (e && !rocecc_qp_resolved(e))
			e = NULL;
	}

	spin_lock_bh(&f->lock);
	if (tx->lqpn && f->lqpn != tx->lqpn) {
		WRITE_ONCE(f->lqpn, tx->lqpn);
		WRITE_ONCE(f->budget_known, false);
		f->pace.budget_ns =
			(u64)READ_ONCE(rocecc_pacing_default_budget_us) *
			NSEC_PER_USEC;
	}
	if (e && !f->budget_known)
		rocecc_rp_set_budget(f, tx->lqpn, e);
	rocecc_flow_sync_params(f, p, line);

	inc = f->rp.inc_timer + f->rp.inc_byte;
	rocecc_rp_on_send(&f->rp, p, now, tx->len);
	if (f->rp.inc_timer + f->rp.inc_byte != inc)
		f->last_increase = now;
	f->bytes += tx->len;
	f->pkts++;
	if (!tx->pace)
		f->unpaced_pkts++;

	if (pace) {
		start = rocecc_pace(&f->pace, &f->rp, now, tx->len,
				    tx->ack_req, tx->may_ask, max_delay, &flags);
		if (flags & ROCECC_PACE_CAPPED)
			f->pacing_capped++;
		if (flags & ROCECC_PACE_ACKREQ)
			f->pacing_ackreq++;
		if (flags & ROCECC_PACE_DELAYED) {
			depart = start;
			f->pacing_delayed++;
		}
	} else if (tx->pace) {
		/* behind what pacing still holds (pacing.h) */
		start = rocecc_pace_unpaced(&f->pace, now);
		if (start > now)
			depart = start;
	}
	spin_unlock_bh(&f->lock);

	if (flags & ROCECC_PACE_DELAYED)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_DELAYED);
	if (flags & ROCECC_PACE_CAPPED)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_CAPPED);
	if (flags & ROCECC_PACE_ACKREQ)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_ACKREQ);
	*ask = flags & ROCECC_PACE_ACKREQ;
	return depart;
}

/* A CNP for @f arrived at @now. */
void rocecc_rp_cnp(struct rocecc_dev *rdev, const struct rocecc_params *p,
		   struct rocecc_flow *f, u64 now)
{
	u32 line = READ_ONCE(rdev->dp.line_rate_kbps);
	bool handled;
	u64 inc;

	spin_lock_bh(&f->lock);
	rocecc_flow_sync_params(f, p, line);
	inc = f->rp.inc_timer + f->rp.inc_byte;
	handled = rocecc_rp_on_cnp(&f->rp, p, now);
	if (f->rp.inc_timer + f->rp.inc_byte != inc)
		f->last_increase = now;
	f->last_cnp_rx = now;
	spin_unlock_bh(&f->lock);

	rocecc_ctr_inc(rdev, handled ? ROCECC_CTR_RP_CNP_HANDLED :
				       ROCECC_CTR_RP_CNP_IGNORED);
}
