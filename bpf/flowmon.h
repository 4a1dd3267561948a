/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * flowmon: per-flow RoCEv2 wire telemetry, the ABI between the TC programs
 * in bpf/flowmon.bpf.c and the userspace that loads them and reads their
 * maps (roceccd, the tests, the benchmark).
 *
 * What a flow is
 * --------------
 * A flow is one RC (or UC) QP pair seen from this host: local QP l on the
 * netdev the programs are attached to, connected to remote QP r of the
 * peer at address a. It is keyed (a, r, ifindex), like the flows of
 * rocecc.ko, because every packet of the pair names those three:
 *
 *   egress  (l -> r): BTH DestQP = r, IP daddr = a: the key directly;
 *   ingress (r -> l): BTH DestQP = l, IP saddr = a: r comes from the QP
 *                     table, which maps (ifindex, l) to r.
 *
 * The QP table (map "qps") is filled by the daemon from RDMA netlink
 * (RDMA_NLDEV_CMD_RES_QP_GET: LQPN and RQPN of every RC/UC QP), keyed by
 * the ifindex of the netdev under the RDMA port, since QPNs are per RDMA
 * device. RDMA netlink does not report the peer's address; the traffic
 * does. Nothing is guessed from UDP ports.
 *
 * Counting starts with a pair's first packet, whichever way it goes and
 * whether or not the daemon knows the QP yet, under a key the packet
 * itself carries:
 *
 *  - an egress RC/UC packet (or CNP) of no flow creates (a, r, ifindex),
 *    its key, with the local QP unknown (lqpn 0): the requester state
 *    starts with the QP's first request;
 *  - an ingress RC/UC packet (or CNP) for a local QP l the table does not
 *    know yet is counted in the "pending" map under (a, l, ifindex), the
 *    key it carries: its counters, and each response it is (opcode,
 *    syndrome, PSN, time) in a ring of FLOWMON_PEND_RESPS;
 *  - once the daemon has put (ifindex, l) -> r in the table, the next
 *    ingress packet for l finds its flow (a, r, ifindex) and records l in
 *    it. That packet, the flow's first resolved one (lqpn still 0), first
 *    folds the pending entry (a, l, ifindex), if there is one, into the
 *    flow: counters added, its responses replayed in order onto the
 *    requester state, so that the messages and RTT probes they completed
 *    are timed as if the flow had been known (the replay needs nothing
 *    but the times), and the entry deleted (stats.pend_merged). It does
 *    not wait for the daemon's FLOWMON_QP_MERGE mark, which comes later
 *    in the daemon's round (it writes the entry, then marks it when it
 *    sees the pending entry): a response applied before the older ones
 *    kept there would complete their messages at its own, later time.
 *    The mark folds in a pending entry that a flow already resolved
 *    gets (its qps entry was gone for a while): the next packet does it.
 *
 * What a stranger's packets can create is bounded: the pending map has
 * FLOWMON_MAX_PENDING entries (full: the packet counts as unknown,
 * stats.pend_full), and each new pending entry or flow is announced on
 * the "events" ring buffer (struct flowmon_event), so that the daemon
 * learns the new QP at once instead of at its next poll, and removes
 * what belongs to no QP of this host (its own counters). A pending
 * entry's responses beyond FLOWMON_PEND_RESPS are counted but not timed
 * (stats.pend_resp_lost). UD packets (QP 1's CM MADs, ...) create nothing
 * and count as unknown.
 *
 * If the table maps a different local QP to an existing (a, r, ifindex) (a
 * remote QP reused, its old local QP gone), the flow is replaced by a
 * fresh one (stats.flow_replaced). The daemon deletes the flows of QPs
 * that vanished from RDMA netlink: nothing ages out by itself.
 *
 * What is measured
 * ----------------
 * Times are taken when a packet passes the TC hook (egress: before the
 * qdisc, so time a request waits in fq for its pacing departure time is
 * part of the latencies; ingress: before the IP stack and rxe).
 *
 *  RTT: an RC request with the AckReq bit, sent at t0, to the response
 *       that carries its PSN, received at t1: a positive ACK or an atomic
 *       ACK with that PSN, or the first (or only) read response packet of
 *       a read request. Not sampled: a request that was retransmitted
 *       (Karn: the response is ambiguous), and one acknowledged only by a
 *       coalesced ACK for a later PSN (its own ACK never came). An ACK that
 *       arrives late (reordered) still samples its request.
 *  MCT: message completion time, from the first packet of a message (the
 *       *_FIRST or *_ONLY request) to the response that completes it, by
 *       the requester's rules (as rdma_rxe's completer applies them):
 *       a send or write whose last PSN is p completes on a positive ACK
 *       for PSN >= p, or on any other response (NAK, RNR NAK, read
 *       response) for a PSN > p (an implicit ACK); a read completes on a
 *       READ_RESP_LAST/ONLY for a PSN at or after its request's PSN (the
 *       read's length is not known here, so with several reads in flight
 *       and the first one's responses lost, the next read's last response
 *       would be taken for the first's), an atomic on the ATOMIC_ACK for
 *       its PSN. Messages complete in order, as at the requester: one
 *       waiting for its own response holds back those after it. A
 *       retransmitted message keeps the time of its first transmission:
 *       retransmission delay is part of its MCT.
 *  Counters: packets and bytes (IP header to ICRC) each way, CE-marked
 *       packets received, CNPs sent and received, ACKs and NAKs received
 *       (whatever their PSN; a response for a PSN not sent is counted and
 *       otherwise ignored), requests sent with AckReq, messages sent,
 *       retransmitted requests, and what was not sampled and why.
 *
 * Both are histograms of nanoseconds in the layout FLOWMON_HIST_* of
 * include/rocecc/hist.h: 16 sub-buckets per power of two up to 2^34 ns
 * (17 s), so a percentile from them is within 1/32 (3.125 %) of the exact
 * percentile of the samples.
 *
 * Bounded state: FLOWMON_PROBES request probes, indexed by PSN, and a ring
 * of FLOWMON_MSGS pending messages per flow, both 128: rdma_rxe never has
 * more than 128 (+1) PSNs unacknowledged (RXE_MAX_UNACKED_PSNS). Beyond
 * that, samples are lost and counted (rtt_overrun, mct_overrun); while a
 * QP is pending its messages are not completed, so the ring holds
 * FLOWMON_MSGS messages sent before the daemon resolved it (which the
 * events make a matter of milliseconds). A flow is 11.5 KiB, two thirds
 * of it histograms; hash maps preallocate, so the default 1024 flows take
 * 12 MiB of kernel memory, and the 256 pending entries of 4.1 KiB 1 MiB.
 *
 * Reading
 * -------
 * A flow's value holds a struct bpf_spin_lock: read it with
 * bpf_map_lookup_elem_flags(..., BPF_F_LOCK) for a consistent copy of the
 * counters and the requester state. The histograms are the exception:
 * the programs add samples to them with atomic adds after dropping the
 * lock (see flowmon.bpf.c), so a copy may hold a sample's sum_ns without
 * its bucket, or the reverse, for the instant in between. Counters and
 * histograms only grow (until the flow is deleted or replaced). "stats" is
 * a per-CPU array of one struct flowmon_stats: sum over the CPUs.
 */
