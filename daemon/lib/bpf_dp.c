// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF datapath engine's loader: see bpf_dp.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/membarrier.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <rocecc/dcqcn.h>
#include <rocecc/roce.h>
#include <uapi/linux/rocecc.h>
#include "dcqcn.skel.h"
#include "qptimeout.skel.h"

#include "lib/bpf_dp.h"
#include "lib/msg.h"
#include "lib/rocecc_nl.h"

/* The maps a loader pins, by their names in the object */
enum { DP_DEVS, DP_QPS, DP_FLOWS, DP_STATS, N_PINS };

static const char *const bpf_dp_pins[N_PINS] = {
	[DP_DEVS] = DCQCN_PIN_DEVS,
	[DP_QPS] = DCQCN_PIN_QPS,
	[DP_FLOWS] = DCQCN_PIN_FLOWS,
	[DP_STATS] = DCQCN_PIN_STATS,
};

/* Their key and value sizes: what a pinned map must have to be ours */
static const struct {
	uint32_t key, value;
} bpf_dp_sizes[N_PINS] = {
	[DP_DEVS] = { sizeof(uint32_t), sizeof(struct dcqcn_dev) },
	[DP_QPS] = { sizeof(struct dcqcn_qp_key), sizeof(struct dcqcn_qp) },
	[DP_FLOWS] = { sizeof(struct dcqcn_flow_key), sizeof(struct dcqcn_flow) },
	[DP_STATS] = { sizeof(uint32_t), sizeof(struct dcqcn_stats) },
};

/* The learner's pins: its map, then its links (fexit, fentry) */
enum { QPT_ATTR, QPT_MODIFY, QPT_DESTROY, N_QPT_PINS };

static const char *const qpt_pins[N_QPT_PINS] = {
	[QPT_ATTR] = DCQCN_PIN_QP_ATTR,
	[QPT_MODIFY] = DCQCN_PIN_QP_MODIFY,
	[QPT_DESTROY] = DCQCN_PIN_QP_DESTROY,
};

struct bpf_dp {
	struct dcqcn *skel;	/* NULL: opened from the pins only */
	int fd[N_PINS];		/* the maps */
	struct qptimeout *qpt;	/* the QP timeout learner, once loaded */
	struct bpf_link *qpt_link[2];	/* its links: fexit, fentry */
	bool qpt_adopted;	/* both pinned by an earlier loader */
	char pin_dir[256];	/* "": nothing pinned */
};

static const char *ifname(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "ifindex %u", ifindex);
	return buf;
}

int bpf_dp_dev_cfg_init(struct bpf_dp_dev_cfg *c, unsigned int profile)
{
	memset(c, 0, sizeof(*c));
	c->pace = true;
	c->ack_req = ROCECC_PACE_ACK_REQ;
	c->budget_pct = ROCECC_PACE_BUDGET_PCT;
	c->default_budget_us = ROCECC_PACE_DEFAULT_BUDGET_US;
	c->max_delay_us = ROCECC_PACE_MAX_DELAY_US;
	return rocecc_params_load(&c->params, profile);
}

/* ---- loading, pinning ------------------------------------------------ */

static void unpin(const char *dir)
{
	char path[512];
	size_t i;

	for (i = 0; i < N_PINS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_dp_pins[i]);
		unlink(path);
	}
}

static struct dcqcn *load(const struct bpf_dp_opts *o, const char *dir)
{
	struct dcqcn *skel = dcqcn__open();
	char path[512];
	size_t i;
	int err;

	if (!skel)
		return NULL;
	skel->rodata->dcqcn_cnp_mark = o->cnp_mark ? o->cnp_mark :
				       DCQCN_CNP_MARK_DEFAULT;
	err = bpf_map__set_max_entries(skel->maps.dp_flows, o->max_flows ?
				       o->max_flows : DCQCN_MAX_FLOWS);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.dp_qps, o->max_qps ?
					       o->max_qps : DCQCN_MAX_QPS);
	for (i = 0; !err && dir[0] && i < N_PINS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj,
							bpf_dp_pins[i]);

		snprintf(path, sizeof(path), "%s/%s", dir, bpf_dp_pins[i]);
		err = m ? bpf_map__set_pin_path(m, path) : -ENOENT;
	}
	if (!err)
		err = dcqcn__load(skel);
	if (err) {
		dcqcn__destroy(skel);
		errno = err < 0 ? -err : err;
		return NULL;
	}
	return skel;
}

