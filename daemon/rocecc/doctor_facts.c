// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc doctor: gathering the facts (doctor.h). Every read that fails
 * leaves its fact unknown or records the error; the checks decide what
 * that means. Nothing here changes the system.
 *
 * Sources: RDMA netlink (RoCE devices, ports, netdevs), libibverbs (the
 * port's active and largest MTU: RDMA netlink has no MTU), sysfs (netdev
 * MTU and speed, transmit queues, GIDs and their types and netdevs, the
 * module's parameters, BTF), configfs (rdma_cm's default RoCE mode), the
 * running kernel's config (CONFIG_HZ), rocecc.ko's generic netlink (is the
 * netdev attached, its counters, parameters and flows: the QPs' ACK
 * timeouts, which RDMA netlink does not report for rxe), the BPF engine
 * (its TC filters, its pinned dp_devs and dp_qps maps), DCB netlink (PFC,
 * buffers, APP table), route netlink (qdiscs), roceccd's configuration
 * file, its pid and its HTTP endpoint.
 */
#define _GNU_SOURCE		/* memmem() */
#include <arpa/inet.h>
#include <dirent.h>
#include <net/if.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include <rocecc/pacing.h>
#include <uapi/linux/rocecc.h>

#include "lib/array.h"
#include "lib/bpf_dp.h"
#include "lib/dcbnl.h"
#include "lib/http_get.h"
#include "lib/qdisc.h"
#include "lib/rdma_nl.h"
#include "cli.h"
#include "doctor.h"

#define MOD_PARAMS	"/sys/module/rocecc/parameters/"

/* ---- small readers ------------------------------------------------------ */

/* The first line of @path, without its newline: length, or -errno. */
static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t l;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		buf[0] = '\0';
		return -EIO;
	}
	fclose(f);
	l = strcspn(buf, "\n");
	buf[l] = '\0';
	return (int)l;
}

static bool read_uint(const char *path, unsigned long *v)
{
	char buf[32], *end;

	if (read_line(path, buf, sizeof(buf)) <= 0)
		return false;
	errno = 0;
	*v = strtoul(buf, &end, 0);
	return !errno && end != buf && !*end;
}

/* SYSFS/class/net/@dev/@attr as an unsigned integer, or 0 */
static unsigned int net_uint(const char *sysfs, const char *dev,
			     const char *attr)
{
	char path[HWCC_PATH_MAX];
	unsigned long v;

	snprintf(path, sizeof(path), "%s/class/net/%s/%s", sysfs, dev, attr);
	return read_uint(path, &v) && v <= 0xffffffffUL ? (unsigned int)v : 0;
}

/* ---- the host ------------------------------------------------------------ */

/* CONFIG_HZ of the running kernel from /boot/config-RELEASE, or 0 */
static unsigned int kernel_hz(const char *release)
{
	char path[160], line[128];
	unsigned int hz = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CONFIG_HZ=%u", &hz) == 1)
			break;
	fclose(f);
	return hz;
}

static void host_kernel(struct doc_host *h)
{
	struct utsname u;

	if (!uname(&u))
		snprintf(h->release, sizeof(h->release), "%s", u.release);
	h->btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	h->hz = kernel_hz(h->release);
	h->systemd = !access("/run/systemd/system", F_OK);
}

static void host_module(struct doc_facts *f)
{
	f->nl_open = !rnl_open(&f->nl);
	f->host.module_loaded = f->nl_open;
}

/* rocecc.ko's pacing knobs, its module parameters */
static void module_pacing(struct doc_dev *d)
{
	unsigned long pct, def, max;

	d->have_pacing = read_uint(MOD_PARAMS "pacing_budget_pct", &pct) &&
			 read_uint(MOD_PARAMS "pacing_default_budget_us", &def) &&
			 read_uint(MOD_PARAMS "pacing_max_delay_us", &max);
	if (d->have_pacing) {
		d->budget_pct = (uint32_t)pct;
		d->default_budget_us = (uint32_t)def;
		d->max_delay_us = (uint32_t)max;
	}
}

