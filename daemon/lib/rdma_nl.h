/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMA netlink (NETLINK_RDMA, the NLDEV client) for roceccd, with libmnl, as
 * iproute2's rdma tool speaks it: RDMA devices and their ports' netdevs
 * (RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_PORT_GET) and the QPs of a device
 * (RDMA_NLDEV_CMD_RES_QP_GET). The kernel dumps ports and resources of one
 * device per request (RDMA_NLDEV_ATTR_DEV_INDEX is required).
 */
#ifndef _ROCECC_RDMA_NL_H
#define _ROCECC_RDMA_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "nlsock.h"

#define RDMA_NL_NAME_MAX	64

struct rdma_nl {
	struct nlsock nl;
};

struct rdma_nl_dev {
	uint32_t index;			/* RDMA_NLDEV_ATTR_DEV_INDEX */
	char name[RDMA_NL_NAME_MAX];	/* rxe1 */
	char protocol[16];		/* "roce", "ib", "iw", "" if unknown */
	uint32_t nports;
};

struct rdma_nl_port {
	uint32_t port;			/* 1-based */
	uint32_t ifindex;		/* netdev, 0 if none (or other netns) */
	char netdev[IF_NAMESIZE];
};

/* IB QP types and states, as enum ib_qp_type / ib_qp_state */
#define RDMA_NL_QPT_RC		2
#define RDMA_NL_QPT_UC		3
#define RDMA_NL_QPS_RTR		2
#define RDMA_NL_QPS_RTS		3
#define RDMA_NL_QPS_ERR		6

struct rdma_nl_qp {
	uint32_t port;			/* 0 if not reported */
	uint32_t lqpn;
	uint32_t rqpn;			/* valid if has_rqpn */
	bool has_rqpn;
	uint8_t type;			/* RDMA_NL_QPT_* */
	uint8_t state;			/* RDMA_NL_QPS_* */
	uint32_t pid;			/* 0: a kernel QP */
	char kern_name[RDMA_NL_NAME_MAX];	/* owner of a kernel QP */
};

int rdma_nl_open(struct rdma_nl *r);
void rdma_nl_close(struct rdma_nl *r);

/*
 * Every RDMA device into *@devs (malloc'ed, *@n entries). 0 or -errno;
 * -EPROTONOSUPPORT if the kernel has no RDMA netlink.
 */
int rdma_nl_devices(struct rdma_nl *r, struct rdma_nl_dev **devs, size_t *n);

/* The ports of device @index. */
int rdma_nl_ports(struct rdma_nl *r, uint32_t index,
		  struct rdma_nl_port **ports, size_t *n);

/* The QPs of device @index. */
int rdma_nl_qps(struct rdma_nl *r, uint32_t index,
		struct rdma_nl_qp **qps, size_t *n);

/* "RTS", "ERR", ... for a QP state; "?" if unknown. */
const char *rdma_nl_qp_state_name(uint8_t state);

#endif /* _ROCECC_RDMA_NL_H */