struct bpf_dp *bpf_dp_open(const struct bpf_dp_opts *o, bool *adopted,
			   char *err, size_t errlen)
{
	const char *dir = o->pin_dir ? o->pin_dir : "";
	struct bpf_dp *dp;
	struct statfs sfs;
	char path[512];
	bool existed = false;
	size_t i;

	if (adopted)
		*adopted = false;
	if (dir[0]) {
		if (mkdir(dir, 0700) && errno != EEXIST) {
			msgf(err, errlen, "pin directory '%s': %s", dir,
			     strerror(errno));
			return NULL;
		}
		if (statfs(dir, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
			msgf(err, errlen, "pin directory '%s' is not on a BPF filesystem (mount -t bpf bpf /sys/fs/bpf)",
			     dir);
			errno = EINVAL;
			return NULL;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, DCQCN_PIN_FLOWS);
		existed = !access(path, F_OK);
	}
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return NULL;
	dp->skel = load(o, dir);
	if (!dp->skel && existed) {
		/* pinned by another layout: start afresh */
		unpin(dir);
		existed = false;
		dp->skel = load(o, dir);
	}
	if (!dp->skel) {
		msgf(err, errlen, "cannot load the BPF datapath (bpf/dcqcn.bpf.o): %s (root? kernel >= 5.18 with BTF?)",
		     strerror(errno));
		free(dp);
		return NULL;
	}
	for (i = 0; i < N_PINS; i++)
		dp->fd[i] = bpf_map__fd(bpf_object__find_map_by_name(
						dp->skel->obj, bpf_dp_pins[i]));
	if (adopted)
		*adopted = existed;
	snprintf(dp->pin_dir, sizeof(dp->pin_dir), "%s", dir);
	return dp;
}

struct bpf_dp *bpf_dp_open_pinned(const char *pin_dir, char *err,
				  size_t errlen)
{
	struct bpf_map_info info;
	struct bpf_dp *dp;
	uint32_t len;
	char path[512];
	size_t i;

	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return NULL;
	for (i = 0; i < N_PINS; i++)
		dp->fd[i] = -1;
	for (i = 0; i < N_PINS; i++) {
		snprintf(path, sizeof(path), "%s/%s", pin_dir, bpf_dp_pins[i]);
		dp->fd[i] = bpf_obj_get(path);
		if (dp->fd[i] < 0) {
			msgf(err, errlen, errno == ENOENT ?
			     "the BPF datapath is not loaded here (no %s)" :
			     "%s: %s", path, strerror(errno));
			goto fail;
		}
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(dp->fd[i], &info, &len) ||
		    info.key_size != bpf_dp_sizes[i].key ||
		    info.value_size != bpf_dp_sizes[i].value) {
			msgf(err, errlen, "%s: not this version's map (another rocecc's BPF datapath?)",
			     path);
			errno = EPROTO;
			goto fail;
		}
	}
	return dp;
fail:
	i = (size_t)errno;
	bpf_dp_close(dp);
	errno = (int)i;
	return NULL;
}

void bpf_dp_close(struct bpf_dp *dp)
{
	size_t i;

	if (!dp)
		return;
	/* pinned, the learner stays attached */
	bpf_link__destroy(dp->qpt_link[0]);
	bpf_link__destroy(dp->qpt_link[1]);
	qptimeout__destroy(dp->qpt);
	if (dp->skel) {
		dcqcn__destroy(dp->skel);
	} else {
		for (i = 0; i < N_PINS; i++)
			if (dp->fd[i] >= 0)
				close(dp->fd[i]);
	}
	free(dp);
}

int bpf_dp_prog_fd(struct bpf_dp *dp, bool egress)
{
	if (!dp->skel)
		return -ENOENT;
	return bpf_program__fd(egress ? dp->skel->progs.dcqcn_egress :
					dp->skel->progs.dcqcn_ingress);
}

int bpf_dp_map_fd(struct bpf_dp *dp, const char *name)
{
	struct bpf_map *m;
	size_t i;

	for (i = 0; i < N_PINS; i++)
		if (!strcmp(name, bpf_dp_pins[i]))
			return dp->fd[i];
	if (!dp->skel)
		return -ENOENT;
	m = bpf_object__find_map_by_name(dp->skel->obj, name);
	return m ? bpf_map__fd(m) : -ENOENT;
}

/* ---- the other engine --------------------------------------------------- */

int bpf_dp_module_has(uint32_t ifindex)
{
	struct nlmsghdr *nlh;
	struct rnl r;
	int err;

	err = rnl_open(&r);
	if (err == -ENOENT)
		return 0;		/* rocecc.ko not loaded */
	if (err)
		return err;
	nlh = rnl_msg(&r, ROCECC_CMD_DEV_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, ifindex);
	err = rnl_talk(&r, nlh, NULL, NULL);
	rnl_close(&r);
	if (!err)
		return 1;
	return err == -ENODEV ? 0 : err;
}

/* Is program @name on hook @hook of @ifindex, as our filter? 1, 0, -errno */
static int our_filter(uint32_t ifindex, enum bpf_tc_attach_point hook,
		      uint32_t prio, const char *name)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = (int)ifindex,
			    .attach_point = hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = DCQCN_TC_HANDLE,
			    .priority = prio);
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	int err, fd;

	err = bpf_tc_query(&h, &o);
	if (err == -ENOENT || err == -EINVAL)
		return 0;		/* no such filter, or no clsact */
	if (err)
		return err;
	fd = bpf_prog_get_fd_by_id(o.prog_id);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (err)
		return -errno;
	return !strcmp(info.name, name);
}