/* roceccd's configuration: the file given, or the default if it exists */
static void host_conf(struct doc_host *h, const struct doc_args *a)
{
	const char *path = a->config ? a->config : RD_CONF_DEFAULT_PATH;
	char err[DOC_TEXT];

	snprintf(h->conf_path, sizeof(h->conf_path), "%s", path);
	rd_conf_defaults(&h->conf);
	if (!a->config && access(path, F_OK))
		return;		/* no configuration: nothing expected of it */
	if (rd_conf_load(&h->conf, path, err, sizeof(err)) ||
	    rd_conf_check(&h->conf, path, err, sizeof(err))) {
		snprintf(h->conf_err, sizeof(h->conf_err), "%s", err);
		rd_conf_defaults(&h->conf);
		return;
	}
	h->have_conf = true;
}

/* Is @pid a running roceccd? */
static bool is_roceccd(long pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	return read_line(path, comm, sizeof(comm)) > 0 &&
	       !strcmp(comm, "roceccd");
}

/* roceccd's pid: from the pid file if one was given, else from /proc */
static void host_pid(struct doc_host *h, const struct doc_args *a)
{
	char buf[32], *end;
	struct dirent *e;
	long pid;
	DIR *d;

	if (a->pidfile) {
		snprintf(h->pidfile, sizeof(h->pidfile), "%s", a->pidfile);
		if (read_line(a->pidfile, buf, sizeof(buf)) <= 0)
			return;
		pid = strtol(buf, &end, 10);
		if (*end || pid <= 0 || !is_roceccd(pid)) {
			h->pidfile_stale = true;
			return;
		}
		h->rd_pid = pid;
		return;
	}
	d = opendir("/proc");
	if (!d)
		return;
	while ((e = readdir(d))) {
		pid = strtol(e->d_name, &end, 10);
		if (!*end && pid > 0 && is_roceccd(pid)) {
			h->rd_pid = pid;
			break;
		}
	}
	closedir(d);
}

/* GET /metrics of the configured endpoint; the body into f->metrics */
static void host_http(struct doc_facts *f)
{
	struct doc_host *h = &f->host;
	const char *addr = h->conf.listen;
	char port[8];

	if (!strcmp(addr, "0.0.0.0"))
		addr = "127.0.0.1";
	else if (!strcmp(addr, "::"))
		addr = "::1";
	snprintf(port, sizeof(port), "%u", h->conf.port);
	http_url(h->url, sizeof(h->url), addr, port, "/metrics");
	if (!h->rd_pid)
		return;
	if (http_get(h->url, &f->metrics, &h->http_status, h->http_err,
		     sizeof(h->http_err))) {
		h->http_status = 0;
		f->metrics = NULL;
	}
}

/* ---- rocecc.ko ----------------------------------------------------------- */

static int dev_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct doc_dev *d = data;
	const struct nlattr *a;
	struct attrs at;

	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_ERROR;
	d->module = true;
	d->sw_dcb = at.tb[ROCECC_A_DEV_SW_DCB] &&
		    mnl_attr_get_u8(at.tb[ROCECC_A_DEV_SW_DCB]);
	if (!at.tb[ROCECC_A_STATS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(a, at.tb[ROCECC_A_STATS])
		if (mnl_attr_get_type(a) == ROCECC_STAT_ECT_MARKED &&
		    mnl_attr_get_payload_len(a) == 8) {
			d->have_ect = true;
			d->ect_marked = mnl_attr_get_u64(a);
		}
	return MNL_CB_OK;
}

static int param_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct doc_dev *d = data;
	uint32_t v[ROCECC_PARAM_MAX + 1] = { 0 };
	bool have[ROCECC_PARAM_MAX + 1];
	struct attrs at;

	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_ERROR;
	parse_params(at.tb[ROCECC_A_PARAMS], v, have);
	if (have[ROCECC_PARAM_NP_CNP_DSCP] && have[ROCECC_PARAM_NP_CNP_PRIO]) {
		d->have_cnp = true;
		d->cnp_dscp = v[ROCECC_PARAM_NP_CNP_DSCP];
		d->cnp_prio = v[ROCECC_PARAM_NP_CNP_PRIO];
	}
	return MNL_CB_OK;
}

