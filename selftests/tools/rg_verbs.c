// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen's verbs plumbing: device and GID choice, CQ with completion
 * channel, registered buffer, RC QP state transitions. Every failure is
 * reported here, naming the device and what was asked.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocegen.h"

static bool gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

static const char *gid_type_str(unsigned int t)
{
	switch (t) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	}
	return "unknown";
}

static int pick_gid(struct rg_dev *d, const struct ibv_port_attr *pa,
		    int gid_index)
{
	struct ibv_gid_entry e;
	int i, r;

	if (gid_index >= 0) {
		if (gid_index >= pa->gid_tbl_len) {
			rg_err("--gid-index: %d is past %s port %u's GID table (%d entries)",
			       gid_index, d->name, d->port, pa->gid_tbl_len);
			return -1;
		}
		r = ibv_query_gid_ex(d->ctx, d->port, gid_index, &e, 0);
		if (r) {
			rg_err("--gid-index: %s port %u GID %d is not usable: %s",
			       d->name, d->port, gid_index, strerror(r));
			return -1;
		}
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			rg_warn("%s GID %d is %s, not RoCE v2", d->name,
				gid_index, gid_type_str(e.gid_type));
		d->gid_index = gid_index;
		memcpy(&d->gid, &e.gid, sizeof(d->gid));
		return 0;
	}
	for (i = 0; i < pa->gid_tbl_len; i++) {
		if (ibv_query_gid_ex(d->ctx, d->port, i, &e, 0))
			continue;	/* empty slot */
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    !gid_is_v4mapped((union ibv_gid *)&e.gid))
			continue;
		d->gid_index = i;
		memcpy(&d->gid, &e.gid, sizeof(d->gid));
		return 0;
	}
	rg_err("%s port %u has no IPv4 RoCE v2 GID (has its netdev an IPv4 address?); force one with --gid-index",
	       d->name, d->port);
	return -1;
}

static const char *port_state_str(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

int rg_dev_open(struct rg_dev *d, const char *name, uint8_t port,
		int gid_index)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_port_attr pa;
	char names[256] = "";
	int n, i, r;

	memset(d, 0, sizeof(*d));
	d->port = port;
	d->gid_index = -1;
	list = ibv_get_device_list(&n);
	if (!list) {
		if (errno == ENOSYS)
			rg_err("no RDMA support in this kernel (no /sys/class/infiniband_verbs: load ib_uverbs and rdma_rxe)");
		else
			rg_err("cannot list RDMA devices: %s", strerror(errno));
		return -1;
	}
	if (!n) {
		rg_err("no RDMA devices (load rdma_rxe and add one: rdma link add rxe0 type rxe netdev eth0)");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const char *dn = ibv_get_device_name(list[i]);
		size_t len = strlen(names);

		snprintf(names + len, sizeof(names) - len, "%s%s",
			 i ? ", " : "", dn);
		if (name && !strcmp(name, dn))
			dev = list[i];
	}
	if (name && !dev) {
		rg_err("--dev: no RDMA device '%s' (have: %s)", name, names);
		goto fail;
	}
	if (!name) {
		if (n > 1) {
			rg_err("several RDMA devices (%s): choose one with --dev",
			       names);
			goto fail;
		}
		dev = list[0];
	}
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	d->ctx = ibv_open_device(dev);
	if (!d->ctx) {
		rg_err("%s: cannot open device: %s", d->name, strerror(errno));
		goto fail;
	}
	ibv_free_device_list(list);
	list = NULL;
	r = ibv_query_device(d->ctx, &d->attr);
	if (r) {
		rg_err("%s: ibv_query_device: %s", d->name, strerror(r));
		goto fail;
	}
	if (port < 1 || port > d->attr.phys_port_cnt) {
		rg_err("--ib-port: %s has no port %u (ports 1..%u)", d->name,
		       port, d->attr.phys_port_cnt);
		goto fail;
	}
	r = ibv_query_port(d->ctx, port, &pa);
	if (r) {
		rg_err("%s port %u: ibv_query_port: %s", d->name, port,
		       strerror(r));
		goto fail;
	}
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		rg_err("%s port %u is not Ethernet (RoCE); rocegen speaks RoCE only",
		       d->name, port);
		goto fail;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		rg_err("%s port %u is %s, not ACTIVE (is its netdev up?)",
		       d->name, port, port_state_str(pa.state));
		goto fail;
	}
	d->active_mtu = pa.active_mtu;
	if (pick_gid(d, &pa, gid_index))
		goto fail;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		rg_err("%s: ibv_alloc_pd: %s", d->name, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (list)
		ibv_free_device_list(list);
	rg_dev_close(d);
	return -1;
}