int bpf_dp_on_netdev(uint32_t ifindex)
{
	int in = our_filter(ifindex, BPF_TC_INGRESS, DCQCN_TC_PRIO_INGRESS,
			    "dcqcn_ingress");
	int eg = our_filter(ifindex, BPF_TC_EGRESS, DCQCN_TC_PRIO_EGRESS,
			    "dcqcn_egress");

	if (in < 0)
		return in;
	if (eg < 0)
		return eg;
	return in || eg;
}

/* ---- attach, detach ------------------------------------------------------ */

/* 0, or -EINVAL with the first parameter out of its range named */
static int check_params(const struct rocecc_params *p, uint32_t ifindex,
			char *err, size_t errlen)
{
	const struct rocecc_param_info *pi;
	char nb[IF_NAMESIZE];
	unsigned int id;

	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (!rocecc_param_validate(id, p->v[id]))
			continue;
		pi = rocecc_param_info(id);
		msgf(err, errlen, "%s: %s = %u is out of range %u..%u",
		     ifname(ifindex, nb), pi->name, p->v[id], pi->min, pi->max);
		return -EINVAL;
	}
	return 0;
}

static int write_dev(struct bpf_dp *dp, uint32_t ifindex,
		     const struct bpf_dp_dev_cfg *c)
{
	struct dcqcn_dev d = {
		.params = c->params,
		.line_rate_kbps = c->line_rate_kbps,
		.flags = (c->pace ? DCQCN_DEV_PACE : 0) |
			 (c->ack_req ? DCQCN_DEV_ACKREQ : 0),
		.budget_pct = c->budget_pct,
		.default_budget_us = c->default_budget_us,
		.max_delay_us = c->max_delay_us,
	};

	return bpf_map_update_elem(dp->fd[DP_DEVS],
				   &ifindex, &d, BPF_ANY) ? -errno : 0;
}

/* Zeroed counters for @ifindex unless it has some (adopted) */
static int init_stats(struct bpf_dp *dp, uint32_t ifindex)
{
	size_t n = (size_t)libbpf_num_possible_cpus();
	void *zero = calloc(n, sizeof(struct dcqcn_stats));
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(dp->fd[DP_STATS],
				  &ifindex, zero, BPF_NOEXIST);
	free(zero);
	return err && errno != EEXIST ? -errno : 0;
}

static int tc_attach(struct bpf_dp *dp, uint32_t ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = DCQCN_TC_HANDLE,
			    .priority = DCQCN_TC_PRIO_INGRESS,
			    .flags = BPF_TC_F_REPLACE);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	hook.attach_point = BPF_TC_INGRESS;
	o.prog_fd = bpf_dp_prog_fd(dp, false);
	err = bpf_tc_attach(&hook, &o);
	if (err)
		return err;
	hook.attach_point = BPF_TC_EGRESS;
	o.prog_fd = bpf_dp_prog_fd(dp, true);
	o.prog_id = 0;
	o.priority = DCQCN_TC_PRIO_EGRESS;
	return bpf_tc_attach(&hook, &o);
}

int bpf_dp_attach(struct bpf_dp *dp, uint32_t ifindex,
		  const struct bpf_dp_dev_cfg *c, char *err, size_t errlen)
{
	char nb[IF_NAMESIZE];
	int e;

	if (!dp->skel) {
		msgf(err, errlen, "%s: attaching needs the programs loaded (roceccd)",
		     ifname(ifindex, nb));
		return -EOPNOTSUPP;
	}
	e = bpf_dp_module_has(ifindex);
	if (e > 0) {
		msgf(err, errlen, "%s is driven by rocecc.ko: detach it there first (rocecc dev detach %s)",
		     ifname(ifindex, nb), nb);
		return -EBUSY;
	}
	if (e < 0) {
		msgf(err, errlen, "%s: cannot ask rocecc.ko whether it drives it: %s",
		     ifname(ifindex, nb), strerror(-e));
		return e;
	}
	e = check_params(&c->params, ifindex, err, errlen);
	if (e)
		return e;
	e = write_dev(dp, ifindex, c);
	if (!e)
		e = init_stats(dp, ifindex);
	if (!e)
		e = tc_attach(dp, ifindex);
	if (e)
		msgf(err, errlen, "%s: cannot attach the BPF datapath: %s",
		     ifname(ifindex, nb), strerror(-e));
	return e;
}

int bpf_dp_set_params(struct bpf_dp *dp, uint32_t ifindex,
		      const struct rocecc_params *p, char *err, size_t errlen)
{
	int fd = dp->fd[DP_DEVS];
	struct dcqcn_dev d;
	int e;

	if (bpf_map_lookup_elem(fd, &ifindex, &d))
		return errno == ENOENT ? -ENODEV : -errno;
	e = check_params(p, ifindex, err, errlen);
	if (e)
		return e;
	d.params = *p;
	/* a hash map update replaces the value whole: no torn reads */
	return bpf_map_update_elem(fd, &ifindex, &d, BPF_EXIST) ? -errno : 0;
}

