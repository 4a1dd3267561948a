// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA netlink for roceccd. See rdma_nl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "array.h"
#include "rdma_nl.h"

#define RDMA_NL_BUFSZ	(32768 + 4096)

int rdma_nl_open(struct rdma_nl *r)
{
	return nlsock_open(&r->nl, NETLINK_RDMA, RDMA_NL_BUFSZ);
}

void rdma_nl_close(struct rdma_nl *r)
{
	nlsock_close(&r->nl);
}

/* A dump of NLDEV @cmd, of device @index if not ~0, through @cb. */
static int rdma_nl_dump(struct rdma_nl *r, uint8_t cmd, uint32_t index,
			mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(r->nl.buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++r->nl.seq;
	if (index != ~0u)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	return nlsock_call(&r->nl, nlh, cb, data, NULL, 0);
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type > 0 && type < RDMA_NLDEV_ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static void copy_str(char *dst, size_t n, const struct nlattr *a)
{
	size_t len;

	dst[0] = '\0';
	if (!a)
		return;
	len = mnl_attr_get_payload_len(a);
	if (len >= n)
		len = n - 1;
	memcpy(dst, mnl_attr_get_payload(a), len);
	dst[len] = '\0';
}

static uint32_t get_u32(const struct nlattr *a)
{
	return a && mnl_attr_get_payload_len(a) >= 4 ? mnl_attr_get_u32(a) : 0;
}

static uint8_t get_u8(const struct nlattr *a)
{
	return a && mnl_attr_get_payload_len(a) >= 1 ? mnl_attr_get_u8(a) : 0;
}

struct vec {
	void *v;
	size_t n, cap, elsz;
	int err;
};

static void *vec_push(struct vec *v)
{
	void *p;

	p = array_grow(v->v, &v->cap, v->n + 1, v->elsz);
	if (!p) {
		v->err = -ENOMEM;
		return NULL;
	}
	v->v = p;
	p = (char *)v->v + v->n++ * v->elsz;
	memset(p, 0, v->elsz);
	return p;
}

/*
 * Dump @cmd (for device @index, ~0u: all) through @cb, which appends
 * elements of @elsz bytes to a struct vec; the array (malloc'ed, NULL if
 * empty) and its length on success, nothing to free on error.
 */
static int rdma_nl_dump_vec(struct rdma_nl *r, uint8_t cmd, uint32_t index,
			    mnl_cb_t cb, size_t elsz, void **out, size_t *n)
{
	struct vec v = { .elsz = elsz };
	int err = rdma_nl_dump(r, cmd, index, cb, &v);

	if (!err)
		err = v.err;
	if (err) {
		free(v.v);
		return err;
	}
	*out = v.v;
	*n = v.n;
	return 0;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct vec *v = data;
	struct rdma_nl_dev *d;

	mnl_attr_parse(nlh, 0, attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return MNL_CB_OK;
	d = vec_push(v);
	if (!d)
		return MNL_CB_ERROR;
	d->index = get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	copy_str(d->name, sizeof(d->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	copy_str(d->protocol, sizeof(d->protocol),
		 tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]);
	d->nports = get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return MNL_CB_OK;
}

int rdma_nl_devices(struct rdma_nl *r, struct rdma_nl_dev **devs, size_t *n)
{
	return rdma_nl_dump_vec(r, RDMA_NLDEV_CMD_GET, ~0u, dev_cb,
				sizeof(**devs),
				(void **)devs, n);
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct vec *v = data;
	struct rdma_nl_port *p;

	mnl_attr_parse(nlh, 0, attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return MNL_CB_OK;
	p = vec_push(v);
	if (!p)
		return MNL_CB_ERROR;
	p->port = get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	p->ifindex = get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
	copy_str(p->netdev, sizeof(p->netdev), tb[RDMA_NLDEV_ATTR_NDEV_NAME]);
	return MNL_CB_OK;
}

int rdma_nl_ports(struct rdma_nl *r, uint32_t index,
		  struct rdma_nl_port **ports, size_t *n)
{
	return rdma_nl_dump_vec(r, RDMA_NLDEV_CMD_PORT_GET, index, port_cb,
				sizeof(**ports),
				(void **)ports, n);
}

static int qp_entry(const struct nlattr *e, struct vec *v)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct rdma_nl_qp *q;

	mnl_attr_parse_nested(e, attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_RES_LQPN])
		return 0;
	q = vec_push(v);
	if (!q)
		return -ENOMEM;
	q->port = get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	q->lqpn = get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	q->has_rqpn = tb[RDMA_NLDEV_ATTR_RES_RQPN] != NULL;
	q->rqpn = get_u32(tb[RDMA_NLDEV_ATTR_RES_RQPN]);
	q->type = get_u8(tb[RDMA_NLDEV_ATTR_RES_TYPE]);
	q->state = get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]);
	q->pid = get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);
	copy_str(q->kern_name, sizeof(q->kern_name),
		 tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]);
	return 0;
}

static int qp_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	const struct nlattr *e;
	struct vec *v = data;

	mnl_attr_parse(nlh, 0, attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_RES_QP])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(e, tb[RDMA_NLDEV_ATTR_RES_QP]) {
		if (mnl_attr_get_type(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
			continue;
		if (qp_entry(e, v))
			return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int rdma_nl_qps(struct rdma_nl *r, uint32_t index,
		struct rdma_nl_qp **qps, size_t *n)
{
	return rdma_nl_dump_vec(r, RDMA_NLDEV_CMD_RES_QP_GET, index, qp_cb,
				sizeof(**qps),
				(void **)qps, n);
}

const char *rdma_nl_qp_state_name(uint8_t state)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}