/* A flow's local QP and its timeout, if the module knows it */
static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	struct doc_dev *d = data;
	uint32_t lqpn = 0, timeout = 0;
	const struct nlattr *a;
	bool known = false;
	struct attrs at;
	unsigned int i;

	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_ERROR;
	if (!at.tb[ROCECC_A_FLOW] || attr_ifindex(&at) != d->ifindex)
		return MNL_CB_OK;
	mnl_attr_for_each_nested(a, at.tb[ROCECC_A_FLOW]) {
		switch (mnl_attr_get_type(a)) {
		case ROCECC_FLOW_A_LQPN:
			if (mnl_attr_get_payload_len(a) == 4)
				lqpn = mnl_attr_get_u32(a);
			break;
		case ROCECC_FLOW_A_QP_TIMEOUT:
			if (mnl_attr_get_payload_len(a) == 4)
				timeout = mnl_attr_get_u32(a);
			break;
		case ROCECC_FLOW_A_BUDGET_KNOWN:
			if (mnl_attr_get_payload_len(a) == 1)
				known = mnl_attr_get_u8(a);
			break;
		}
	}
	if (!known || !lqpn || timeout > ROCECC_PACE_TIMEOUT_MAX)
		return MNL_CB_OK;
	for (i = 0; i < d->nqp; i++)
		if (d->qp[i].lqpn == lqpn)
			return MNL_CB_OK;
	if (d->nqp < DOC_QPS_MAX)
		d->qp[d->nqp++] = (struct doc_qp){ lqpn, (uint8_t)timeout };
	return MNL_CB_OK;
}

/* Is @d attached to rocecc.ko; its counters, CNP parameters and QPs */
static void dev_module(struct doc_facts *f, struct doc_dev *d)
{
	struct nlmsghdr *nlh;

	if (!f->nl_open)
		return;
	nlh = rnl_msg(&f->nl, ROCECC_CMD_DEV_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, d->ifindex);
	if (rnl_talk(&f->nl, nlh, dev_get_cb, d) || !d->module)
		return;
	module_pacing(d);
	nlh = rnl_msg(&f->nl, ROCECC_CMD_PARAM_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, d->ifindex);
	rnl_talk(&f->nl, nlh, param_get_cb, d);
	nlh = rnl_msg(&f->nl, ROCECC_CMD_FLOW_GET, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, d->netdev);
	rnl_talk(&f->nl, nlh, flow_cb, d);
}

/* ---- the BPF engine ------------------------------------------------------- */

/*
 * Do the BPF engine's filters sit on @d's netdev? Then its configuration
 * from the dp_devs map its loader pinned in roceccd's pin_dir (read only:
 * nothing is loaded), and the QPs whose timeout it knows (dp_qps).
 */