int bpf_dp_dev_get(struct bpf_dp *dp, uint32_t ifindex,
		   struct bpf_dp_dev_cfg *c)
{
	struct dcqcn_dev d;

	if (bpf_map_lookup_elem(dp->fd[DP_DEVS], &ifindex, &d))
		return errno == ENOENT ? -ENODEV : -errno;
	memset(c, 0, sizeof(*c));
	c->params = d.params;
	c->line_rate_kbps = d.line_rate_kbps;
	c->pace = d.flags & DCQCN_DEV_PACE;
	c->ack_req = d.flags & DCQCN_DEV_ACKREQ;
	c->budget_pct = d.budget_pct;
	c->default_budget_us = d.default_budget_us;
	c->max_delay_us = d.max_delay_us;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int bpf_dp_devs(struct bpf_dp *dp, uint32_t *out, size_t max)
{
	uint32_t k, *prev = NULL;
	size_t n = 0;

	while (n < max && !bpf_map_get_next_key(dp->fd[DP_DEVS], prev, &k)) {
		out[n++] = k;
		prev = &out[n - 1];
	}
	qsort(out, n, sizeof(*out), cmp_u32);
	return (int)n;
}

/* Delete every key of map @fd (key size @ksz) for which @match says so */
static void delete_keys(int fd, size_t ksz,
			bool (*match)(const void *key, uint32_t ifindex),
			uint32_t ifindex)
{
	unsigned char key[64], next[64];
	void *prev = NULL;

	if (ksz > sizeof(key))
		return;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		if (match(next, ifindex) && !bpf_map_delete_elem(fd, next)) {
			prev = NULL;	/* start over: the order may change */
			continue;
		}
		memcpy(key, next, ksz);
		prev = key;
	}
}

static bool flow_of(const void *key, uint32_t ifindex)
{
	return ((const struct dcqcn_flow_key *)key)->ifindex == ifindex;
}

static bool qp_of(const void *key, uint32_t ifindex)
{
	return ((const struct dcqcn_qp_key *)key)->ifindex == ifindex;
}

/*
 * Wait until every run of our programs that began before the call has
 * returned: an RCU grace period, as the module's synchronize_rcu(). TC
 * programs run inside an RCU read-side section, and
 * membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu() in the kernel
 * (kernel/sched/membarrier.c, since 4.16) when more than one CPU is
 * online; with one, no program is half-way through while the syscall
 * runs. It is refused under nohz_full (EINVAL): then a millisecond, more
 * than a program's run unless its CPU stops meanwhile.
 */
static void programs_quiesce(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(1000);
}

/*
 * Before our filters come off @ifindex: let what pacing holds in fq leave
 * first, or the packets that no longer pass the program (sent at once)
 * would overtake their QP's held ones, a PSN gap for the responder
 * (rocecc/pacing.h, "When pacing stops"; the module does the same,
 * rocecc_dp_dev_drain()). Pacing goes off (DCQCN_DEV_PACE: the program
 * then sends each packet with the last one its flow held), the programs
 * that still paced finish (programs_quiesce()), and then this waits until
 * the latest departure a flow of @ifindex was given, at most
 * max_delay_us.
 */
static void drain(struct bpf_dp *dp, uint32_t ifindex)
{
	unsigned char key[sizeof(struct dcqcn_flow_key)], next[sizeof(key)];
	struct timespec ts;
	struct dcqcn_flow f;
	struct dcqcn_dev d;
	uint64_t last = 0, now;
	void *prev = NULL;

	if (bpf_map_lookup_elem(dp->fd[DP_DEVS], &ifindex, &d) ||
	    !(d.flags & DCQCN_DEV_PACE))
		return;
	d.flags &= ~(uint32_t)DCQCN_DEV_PACE;
	if (bpf_map_update_elem(dp->fd[DP_DEVS], &ifindex, &d, BPF_EXIST))
		return;
	programs_quiesce();
	while (!bpf_map_get_next_key(dp->fd[DP_FLOWS], prev, next)) {
		if (flow_of(next, ifindex) &&
		    !bpf_map_lookup_elem_flags(dp->fd[DP_FLOWS], next, &f,
					       BPF_F_LOCK) &&
		    f.pace.last_depart > last)
			last = f.pace.last_depart;
		memcpy(key, next, sizeof(key));
		prev = key;
	}
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return;
	now = (uint64_t)ts.tv_sec * 1000000000U + (uint64_t)ts.tv_nsec;
	if (last <= now)
		return;
	last = (last - now) / 1000U + 1;
	usleep((useconds_t)(last < d.max_delay_us ? last : d.max_delay_us));
}