#ifndef _ROCECC_FLOWMON_H
#define _ROCECC_FLOWMON_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <rocecc/hist.h>

#define FLOWMON_HIST_SUB_BITS	4	/* 16 sub-buckets: <= 3.125 % */
#define FLOWMON_HIST_RANGE_BITS	34	/* nanoseconds up to 17.2 s */
#define FLOWMON_HIST_BUCKETS	ROCECC_HIST_NBUCKETS(FLOWMON_HIST)	/* 497 */

#define FLOWMON_PROBES		128	/* power of two */
#define FLOWMON_MSGS		128	/* power of two */

/* Default map sizes; the loader may change them before load. */
#define FLOWMON_MAX_QPS		4096
#define FLOWMON_MAX_FLOWS	1024
#define FLOWMON_MAX_PENDING	256

#define FLOWMON_PEND_RESPS	256	/* power of two */
#define FLOWMON_EVENTS_BYTES	(64 * 1024)	/* the ring buffer */

/* qps: (ifindex, local QPN) -> remote QPN, written by the daemon */
struct flowmon_qp_key {
	__u32 ifindex;		/* netdev of the RDMA port */
	__u32 lqpn;		/* local QPN, 24 bits */
};

/* struct flowmon_qp flags */
#define FLOWMON_QP_MERGE	0x1	/* fold pending (peer, lqpn) in; the
					 * programs clear it */

struct flowmon_qp {
	__u32 rqpn;		/* remote QPN, 24 bits */
	__u32 flags;		/* FLOWMON_QP_* */
};

/* flows: the key */
struct flowmon_key {
	__u8 peer[16];		/* IPv6, or IPv4-mapped ::ffff:a.b.c.d */
	__u32 rqpn;		/* remote QPN */
	__u32 ifindex;
};

/*
 * pending: the key, (a, l, ifindex) of an ingress packet whose local QP l
 * is not in qps yet
 */
struct flowmon_pkey {
	__u8 peer[16];		/* IPv6, or IPv4-mapped */
	__u32 lqpn;		/* local QPN */
	__u32 ifindex;
};

/* A response received for a pending QP, replayed when it is resolved */
struct flowmon_resp {
	__u64 t;		/* ns, when it passed the hook */
	__u32 psn;
	__u8 opcode;
	__u8 syndrome;		/* AETH syndrome, 0 without an AETH */
	__u16 pad;
};

/*
 * What the receive side counts, in a flow and in a pending entry (the
 * same names, so that one macro counts both: FM_RX_COUNT in
 * flowmon.bpf.c).
 */