static void dev_bpf(const struct doc_host *h, struct doc_dev *d)
{
	char path[sizeof(h->conf.pin_dir) + 16];
	struct dcqcn_qp_key k, *prev = NULL;
	struct dcqcn_dev dv;
	struct dcqcn_qp q;
	int fd;

	d->bpf = bpf_dp_on_netdev(d->ifindex) == 1;
	if (!d->bpf || !h->conf.pin_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/%s", h->conf.pin_dir, DCQCN_PIN_DEVS);
	fd = bpf_obj_get(path);
	if (fd >= 0 && !bpf_map_lookup_elem(fd, &d->ifindex, &dv)) {
		d->have_pacing = true;
		d->budget_pct = dv.budget_pct;
		d->default_budget_us = dv.default_budget_us;
		d->max_delay_us = dv.max_delay_us;
		d->have_cnp = true;
		d->cnp_dscp = dv.params.v[ROCECC_PARAM_NP_CNP_DSCP];
		d->cnp_prio = dv.params.v[ROCECC_PARAM_NP_CNP_PRIO];
	}
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/%s", h->conf.pin_dir, DCQCN_PIN_QPS);
	fd = bpf_obj_get(path);
	while (fd >= 0 && !bpf_map_get_next_key(fd, prev, &k) &&
	       d->nqp < DOC_QPS_MAX) {
		prev = &k;
		if (k.ifindex == d->ifindex && !bpf_map_lookup_elem(fd, &k, &q) &&
		    (q.flags & DCQCN_QP_TIMEOUT))
			d->qp[d->nqp++] = (struct doc_qp){ k.lqpn, q.timeout };
	}
	if (fd >= 0)
		close(fd);
}

/* ---- the netdev ---------------------------------------------------------- */

/* The number of transmit queues: SYSFS/class/net/DEV/queues/tx-* */
static unsigned int tx_queues(const char *sysfs, const char *dev)
{
	char path[HWCC_PATH_MAX];
	struct dirent *e;
	unsigned int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/net/%s/queues", sysfs, dev);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir)))
		n += !strncmp(e->d_name, "tx-", 3);
	closedir(dir);
	return n;
}

static void dev_net(const struct hwcc_io *io, struct dcbnl *dcb,
		    struct doc_dev *d)
{
	struct qdisc_info *qd = NULL;

	d->mtu = net_uint(io->sysfs, d->netdev, "mtu");
	d->speed_mbps = net_uint(io->sysfs, d->netdev, "speed");
	d->ntxq = tx_queues(io->sysfs, d->netdev);
	d->qdisc_err = d->ifindex ? qdisc_dump(d->ifindex, &qd, &d->nqd) :
		       -ENODEV;
	d->qd = qd;
	d->dcb_err = dcb ? dcbnl_get(dcb, d->netdev, &d->dcb) : -ENOTSUP;
}

/* An mlx5 port: the firmware's CNP DSCP and priority (if in force) */
static void dev_hw(const struct hwcc_io *io, struct doc_dev *d)
{
	struct hwcc_params hp;
	struct hwcc_dev hd;
	uint32_t want = 1U << ROCECC_PARAM_NP_CNP_DSCP |
			1U << ROCECC_PARAM_NP_CNP_PRIO;

	if (hwcc_find(io, d->netdev, &hd, NULL, 0) ||
	    hwcc_read_params(io, &hd, &hp, NULL, 0))
		return;
	if ((hp.have & want) != want || (hp.unused & want))
		return;
	d->have_cnp = true;
	d->cnp_dscp = hp.p.v[ROCECC_PARAM_NP_CNP_DSCP];
	d->cnp_prio = hp.p.v[ROCECC_PARAM_NP_CNP_PRIO];
}

/* ---- the RDMA port ------------------------------------------------------- */

/* Active and largest MTU of the port, through libibverbs */
static void dev_port_mtu(struct doc_dev *d)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), d->ibdev))
			ctx = ibv_open_device(list[i]);
	if (ctx && !ibv_query_port(ctx, (uint8_t)d->port, &pa)) {
		d->active_mtu = 128U << pa.active_mtu;	/* IBV_MTU_256 = 1 */
		d->max_mtu = 128U << pa.max_mtu;
	}
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(list);
}

/* "fe80:0000:...:" (sysfs) as a compact address; false for the zero GID */
static bool gid_text(const char *raw, char *out, size_t n)
{
	unsigned char b[16] = { 0 };
	unsigned int i, w;
	const char *p = raw;
	bool zero = true;

	for (i = 0; i < 8; i++) {
		if (sscanf(p, "%4x", &w) != 1)
			return false;
		b[2 * i] = (unsigned char)(w >> 8);
		b[2 * i + 1] = (unsigned char)w;
		zero &= !w;
		p += 5;
	}
	if (zero)
		return false;
	return inet_ntop(AF_INET6, b, out, (socklen_t)n) != NULL;
}