/* Our filters off @ifindex, then its dp_devs entry: 0 or -errno */
static int unhook(struct bpf_dp *dp, uint32_t ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = DCQCN_TC_HANDLE,
			    .priority = DCQCN_TC_PRIO_INGRESS);
	int e1, e2;

	drain(dp, ifindex);
	e1 = bpf_tc_detach(&hook, &o);
	hook.attach_point = BPF_TC_EGRESS;
	o.priority = DCQCN_TC_PRIO_EGRESS;
	e2 = bpf_tc_detach(&hook, &o);
	bpf_map_delete_elem(dp->fd[DP_DEVS], &ifindex);
	if (e1 && e1 != -ENOENT)
		return e1;
	return e2 && e2 != -ENOENT ? e2 : 0;
}

int bpf_dp_stop(struct bpf_dp *dp, uint32_t ifindex)
{
	return unhook(dp, ifindex);
}

int bpf_dp_detach(struct bpf_dp *dp, uint32_t ifindex)
{
	int e = unhook(dp, ifindex);

	bpf_map_delete_elem(dp->fd[DP_STATS], &ifindex);
	delete_keys(dp->fd[DP_FLOWS],
		    sizeof(struct dcqcn_flow_key), flow_of, ifindex);
	delete_keys(dp->fd[DP_QPS],
		    sizeof(struct dcqcn_qp_key), qp_of, ifindex);
	return e;
}

/* ---- QPs, counters, flows ----------------------------------------------- */

int bpf_dp_qp_set(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn,
		  const uint8_t *raddr, uint32_t rqpn, int timeout)
{
	struct dcqcn_qp_key k = { .ifindex = ifindex,
				  .lqpn = lqpn & ROCECC_BTH_QPN_MASK };
	struct dcqcn_qp v = { .rqpn = rqpn & ROCECC_BTH_QPN_MASK }, old;

	if (timeout > ROCECC_PACE_TIMEOUT_MAX)
		return -EINVAL;
	memcpy(v.raddr, raddr, 16);
	if (!bpf_map_lookup_elem(dp->fd[DP_QPS], &k, &old) &&
	    old.rqpn == v.rqpn && !memcmp(old.raddr, v.raddr, 16)) {
		/* the learner's peer, written again */
		v.flags = old.flags & DCQCN_QP_AV;
		/* unknown now, known before: a restarted loader */
		if (timeout < 0 && (old.flags & DCQCN_QP_TIMEOUT))
			timeout = old.timeout;
	}
	if (timeout >= 0) {
		v.timeout = (uint8_t)timeout;
		v.flags |= DCQCN_QP_TIMEOUT;
	}
	return bpf_map_update_elem(dp->fd[DP_QPS], &k,
				   &v, BPF_ANY) ? -errno : 0;
}

/* rdma_rxe's module BTF: the learner's target is there once it is loaded */
#define BPF_DP_RXE_BTF	"/sys/kernel/btf/rdma_rxe"

static void qpt_path(const char *dir, int pin, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", dir, qpt_pins[pin]);
}

void bpf_dp_unlearn_pinned(const char *pin_dir)
{
	char path[512];
	int i;

	for (i = 0; i < N_QPT_PINS; i++) {
		qpt_path(pin_dir, i, path, sizeof(path));
		unlink(path);
	}
}

/* The id of the map or program behind @fd; 0 if none */
static uint32_t obj_id(int fd, bool map)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	uint32_t len;

	memset(&pi, 0, sizeof(pi));
	memset(&mi, 0, sizeof(mi));
	if (map) {
		len = sizeof(mi);
		return bpf_obj_get_info_by_fd(fd, &mi, &len) ? 0 : mi.id;
	}
	len = sizeof(pi);
	return bpf_obj_get_info_by_fd(fd, &pi, &len) ? 0 : pi.id;
}

/*
 * Does pinned link @l run @prog's code (same tag: the instructions, map
 * references left out) on the maps @prog uses (the learner's map and
 * dp_qps, the same ids)? A learner of another build, or of maps since
 * replaced, does not.
 */
static bool qpt_same_prog(struct bpf_dp *dp, struct bpf_link *l,
			  const struct bpf_program *prog)
{
	uint32_t ids[8], want[2], len, i, n;
	struct bpf_link_info li;
	struct bpf_prog_info a, b;
	int fd;
	bool ok;

	memset(&li, 0, sizeof(li));
	len = sizeof(li);
	if (bpf_obj_get_info_by_fd(bpf_link__fd(l), &li, &len) ||
	    li.type != BPF_LINK_TYPE_TRACING)
		return false;
	fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (fd < 0)
		return false;
	memset(&a, 0, sizeof(a));
	a.nr_map_ids = 8;
	a.map_ids = (uint64_t)(uintptr_t)ids;
	len = sizeof(a);
	ok = !bpf_obj_get_info_by_fd(fd, &a, &len);
	close(fd);
	memset(&b, 0, sizeof(b));
	len = sizeof(b);
	if (!ok || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &b, &len) ||
	    a.type != b.type || memcmp(a.tag, b.tag, sizeof(a.tag)))
		return false;
	want[0] = obj_id(bpf_map__fd(dp->qpt->maps.dp_qp_attr), true);
	want[1] = obj_id(dp->fd[DP_QPS], true);
	for (n = 0; n < 2; n++) {
		for (i = 0; i < a.nr_map_ids && i < 8; i++)
			if (want[n] && ids[i] == want[n])
				break;
		if (i == a.nr_map_ids || i == 8)
			return false;
	}
	return true;
}