#define FLOWMON_RX_COUNTERS						\
	__u64 rx_pkts;							\
	__u64 rx_bytes;							\
	__u64 rx_ce;			/* received with ECN CE */	\
	__u64 rx_cnp;							\
	__u64 rx_acks;			/* positive ACKs */		\
	__u64 rx_nak_seq;		/* NAK: PSN sequence error */	\
	__u64 rx_nak_other;		/* NAK: invalid request, ... */	\
	__u64 rx_rnr_nak

/* pending: the value */
struct flowmon_pend {
	struct bpf_spin_lock lock;
	__u32 merged;			/* folded into its flow: dead */
	__u64 first_ns;			/* its first packet */
	__u64 last_ns;			/* its latest packet */
	FLOWMON_RX_COUNTERS;
	__u32 nresp;			/* resp[] used */
	__u32 resp_lost;		/* responses beyond resp[] */
	struct flowmon_resp resp[FLOWMON_PEND_RESPS];
};

/* events: a new flow or pending entry, for the daemon */
enum {
	FLOWMON_EV_FLOW = 1,	/* an egress packet created flow (peer, qpn
				 * = remote QPN, ifindex) */
	FLOWMON_EV_PENDING,	/* an ingress packet created pending (peer,
				 * qpn = local QPN, ifindex) */
};

struct flowmon_event {
	__u32 kind;		/* FLOWMON_EV_* */
	__u32 ifindex;
	__u32 qpn;
	__u8 peer[16];
};

/* Samples: the sum of bucket[]. Updated with atomic adds, see "Reading". */
struct flowmon_hist {
	__u64 sum_ns;		/* for the mean */
	__u64 bucket[FLOWMON_HIST_BUCKETS];
};

/* A message whose first packet was sent and whose completion is awaited */
struct flowmon_msg {
	__u64 t_first;		/* ns: first packet sent */
	__u32 last;		/* low 32 bits of its last extended PSN */
	__u32 kind;		/* FLOWMON_MSG_* */
};

enum {
	FLOWMON_MSG_PLAIN,	/* send, write: any ACK covering it */
	FLOWMON_MSG_READ,	/* its READ_RESP_LAST/ONLY */
	FLOWMON_MSG_ATOMIC,	/* its ATOMIC_ACK */
};

/* flows: the value */
struct flowmon_flow {
	struct bpf_spin_lock lock;	/* guards all but the histograms */
	__u32 lqpn;			/* local QPN, 0 until an ingress packet
					 * of a known QP (or the merge) */
	__u64 first_ns;			/* its first packet, either way */
	__u64 last_ns;			/* its latest packet */

	/* every packet of the pair (IP header to ICRC for bytes) */
	__u64 tx_pkts;
	__u64 tx_bytes;
	__u64 tx_cnp;
	FLOWMON_RX_COUNTERS;

	/* our requests (RC) and their responses */
	__u64 tx_ackreq;		/* new requests with AckReq: RTT probes */
	__u64 tx_msgs;			/* messages whose last packet was sent */
	__u64 tx_retrans;		/* retransmitted request packets */
	__u64 rtt_karn;			/* probes dropped: retransmitted */
	__u64 rtt_overrun;		/* probes dropped: table wrapped */
	__u64 mct_overrun;		/* messages not timed: ring full */

	/* requester state, extended PSNs (include/rocecc/psn.h) */
	__u64 snd_nxt;			/* after the newest request; 0: none */
	__u64 snd_una;			/* oldest not yet acknowledged */
	__u64 open_t;			/* first packet of the open message */
	__u32 open;			/* a *_FIRST was sent, no *_LAST yet */
	__u32 read_last;		/* the newest request is a read */
	__u32 msg_head;			/* ring of pending messages */
	__u32 msg_tail;
	__u32 probe_seq[FLOWMON_PROBES];	/* low 32 bits of the PSN */
	__u64 probe_t[FLOWMON_PROBES];		/* sent at; 0: empty */
	struct flowmon_msg msg[FLOWMON_MSGS];

	struct flowmon_hist rtt;
	struct flowmon_hist mct;
};

/* stats: what no flow accounts for; per CPU */
struct flowmon_stats {
	__u64 tx_unknown_pkts;		/* egress RoCE counted nowhere: UD, or
					 * the flow table full */
	__u64 tx_unknown_bytes;
	__u64 rx_unknown_pkts;		/* ingress RoCE counted nowhere: UD,
					 * or the pending map full */
	__u64 rx_unknown_bytes;
	__u64 tx_malformed;		/* to port 4791, truncated or malformed */
	__u64 rx_malformed;
	__u64 flow_full;		/* no room for a new flow */
	__u64 flow_replaced;		/* (peer, rqpn) now another local QP */
	__u64 pend_full;		/* no room for a new pending entry */
	__u64 pend_merged;		/* pending entries folded into flows */
	__u64 pend_resp_lost;		/* of their responses, not kept */
	__u64 events_lost;		/* ring buffer full */
};

#endif /* _ROCECC_FLOWMON_H */