/* The port's GIDs on @d's netdev, with their types */
static void dev_gids(const char *sysfs, struct doc_dev *d)
{
	char dir[HWCC_PATH_MAX], path[HWCC_PATH_MAX + 64], raw[64], type[32];
	char ndev[IF_NAMESIZE + 1];
	struct doc_gid *g;
	unsigned long idx;
	struct dirent *e;
	DIR *dh;
	char *end;

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%u", sysfs,
		 d->ibdev, d->port);
	snprintf(path, sizeof(path), "%s/gids", dir);
	dh = opendir(path);
	if (!dh) {
		d->gid_err = -errno;
		return;
	}
	while ((e = readdir(dh)) && d->ngid < DOC_GIDS_MAX) {
		idx = strtoul(e->d_name, &end, 10);
		if (*end || end == e->d_name)
			continue;
		g = &d->gid[d->ngid];
		snprintf(path, sizeof(path), "%s/gids/%lu", dir, idx);
		if (read_line(path, raw, sizeof(raw)) <= 0 ||
		    !gid_text(raw, g->addr, sizeof(g->addr)))
			continue;
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%lu", dir, idx);
		if (read_line(path, ndev, sizeof(ndev)) <= 0 ||
		    strcmp(ndev, d->netdev))
			continue;
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%lu", dir, idx);
		if (read_line(path, type, sizeof(type)) <= 0)
			continue;
		g->index = (unsigned int)idx;
		g->v2 = !strcmp(type, "RoCE v2");
		d->ngid++;
	}
	closedir(dh);
}

/* rdma_cm's default RoCE mode of the port, if configfs has the device */
static void dev_cm_mode(struct doc_dev *d)
{
	char path[192], mode[32];

	snprintf(path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
		 d->ibdev, d->port);
	if (read_line(path, mode, sizeof(mode)) <= 0)
		d->cm_mode = DOC_CM_DEFAULT;
	else
		d->cm_mode = !strcmp(mode, "RoCE v2") ? DOC_CM_V2 : DOC_CM_V1;
}

/* Does roceccd's /metrics have rocecc_netdev_info{...netdev="DEV"...} 1? */
static bool listed(const char *metrics, const char *dev)
{
	const char *p = metrics, *eol;
	char want[IF_NAMESIZE + 16];
	size_t l;

	if (!metrics)
		return false;
	snprintf(want, sizeof(want), "netdev=\"%s\"", dev);
	for (; *p; p = *eol ? eol + 1 : eol) {
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		l = (size_t)(eol - p);
		if (!strncmp(p, "rocecc_netdev_info{", 19) &&
		    memmem(p, l, want, strlen(want)) && l > 2 &&
		    !strncmp(eol - 2, " 1", 2))
			return true;
	}
	return false;
}

/* ---- all of it ----------------------------------------------------------- */

/* A new port (zeroed) at the end of f->dev, or NULL */
static struct doc_dev *new_port(struct doc_facts *f, const char *ibdev,
				uint32_t port, const char *netdev,
				uint32_t ifindex)
{
	struct doc_dev *d = array_grow(f->dev, &f->dev_cap, f->ndev + 1,
				       sizeof(*d));

	if (!d)
		return NULL;
	f->dev = d;
	d = &f->dev[f->ndev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->ibdev, sizeof(d->ibdev), "%s", ibdev);
	snprintf(d->netdev, sizeof(d->netdev), "%s", netdev);
	d->port = port;
	d->ifindex = ifindex;
	return d;
}

static bool wanted(const struct doc_args *a, const char *ibdev,
		   const char *netdev)
{
	return !a->dev || !strcmp(a->dev, netdev) || !strcmp(a->dev, ibdev);
}