int rg_dev_cq(struct rg_dev *d, int cqe)
{
	int fl;

	if (cqe > d->attr.max_cqe) {
		rg_err("%s: need a CQ of %d entries, device allows %d (lower --qps or --depth)",
		       d->name, cqe, d->attr.max_cqe);
		return -1;
	}
	d->ch = ibv_create_comp_channel(d->ctx);
	if (!d->ch) {
		rg_err("%s: ibv_create_comp_channel: %s", d->name,
		       strerror(errno));
		return -1;
	}
	fl = fcntl(d->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(d->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		rg_err("%s: completion channel: fcntl: %s", d->name,
		       strerror(errno));
		return -1;
	}
	d->cq = ibv_create_cq(d->ctx, cqe, NULL, d->ch, 0);
	if (!d->cq) {
		rg_err("%s: ibv_create_cq(%d): %s", d->name, cqe,
		       strerror(errno));
		return -1;
	}
	return 0;
}

int rg_dev_buf(struct rg_dev *d, size_t size, int access)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t alloc = (size + (size_t)pg - 1) & ~((size_t)pg - 1);
	int r;

	if (!alloc)
		alloc = (size_t)pg;
	r = posix_memalign(&d->buf, (size_t)pg, alloc);
	if (r) {
		d->buf = NULL;
		rg_err("cannot allocate %zu bytes: %s", alloc, strerror(r));
		return -1;
	}
	memset(d->buf, 0x5a, alloc);
	d->buf_size = alloc;
	d->mr = ibv_reg_mr(d->pd, d->buf, alloc, access);
	if (!d->mr) {
		rg_err("%s: ibv_reg_mr(%zu bytes): %s", d->name, alloc,
		       strerror(errno));
		return -1;
	}
	return 0;
}

void rg_dev_close(struct rg_dev *d)
{
	if (d->mr)
		ibv_dereg_mr(d->mr);
	free(d->buf);
	if (d->cq) {
		if (d->unacked_events)
			ibv_ack_cq_events(d->cq, d->unacked_events);
		ibv_destroy_cq(d->cq);
	}
	if (d->ch)
		ibv_destroy_comp_channel(d->ch);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->mr = NULL;
	d->buf = NULL;
	d->cq = NULL;
	d->ch = NULL;
	d->pd = NULL;
	d->ctx = NULL;
}

struct ibv_qp *rg_qp_create(struct rg_dev *d, uint32_t max_send,
			    uint32_t max_recv)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.cap = {
			.max_send_wr = max_send,
			.max_recv_wr = max_recv,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct ibv_qp *qp;

	if ((int)max_send > d->attr.max_qp_wr ||
	    (int)max_recv > d->attr.max_qp_wr) {
		rg_err("%s: a QP of %u send / %u receive WRs exceeds the device's %d (lower --depth)",
		       d->name, max_send, max_recv, d->attr.max_qp_wr);
		return NULL;
	}
	qp = ibv_create_qp(d->pd, &ia);
	if (!qp)
		rg_err("%s: ibv_create_qp: %s", d->name, strerror(errno));
	return qp;
}