/*
 * The learner's link of @prog (pin @pin): the pinned one when it runs the
 * same program, else a new one, pinned in its place (*@replaced).
 */
static struct bpf_link *qpt_link(struct bpf_dp *dp, int pin,
				 struct bpf_program *prog, bool *replaced,
				 bool *adopted)
{
	struct bpf_link *old = NULL, *l;
	char path[512];

	if (dp->pin_dir[0]) {
		qpt_path(dp->pin_dir, pin, path, sizeof(path));
		old = bpf_link__open(path);
		if (old && qpt_same_prog(dp, old, prog)) {
			*adopted = true;
			return old;
		}
		if (old)
			*replaced = true;
	}
	l = bpf_program__attach(prog);
	if (!l) {
		bpf_link__destroy(old);
		return NULL;
	}
	if (dp->pin_dir[0]) {
		/* the old link detaches once its pin and fd are gone */
		unlink(path);
		bpf_link__destroy(old);
		if (bpf_link__pin(l, path)) {
			bpf_link__destroy(l);
			return NULL;
		}
	}
	return l;
}

/* The learner loaded, with its map at @dir's pin (reused if there) */
static struct qptimeout *qpt_load(struct bpf_dp *dp, const char *dir)
{
	struct qptimeout *q = qptimeout__open();
	char path[512];
	int e;

	if (!q)
		return NULL;
	e = bpf_map__set_max_entries(q->maps.dp_qp_attr,
				     bpf_map__max_entries(dp->skel->maps.dp_qps));
	if (!e && dir[0]) {
		qpt_path(dir, QPT_ATTR, path, sizeof(path));
		e = bpf_map__set_pin_path(q->maps.dp_qp_attr, path);
	}
	if (!e)	/* the TC programs' QP map, which the learner writes too */
		e = bpf_map__reuse_fd(q->maps.dp_qps, dp->fd[DP_QPS]);
	if (!e)
		e = qptimeout__load(q);
	if (e) {
		qptimeout__destroy(q);
		errno = e < 0 ? -e : e;
		return NULL;
	}
	return q;
}

/*
 * A learn that failed half-way: the links it pinned itself lose their
 * pins (an fexit writing dp_qps with no fentry deleting, left running
 * behind an error, would fill the map); links adopted stay as they were.
 */
static void qpt_unpin_own(struct bpf_dp *dp, const bool adopted[2])
{
	char path[512];
	int i;

	for (i = 0; i < 2; i++) {
		if (!dp->pin_dir[0] || !dp->qpt_link[i] || adopted[i])
			continue;
		qpt_path(dp->pin_dir, QPT_MODIFY + i, path, sizeof(path));
		unlink(path);
	}
}

int bpf_dp_learn_timeouts(struct bpf_dp *dp, char *err, size_t errlen)
{
	bool replaced = false, adopted[2] = { false, false };
	struct qptimeout *q;
	char path[512];
	int e = 0;

	if (err && errlen)
		err[0] = '\0';
	if (dp->qpt)
		return 0;
	if (!dp->skel)
		return -EOPNOTSUPP;
	if (access(BPF_DP_RXE_BTF, F_OK)) {
		msgf(err, errlen, "rdma_rxe is not loaded (no %s)",
		     BPF_DP_RXE_BTF);
		return -ENOENT;
	}
	q = qpt_load(dp, dp->pin_dir);
	dp->qpt = q;	/* for qpt_link() */
	if (!q && dp->pin_dir[0]) {
		qpt_path(dp->pin_dir, QPT_ATTR, path, sizeof(path));
		if (!access(path, F_OK)) {
			/* pinned by another layout: that learner goes */
			bpf_dp_unlearn_pinned(dp->pin_dir);
			replaced = true;
			q = qpt_load(dp, dp->pin_dir);
			dp->qpt = q;	/* for qpt_link() */
		}
	}
	if (!q)
		e = -errno;
	if (!e) {
		dp->qpt_link[0] = qpt_link(dp, QPT_MODIFY,
					   q->progs.dcqcn_qp_timeout, &replaced,
					   &adopted[0]);
		if (!dp->qpt_link[0])
			e = -errno;
	}
	if (!e) {
		dp->qpt_link[1] = qpt_link(dp, QPT_DESTROY,
					   q->progs.dcqcn_qp_destroy, &replaced,
					   &adopted[1]);
		if (!dp->qpt_link[1])
			e = -errno;
	}
	if (e) {
		qpt_unpin_own(dp, adopted);
		bpf_link__destroy(dp->qpt_link[0]);
		dp->qpt_link[0] = NULL;
		qptimeout__destroy(q);
		dp->qpt = NULL;
		msgf(err, errlen, "cannot trace rxe_modify_qp() for the QPs' ACK timeouts and peers: %s",
		     strerror(e < 0 ? -e : EIO));
		return e < 0 ? e : -EIO;
	}
	dp->qpt_adopted = adopted[0] && adopted[1];
	if (replaced)
		msgf(err, errlen, "the QP learner pinned in %s was another build's: replaced",
		     dp->pin_dir);
	return 0;
}