/* Every RoCE port with a netdev, over RDMA netlink */
static int rdma_ports(const struct doc_args *a, struct doc_facts *f)
{
	struct rdma_nl_dev *devs = NULL;
	struct rdma_nl_port *ports;
	struct rdma_nl r;
	size_t nd = 0, np, i, j;
	int ret;

	ret = rdma_nl_open(&r);
	if (!ret)
		ret = rdma_nl_devices(&r, &devs, &nd);
	for (i = 0; !ret && i < nd; i++) {
		if (devs[i].protocol[0] && strcmp(devs[i].protocol, "roce"))
			continue;
		if (rdma_nl_ports(&r, devs[i].index, &ports, &np))
			continue;
		for (j = 0; j < np; j++)
			if (ports[j].ifindex &&
			    wanted(a, devs[i].name, ports[j].netdev))
				new_port(f, devs[i].name, ports[j].port,
					 ports[j].netdev, ports[j].ifindex);
		free(ports);
	}
	free(devs);
	rdma_nl_close(&r);
	return ret;
}

/* mlx5 ports (hwcc): mark those RDMA netlink found, add the others */
static void hw_ports(const struct doc_args *a, struct doc_facts *f)
{
	struct hwcc_dev *hd = calloc(HWCC_DEVS_MAX, sizeof(*hd));
	struct doc_dev *d;
	size_t i, j;
	int n;

	n = hd ? hwcc_discover(&f->io, hd, HWCC_DEVS_MAX) : -ENOMEM;
	for (i = 0; n > 0 && i < (size_t)n && i < HWCC_DEVS_MAX; i++) {
		if (!hd[i].netdev[0] || !wanted(a, hd[i].ibdev, hd[i].netdev))
			continue;
		d = NULL;
		for (j = 0; j < f->ndev && !d; j++)
			if (!strcmp(f->dev[j].ibdev, hd[i].ibdev) &&
			    f->dev[j].port == hd[i].port)
				d = &f->dev[j];
		if (!d)
			d = new_port(f, hd[i].ibdev, hd[i].port, hd[i].netdev,
				     if_nametoindex(hd[i].netdev));
		if (d)
			d->hw = true;
	}
	free(hd);
}

/* The ports to check: RDMA netlink's RoCE ports and mlx5's */
static int find_ports(const struct doc_args *a, struct doc_facts *f,
		      char *err, size_t errlen)
{
	int ret;

	if (hwcc_io_init(&f->io, a->hw_root)) {
		snprintf(err, errlen, "--hw-root %s: too long", a->hw_root);
		return -ENAMETOOLONG;
	}
	ret = rdma_ports(a, f);
	hw_ports(a, f);
	if (f->ndev)
		return 0;
	if (ret)
		snprintf(err, errlen, "cannot list RDMA devices over RDMA netlink: %s",
			 strerror(-ret));
	else
		snprintf(err, errlen, a->dev ? "no RoCE port on '%s'" :
			 "no RoCE device (is rdma_rxe or a RoCE NIC's driver loaded, with a link?)",
			 a->dev);
	return ret ? ret : -ENODEV;
}

int doc_gather(const struct doc_args *a, struct doc_facts *f, char *err,
	       size_t errlen)
{
	struct dcbnl *dcb = NULL;
	struct doc_dev *d;
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = find_ports(a, f, err, errlen);
	if (ret)
		return ret;
	host_kernel(&f->host);
	host_module(f);
	host_conf(&f->host, a);
	host_pid(&f->host, a);
	host_http(f);
	if (dcbnl_open(&dcb))
		dcb = NULL;
	for (i = 0; i < f->ndev; i++) {
		d = &f->dev[i];
		if (d->ifindex) {
			dev_module(f, d);
			dev_bpf(&f->host, d);
		}
		if (d->hw)
			dev_hw(&f->io, d);
		dev_net(&f->io, dcb, d);
		dev_port_mtu(d);
		dev_gids(f->io.sysfs, d);
		dev_cm_mode(d);
		d->rd_watches = listed(f->metrics, d->netdev);
	}
	if (dcb)
		dcbnl_close(dcb);
	return 0;
}

void doc_facts_free(struct doc_facts *f)
{
	size_t i;

	for (i = 0; i < f->ndev; i++)
		free((void *)f->dev[i].qd);
	free(f->dev);
	free(f->metrics);
	if (f->nl_open)
		rnl_close(&f->nl);
	memset(f, 0, sizeof(*f));
}
