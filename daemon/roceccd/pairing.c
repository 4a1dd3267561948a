// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the QP table's lookups, and the peer of each QP (rd_qp.peer,
 * which the BPF datapath's dp_qps takes: a CNP from any other address
 * is counted rp_cnp_spoofed and ignored).
 *
 * A QP's peer is the address of the one flow on its netdev that carries
 * its remote QPN (our own packets made it), or, of several, of the one
 * its packets resolved (lqpn).
 */
#include <string.h>

#include "roceccd.h"

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
		rd->qps[i].nflows = 0;
		rd->qps[i].flow_res = false;
	}
}

struct rd_qp *rd_pair_flow(struct rd *rd, const struct flowmon_key *key,
			   const struct flowmon_flow *f)
{
	struct rd_qp *e = rd_qp_of_flow(rd, key, f);

	if (!e || e->rqpn != key->rqpn)
		return e;
	/* a resolved flow wins over unresolved ones */
	if (f->lqpn || (!e->flow_res && !e->nflows))
		memcpy(e->flow_peer, key->peer, sizeof(e->flow_peer));
	if (f->lqpn) {
		e->nflows = 1;
		e->flow_res = true;
	} else if (!e->flow_res) {
		e->nflows++;
	}
	return e;
}

void rd_pair_end(struct rd *rd)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->gone || e->nflows != 1 ||
		    (e->have_peer && !memcmp(e->peer, e->flow_peer, 16)))
			continue;
		memcpy(e->peer, e->flow_peer, sizeof(e->peer));
		e->have_peer = true;
		e->peer_gen++;
	}
}
