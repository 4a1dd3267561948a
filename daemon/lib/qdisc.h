/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The qdiscs of a netdev over rtnetlink (RTM_GETQDISC dump, libmnl), as
 * "tc qdisc show dev IF" lists them: each one's handle, parent and kind,
 * and for fq the options that pacing depends on (horizon, horizon_drop,
 * flow_limit). rocecc doctor reads them to check that the root qdisc
 * paces (fq, mq of fq, or rocecc's PFC qdisc with fq under every class).
 *
 * A child qdisc the kernel created by default and never hashed (the pfifo
 * under a class of the rocecc qdisc before anything replaced it) is not in
 * a dump: a class without a listed child has its default.
 */
#ifndef _ROCECC_LIB_QDISC_H
#define _ROCECC_LIB_QDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#define QDISC_KIND_MAX	16	/* IFNAMSIZ, the kernel's TCA_KIND bound */

struct qdisc_info {
	uint32_t handle;		/* tcm_handle, e.g. 0x10000 for 1: */
	uint32_t parent;		/* tcm_parent: TC_H_ROOT, 1:4, ... */
	char kind[QDISC_KIND_MAX];	/* "fq", "mq", "rocecc", ... */
	bool fq;			/* kind fq: the three below are read */
	uint32_t fq_horizon_us;		/* TCA_FQ_HORIZON (fq's default 10 s) */
	bool fq_horizon_drop;		/* TCA_FQ_HORIZON_DROP (default on) */
	uint32_t fq_flow_limit;		/* TCA_FQ_FLOW_PLIMIT (default 100) */
};

/*
 * Pure: one RTM_NEWQDISC message into @q and its netdev into *@ifindex.
 * 0; 1 for another message type (skip it); -EBADMSG for a message too
 * short for its tcmsg, without TCA_KIND or with a malformed attribute.
 * fq's options take fq's defaults where absent.
 */
int qdisc_parse(const struct nlmsghdr *nlh, struct qdisc_info *q,
		uint32_t *ifindex);

/*
 * Every qdisc of @ifindex into *@out (malloc'ed, *@n entries; free()).
 * 0 or -errno.
 */
int qdisc_dump(uint32_t ifindex, struct qdisc_info **out, size_t *n);

/* The qdisc of @list whose parent is @parent, or NULL. */
const struct qdisc_info *qdisc_child(const struct qdisc_info *list, size_t n,
				     uint32_t parent);

/* The root qdisc of @list (parent TC_H_ROOT), or NULL. */
const struct qdisc_info *qdisc_root(const struct qdisc_info *list, size_t n);

/* "1:", "1:4", "root" (TC_H_ROOT) for a handle, as tc prints them. */
const char *qdisc_handle_str(uint32_t h, char *buf, size_t len);

#endif /* _ROCECC_LIB_QDISC_H */