void bpf_dp_unlearn(struct bpf_dp *dp)
{
	if (dp->pin_dir[0])
		bpf_dp_unlearn_pinned(dp->pin_dir);
	/* unpinned: closing the links detaches them */
	bpf_link__destroy(dp->qpt_link[0]);
	bpf_link__destroy(dp->qpt_link[1]);
	dp->qpt_link[0] = dp->qpt_link[1] = NULL;
	qptimeout__destroy(dp->qpt);
	dp->qpt = NULL;
	dp->qpt_adopted = false;
}

bool bpf_dp_learner_adopted(const struct bpf_dp *dp)
{
	return dp->qpt && dp->qpt_adopted;
}

/* The learner's entry of @lqpn on @ifindex: 0, or -ENOENT */
static int qp_attr(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn,
		   struct dcqcn_qp *v)
{
	struct dcqcn_qp_key k = { .ifindex = ifindex,
				  .lqpn = lqpn & ROCECC_BTH_QPN_MASK };

	if (!dp->qpt ||
	    bpf_map_lookup_elem(bpf_map__fd(dp->qpt->maps.dp_qp_attr), &k, v))
		return -ENOENT;
	return 0;
}

int bpf_dp_qp_timeout(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn)
{
	struct dcqcn_qp v;

	if (qp_attr(dp, ifindex, lqpn, &v) || !(v.flags & DCQCN_QP_TIMEOUT) ||
	    v.timeout > ROCECC_PACE_TIMEOUT_MAX)
		return -1;
	return v.timeout;
}

int bpf_dp_qp_av(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn,
		 uint8_t *raddr, uint32_t *rqpn)
{
	struct dcqcn_qp v;

	if (qp_attr(dp, ifindex, lqpn, &v) || !(v.flags & DCQCN_QP_AV))
		return -ENOENT;
	memcpy(raddr, v.raddr, 16);
	*rqpn = v.rqpn;
	return 0;
}

bool bpf_dp_qp_learnt(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn)
{
	struct dcqcn_qp_key k = { .ifindex = ifindex,
				  .lqpn = lqpn & ROCECC_BTH_QPN_MASK };
	struct dcqcn_qp a, v;

	return !qp_attr(dp, ifindex, lqpn, &a) && (a.flags & DCQCN_QP_AV) &&
	       !bpf_map_lookup_elem(dp->fd[DP_QPS], &k, &v) &&
	       v.rqpn == a.rqpn && !memcmp(v.raddr, a.raddr, 16);
}

bool bpf_dp_learning(const struct bpf_dp *dp)
{
	return dp->qpt != NULL;
}

int bpf_dp_qp_del(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn)
{
	struct dcqcn_qp_key k = { .ifindex = ifindex,
				  .lqpn = lqpn & ROCECC_BTH_QPN_MASK };

	return bpf_map_delete_elem(dp->fd[DP_QPS], &k) ?
	       -errno : 0;
}

static int count_flow(const struct dcqcn_flow_key *k,
		      const struct dcqcn_flow *f, void *data)
{
	(void)k;
	(void)f;
	(*(uint64_t *)data)++;
	return 0;
}

int bpf_dp_stats(struct bpf_dp *dp, uint32_t ifindex,
		 uint64_t v[__DCQCN_STAT_MAX])
{
	int n = libbpf_num_possible_cpus(), i, j, err = 0;
	struct dcqcn_stats *pc;

	if (n <= 0)
		return n ? n : -EINVAL;
	pc = calloc((size_t)n, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	memset(v, 0, sizeof(uint64_t) * __DCQCN_STAT_MAX);
	if (bpf_map_lookup_elem(dp->fd[DP_STATS],
				&ifindex, pc)) {
		err = errno == ENOENT ? -ENODEV : -errno;
		goto out;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < __DCQCN_STAT_MAX; j++)
			v[j] += pc[i].v[j];
	v[ROCECC_STAT_FLOWS] = 0;
	bpf_dp_flow_foreach(dp, ifindex, count_flow, &v[ROCECC_STAT_FLOWS]);
out:
	free(pc);
	return err;
}

int bpf_dp_flow_foreach(struct bpf_dp *dp, uint32_t ifindex,
			int (*cb)(const struct dcqcn_flow_key *k,
				  const struct dcqcn_flow *f, void *data),
			void *data)
{
	int fd = dp->fd[DP_FLOWS], ret;
	struct dcqcn_flow_key k, *prev = NULL;
	struct dcqcn_flow f;

	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (ifindex && k.ifindex != ifindex)
			continue;
		if (bpf_map_lookup_elem_flags(fd, &k, &f, BPF_F_LOCK))
			continue;	/* deleted meanwhile */
		ret = cb(&k, &f, data);
		if (ret)
			return ret;
	}
	return 0;
}