int rg_qp_connect(struct rg_dev *d, struct ibv_qp *qp,
		  const struct rg_conn_attr *a)
{
	struct ibv_qp_attr at;
	int r;

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.pkey_index = 0;
	at.port_num = d->port;
	at.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (r) {
		rg_err("%s: QP %u to INIT: %s", d->name, qp->qp_num,
		       strerror(r));
		return -1;
	}

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = a->mtu;
	at.dest_qp_num = a->remote_qpn;
	at.rq_psn = a->remote_psn;
	at.max_dest_rd_atomic = a->max_rd_atomic;
	at.min_rnr_timer = a->min_rnr_timer;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = a->remote_gid;
	at.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.grh.traffic_class = a->tclass;
	at.ah_attr.port_num = d->port;
	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (r) {
		char g[INET6_ADDRSTRLEN];

		rg_gid_to_str(&a->remote_gid, g, sizeof(g));
		rg_err("%s: QP %u to RTR (peer QP %u at %s): %s", d->name,
		       qp->qp_num, a->remote_qpn, g, strerror(r));
		return -1;
	}

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = a->local_psn;
	at.timeout = a->timeout;
	at.retry_cnt = a->retry;
	at.rnr_retry = a->rnr_retry;
	at.max_rd_atomic = a->max_rd_atomic;
	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (r) {
		rg_err("%s: QP %u to RTS: %s", d->name, qp->qp_num,
		       strerror(r));
		return -1;
	}
	return 0;
}

int rg_qp_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &at, IBV_QP_STATE);
}

int rg_cq_arm(struct rg_dev *d)
{
	int r;

	if (d->armed)
		return 0;
	r = ibv_req_notify_cq(d->cq, 0);
	if (r) {
		rg_err("%s: ibv_req_notify_cq: %s", d->name, strerror(r));
		return -1;
	}
	d->armed = true;
	return 0;
}

int rg_cq_consume_event(struct rg_dev *d)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(d->ch, &cq, &cq_ctx)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		rg_err("%s: ibv_get_cq_event: %s", d->name, strerror(errno));
		return -1;
	}
	d->armed = false;
	if (++d->unacked_events >= 64) {
		ibv_ack_cq_events(d->cq, d->unacked_events);
		d->unacked_events = 0;
	}
	return 1;
}

void rg_hwc_read(const struct rg_dev *d, struct rg_hwc *c)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *dp;

	c->n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/hw_counters",
		 d->name, d->port);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp)) && c->n < RG_HWC_MAX) {
		unsigned long long v;
		FILE *f;
		int ok;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan") ||
		    strlen(de->d_name) >= sizeof(c->name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%llu", &v) == 1;
		fclose(f);
		if (!ok)
			continue;
		memcpy(c->name[c->n], de->d_name, strlen(de->d_name) + 1);
		c->val[c->n++] = v;
	}
	closedir(dp);
}

void rg_gid_to_hex(const union ibv_gid *g, char out[33])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", g->raw[i]);
}

int rg_gid_from_hex(const char *s, union ibv_gid *g)
{
	unsigned int i, v;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		g->raw[i] = (uint8_t)v;
	}
	return 0;
}

void rg_gid_to_str(const union ibv_gid *g, char *out, size_t len)
{
	if (gid_is_v4mapped(g)) {
		if (inet_ntop(AF_INET, g->raw + 12, out, (socklen_t)len))
			return;
	} else if (inet_ntop(AF_INET6, g->raw, out, (socklen_t)len)) {
		return;
	}
	snprintf(out, len, "?");
}

unsigned int rg_mtu_bytes(enum ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256:
		return 256;
	case IBV_MTU_512:
		return 512;
	case IBV_MTU_1024:
		return 1024;
	case IBV_MTU_2048:
		return 2048;
	case IBV_MTU_4096:
		return 4096;
	}
	return 0;
}

enum ibv_mtu rg_mtu_from_bytes(unsigned int bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	case 4096:
		return IBV_MTU_4096;
	}
	return 0;
}
