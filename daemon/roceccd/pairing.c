// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the QP table's lookups, and the peer of each QP (rd_qp.peer,
 * which the BPF datapath's dp_qps takes: a CNP from any other address
 * is counted rp_cnp_spoofed and ignored).
 *
 * RDMA netlink does not report a QP's peer. The QP's own attributes do:
 * the BPF engine's learner (bpf/qptimeout.bpf.c, fexit of rxe_modify_qp())
 * records the address vector (destination GID) and destination QPN of
 * every modify to RTR, and writes the QP's dp_qps entry with them there
 * and then, before the QP's first packet; rd_bpf_peers() gives them to
 * the QP with rd_pair_av() before each round of the pairing below. Such
 * a peer (peer_av) is final: no flow changes it, whatever its packets,
 * until the QP is reset or its number reused (the learner forgets it
 * then, and a QP that vanished from RDMA netlink gets a new entry).
 *
 * The flows are the fallback, for the QPs the learner did not see reach
 * RTR: those set up before it was attached (a daemon (re)started under
 * running QPs, rdma_rxe loaded after the daemon's last try), on a kernel
 * where it cannot load, or whose number the learner's LRU map evicted.
 * A flow is (peer, remote QPN, netdev), and flowmon makes one for every
 * RC/UC packet or CNP it sees, whichever way it goes:
 *  - egress: our QP sent to that peer's QPN (tx_pkts > 0). A QP sends to
 *    its one peer, and rxe answers only packets from that peer, so no
 *    stranger makes one; but a QP that ended (or whose number came back
 *    for a QP toward another host, unseen between two polls or while no
 *    daemon ran) leaves its own behind, with the same local and remote
 *    QPN;
 *  - ingress only (tx_pkts 0): anyone can make one, with a packet (a CNP
 *    above all) for our QPN from an address of his choice, and flowmon
 *    resolves it to our QP at once.
 * So a QP's peer is that of its flow with our packets in it, the latest
 * active of several (the others are an earlier QP's); a flow nobody sent
 * on names the peer of a QP that has none yet when it is the QP's one
 * such flow and there is none with our packets (a QP that only receives,
 * as a UC responder), and never replaces a peer. The choice is
 * made again every round, from the flows alone, so that a peer adopted
 * from the pins of an earlier daemon or kept from an earlier QP of the
 * same numbers is corrected by the traffic itself.
 * A QP first seen when the learner had surely been watching (av_due:
 * rd_bpf_av_due()) takes no peer from a flow that only received: its
 * address vector names it, and if the learner missed it (a modify in
 * flight while it was attached), only our own packets may.
 *
 * What the fallback still risks: a QP set up before the learner first
 * ran that has not sent yet (or whose sending the daemon has not seen)
 * can be paired with whoever floods CNPs for its QPN first, as the
 * engine did for every QP before the learner knew peers; its own packets
 * correct that at the next round (a flow with our packets outranks).
 * A restart is not such a case: the learner and its map are pinned
 * (bpfdp.c) and go on while no daemon runs, and the restarted daemon
 * adopts them before its first pairing, so the QPs set up before it, or
 * in between, keep their peer_av (a QPN reused in between was seen
 * reset, or destroyed, by the learner: no stale peer survives). Only
 * QPs older than the learner's first attach (rdma_rxe loaded after the
 * engine's last try, the engine attached under running QPs) are paired
 * from flows; and a QP first seen by a restarted daemon is not av_due
 * (it may predate the learner), so a flow that only received may still
 * name its peer when the learner has no entry for it.
 */
#include <string.h>

#include "roceccd.h"

/* How well a flow names its QP's peer, the best last */
enum {
	RD_PAIR_NONE,
	RD_PAIR_RX,	/* we only received on it: anyone can do that */
	RD_PAIR_TX,	/* our packets went there */
};

struct rd_qp *rd_qp_find(struct rd *rd, uint32_t ifindex, uint32_t lqpn)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++)
		if (rd->qps[i].ifindex == ifindex && rd->qps[i].lqpn == lqpn)
			return &rd->qps[i];
	return NULL;
}

/* The one QP of @ifindex whose remote QPN is @rqpn, else NULL */
struct rd_qp *rd_qp_by_rqpn(struct rd *rd, uint32_t ifindex, uint32_t rqpn)
{
	struct rd_qp *found = NULL;
	size_t i;

	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->ifindex != ifindex || e->rqpn != rqpn)
			continue;
		if (found)
			return NULL;	/* two: the key alone cannot tell */
		found = e;
	}
	return found;
}

struct rd_qp *rd_qp_of_flow(struct rd *rd, const struct flowmon_key *key,
			    const struct flowmon_flow *f)
{
	/* a flow an egress packet made names its QP by the remote QPN */
	return f->lqpn ? rd_qp_find(rd, key->ifindex, f->lqpn) :
			 rd_qp_by_rqpn(rd, key->ifindex, key->rqpn);
}

void rd_pair_begin(struct rd *rd)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++) {
		rd->qps[i].pair_rank = RD_PAIR_NONE;
		rd->qps[i].pair_n = 0;
	}
}

struct rd_qp *rd_pair_flow(struct rd *rd, const struct flowmon_key *key,
			   const struct flowmon_flow *f)
{
	struct rd_qp *e = rd_qp_of_flow(rd, key, f);
	uint8_t rank = f->tx_pkts ? RD_PAIR_TX : RD_PAIR_RX;
	bool same;

	if (!e || e->rqpn != key->rqpn || rank < e->pair_rank)
		return e;
	if (rank > e->pair_rank) {
		e->pair_rank = rank;
		e->pair_n = 0;
	}
	/* the same flow again (the caller's walk restarted) counts once */
	same = e->pair_n && !memcmp(e->flow_peer, key->peer, 16);
	if (!same && ++e->pair_n > 1 && f->last_ns <= e->pair_last_ns)
		return e;	/* an earlier QP's */
	e->pair_last_ns = f->last_ns;
	memcpy(e->flow_peer, key->peer, sizeof(e->flow_peer));
	return e;
}

void rd_pair_end(struct rd *rd)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->gone || e->peer_av || e->pair_rank == RD_PAIR_NONE ||
		    (e->pair_rank == RD_PAIR_RX &&
		     (e->pair_n != 1 || e->have_peer || e->av_due)) ||
		    (e->have_peer && !memcmp(e->peer, e->flow_peer, 16)))
			continue;
		memcpy(e->peer, e->flow_peer, sizeof(e->peer));
		e->have_peer = true;
		e->peer_gen++;
	}
}

void rd_pair_av(struct rd_qp *e, const uint8_t *raddr)
{
	if (!e->have_peer || memcmp(e->peer, raddr, 16))
		e->peer_gen++;
	memcpy(e->peer, raddr, sizeof(e->peer));
	e->have_peer = true;
	e->peer_av = true;
}