struct expire {
	uint64_t idle_ns, now;
	int fd, n;
};

static int expire_one(const struct dcqcn_flow_key *k,
		      const struct dcqcn_flow *f, void *data)
{
	struct expire *x = data;
	uint64_t last = f->last_active > f->created ? f->last_active :
						      f->created;

	if (last + x->idle_ns < x->now && !bpf_map_delete_elem(x->fd, k))
		x->n++;
	return 0;
}

int bpf_dp_flows_expire(struct bpf_dp *dp, uint64_t idle_ns, uint64_t now)
{
	struct expire x = { .idle_ns = idle_ns, .now = now,
			    .fd = dp->fd[DP_FLOWS] };

	bpf_dp_flow_foreach(dp, 0, expire_one, &x);
	return x.n;
}

void bpf_dp_flow_put(struct nlmsghdr *nlh, const struct dcqcn_flow_key *k,
		     const struct dcqcn_flow *f, const struct rocecc_params *p,
		     uint64_t now)
{
	struct rocecc_rp rp = f->rp;
	uint64_t last_inc = f->last_increase, inc;
	struct nlattr *nest;

	/* as the module's dump: up to date with the parameters and now */
	if (f->clamp_max != p->v[ROCECC_PARAM_RP_MAX_RATE] ||
	    f->clamp_min != p->v[ROCECC_PARAM_RP_MIN_RATE] ||
	    f->clamp_div != p->v[ROCECC_PARAM_RP_RATE_DIVISOR])
		rocecc_rp_reclamp(&rp, p, f->clamp_line);
	inc = rp.inc_timer + rp.inc_byte;
	rocecc_rp_advance(&rp, p, now);
	if (rp.inc_timer + rp.inc_byte != inc)
		last_inc = now;

	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, k->ifindex);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_FLOW);
	mnl_attr_put(nlh, ROCECC_FLOW_A_RADDR, 16, k->raddr);
	mnl_attr_put_u32(nlh, ROCECC_FLOW_A_RQPN, k->rqpn);
	if (f->lqpn)
		mnl_attr_put_u32(nlh, ROCECC_FLOW_A_LQPN, f->lqpn);
	mnl_attr_put_u32(nlh, ROCECC_FLOW_A_RC, rp.rate);
	mnl_attr_put_u32(nlh, ROCECC_FLOW_A_RT, rp.target);
	mnl_attr_put_u32(nlh, ROCECC_FLOW_A_ALPHA, rp.alpha);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_BYTES, f->bytes);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CNP_HANDLED, rp.cnp_handled);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CNP_IGNORED, rp.cnp_ignored);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CNP_SENT, f->np.cnp_sent);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CE_SEEN,
			 f->np.ecn_marked_roce_packets);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_LAST_CNP_RX, f->last_cnp_rx);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_LAST_CNP_TX, f->last_cnp_tx);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_LAST_CUT,
			 rp.limited ? rp.last_cut : 0);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_LAST_INCREASE, last_inc);
	mnl_attr_put_u32(nlh, ROCECC_FLOW_A_PACING_BUDGET,
			 f->pace.budget_ns / 1000 > UINT32_MAX ? UINT32_MAX :
			 (uint32_t)(f->pace.budget_ns / 1000));
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_PACKETS, f->pkts);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_PACING_DELAYED, f->pacing_delayed);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_PACING_CAPPED, f->pacing_capped);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_PACING_ACKREQ, f->pacing_ackreq);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_PACING_BACKLOG,
			 f->pace.next_tx > now ? f->pace.next_tx - now : 0);
	if (f->budget_known)
		mnl_attr_put_u32(nlh, ROCECC_FLOW_A_QP_TIMEOUT, f->qp_timeout);
	mnl_attr_put_u8(nlh, ROCECC_FLOW_A_LIMITED, rp.limited);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CNP_SUPPRESSED,
			 f->np.cnp_suppressed);
	if (f->laddr_family)
		mnl_attr_put(nlh, ROCECC_FLOW_A_LADDR, 16, f->laddr);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_LAST_ACTIVE, f->last_active);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_INC_TIMER, rp.inc_timer);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_INC_BYTE, rp.inc_byte);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CUTS, rp.cuts);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_CNP_TX_ERRORS, f->cnp_tx_errors);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_UNPACED_PACKETS, f->unpaced_pkts);
	mnl_attr_put_u8(nlh, ROCECC_FLOW_A_BUDGET_KNOWN, f->budget_known);
	mnl_attr_put_u64(nlh, ROCECC_FLOW_A_STATE_NS, rp.now);
	mnl_attr_nest_end(nlh, nest);
}
