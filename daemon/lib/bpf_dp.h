/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF datapath engine's loader (bpf/dcqcn.bpf.c, maps in
 * bpf/dcqcn_bpf.h): load the programs with their maps pinned (a restarted
 * loader adopts them with every flow's state), attach a netdev (refused
 * while rocecc.ko drives it), set its parameters, fill the QP map, read
 * counters and flows in the module's shapes. libbpf, libmnl; no state
 * but the maps, so the daemon's restart logic stays its own.
 *
 * Typical use (roceccd --datapath bpf):
 *
 *	struct bpf_dp_opts o = { .pin_dir = "/sys/fs/bpf/rocecc" };
 *	struct bpf_dp *dp = bpf_dp_open(&o, err, sizeof(err));
 *	struct bpf_dp_dev_cfg c;
 *
 *	bpf_dp_dev_cfg_init(&c, ROCECC_PROFILE_MLX5);
 *	c.line_rate_kbps = ...; c.pace = root qdisc is fq;
 *	bpf_dp_attach(dp, ifindex, &c, err, sizeof(err));
 *	bpf_dp_learn_timeouts(dp, err, sizeof(err));  (once rdma_rxe is there)
 *	bpf_dp_qp_av(dp, ifindex, lqpn, peer, &rqpn);  (the QP's own peer)
 *	bpf_dp_qp_set(dp, ifindex, lqpn, peer, rqpn,  (RDMA netlink)
 *		      bpf_dp_qp_timeout(dp, ifindex, lqpn));
 *	... bpf_dp_stats(), bpf_dp_flow_foreach() + bpf_dp_flow_put(),
 *	    bpf_dp_flows_expire() every so often ...
 *	bpf_dp_close(dp);	(attachments and pins stay)
 *
 * Errors are -errno; where a message helps, it goes to @err (the netdev
 * and what to do), as the module's extack messages do.
 */
#ifndef _ROCECC_LIB_BPF_DP_H
#define _ROCECC_LIB_BPF_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#include <rocecc/params.h>
#include "dcqcn_bpf.h"

struct bpf_dp;

struct bpf_dp_opts {
	const char *pin_dir;	/* NULL or "": no pinning */
	uint32_t cnp_mark;	/* 0: DCQCN_CNP_MARK_DEFAULT */
	uint32_t max_flows;	/* 0: DCQCN_MAX_FLOWS */
	uint32_t max_qps;	/* 0: DCQCN_MAX_QPS */
};

/* What bpf_dp_attach() writes to dp_devs (struct dcqcn_dev) */
struct bpf_dp_dev_cfg {
	struct rocecc_params params;
	uint32_t line_rate_kbps;	/* 0: unknown */
	bool pace;			/* the root qdisc paces (fq) */
	bool ack_req;			/* the module's pacing_ack_req */
	uint32_t budget_pct;		/* the module's pacing_budget_pct */
	uint32_t default_budget_us;	/* ... pacing_default_budget_us */
	uint32_t max_delay_us;		/* ... pacing_max_delay_us */
};

/* The module's defaults, the parameters of @profile, pace on. */
int bpf_dp_dev_cfg_init(struct bpf_dp_dev_cfg *c, unsigned int profile);

/*
 * Load the programs; with a pin directory (on a BPF filesystem, created
 * if missing) their maps are pinned there (DCQCN_PIN_*) or, if already
 * pinned, adopted. Pins of another layout (an upgrade changed a struct)
 * are removed and counting starts afresh; *@adopted (may be NULL) says
 * whether the old maps were kept. NULL and errno on failure.
 */
struct bpf_dp *bpf_dp_open(const struct bpf_dp_opts *o, bool *adopted,
			   char *err, size_t errlen);

/*
 * The maps pinned in @pin_dir by the loader that runs (roceccd), without
 * loading anything: what the CLI reads and writes (parameters, counters,
 * flows). Everything below works on it but bpf_dp_attach() and
 * bpf_dp_prog_fd(). NULL and errno (ENOENT: nothing pinned there, EPROTO:
 * maps of another layout) with a message in @err.
 */
struct bpf_dp *bpf_dp_open_pinned(const char *pin_dir, char *err,
				  size_t errlen);

/* Free the loader; attached programs, maps and pins stay. */
void bpf_dp_close(struct bpf_dp *dp);

/*
 * Attach @ifindex: refused (-EBUSY) while rocecc.ko has it attached;
 * parameters validated as the module does (-EINVAL naming the first bad
 * one); the dp_devs entry written (the programs act from then on), the
 * counters kept if they exist (adopted), then the clsact filters (created
 * or replaced). Attaching again only updates the configuration.
 */
int bpf_dp_attach(struct bpf_dp *dp, uint32_t ifindex,
		  const struct bpf_dp_dev_cfg *c, char *err, size_t errlen);

/* What @ifindex is attached with; -ENODEV if it is not. */
int bpf_dp_dev_get(struct bpf_dp *dp, uint32_t ifindex,
		   struct bpf_dp_dev_cfg *c);

/* The attached netdevs, ascending, into @out (at most @max); how many. */
int bpf_dp_devs(struct bpf_dp *dp, uint32_t *out, size_t max);

/* New parameters for an attached @ifindex (validated; -ENODEV if not). */
int bpf_dp_set_params(struct bpf_dp *dp, uint32_t ifindex,
		      const struct rocecc_params *p, char *err, size_t errlen);

/*
 * Detach @ifindex: filters off (the clsact qdisc stays, as other filters
 * may use it), then its dp_devs entry, counters, flows and QPs go.
 */
int bpf_dp_detach(struct bpf_dp *dp, uint32_t ifindex);

/*
 * Stop driving @ifindex for now (a daemon that exits): filters off, its
 * dp_devs entry gone (nothing attached, to anyone who asks), its flows,
 * QPs and counters kept for the bpf_dp_attach() of the next start.
 */
int bpf_dp_stop(struct bpf_dp *dp, uint32_t ifindex);

/*
 * Do this engine's filters sit on @ifindex? What the module (or a second
 * loader) asks before driving it: 1, 0, or -errno.
 */
int bpf_dp_on_netdev(uint32_t ifindex);

/*
 * Does rocecc.ko have @ifindex attached? 1, 0 (no, or not loaded), or
 * -errno (its generic netlink failed otherwise).
 */
int bpf_dp_module_has(uint32_t ifindex);

/*
 * dp_qps: local QP @lqpn of @ifindex talks to remote QP @rqpn at @raddr
 * (16 bytes, IPv4-mapped for IPv4); @timeout is its ACK timeout exponent,
 * or -1 if unknown: the entry keeps the timeout it has for the same peer
 * and remote QP (a restarted loader has not seen the QP set up), else
 * the flow keeps default_budget_us. An entry the learner wrote keeps its
 * DCQCN_QP_AV for the same peer and remote QP, and loses it for another.
 */
int bpf_dp_qp_set(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn,
		  const uint8_t *raddr, uint32_t rqpn, int timeout);
int bpf_dp_qp_del(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn);

/*
 * Learn the local QPs' ACK timeouts and peers (bpf/qptimeout.bpf.c: fexit
 * of rdma_rxe's rxe_modify_qp(), fentry of rxe_destroy_qp()) from now
 * on: 0, or -errno with a message in @err (-ENOENT: rdma_rxe is not
 * loaded yet; call again later; a QP modified before this succeeded
 * stays unknown). The learner writes a QP's dp_qps entry as soon as it
 * has its peer (the modify to RTR) and deletes it when the QP is reset
 * or destroyed. Needs the programs loaded (bpf_dp_open()).
 * With a pin directory its map and links are pinned there
 * (DCQCN_PIN_QP_*): it goes on learning while no loader runs, and the
 * next one adopts it (same code on the same maps) instead of attaching
 * a second; a pinned learner of another build or layout is replaced,
 * and on success @err then says so (else it is "").
 */
int bpf_dp_learn_timeouts(struct bpf_dp *dp, char *err, size_t errlen);

/* Is the learner attached (bpf_dp_learn_timeouts() succeeded)? */
bool bpf_dp_learning(const struct bpf_dp *dp);

/* ... and was it adopted from the pins (it ran before this loader)? */
bool bpf_dp_learner_adopted(const struct bpf_dp *dp);

/*
 * The engine off for good: the learner unpinned and detached (its
 * entries in dp_qps stay: bpf_dp_detach() removes a netdev's).
 * bpf_dp_unlearn_pinned() removes the pins of @pin_dir alone, which
 * detaches a learner no loader holds.
 */
void bpf_dp_unlearn(struct bpf_dp *dp);
void bpf_dp_unlearn_pinned(const char *pin_dir);

/*
 * The ACK timeout exponent the learner saw local QP @lqpn of @ifindex
 * get, or -1 if unknown (not learning, or not seen): what
 * bpf_dp_qp_set() takes.
 */
int bpf_dp_qp_timeout(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn);

/*
 * The peer the learner saw local QP @lqpn of @ifindex get at its modify to
 * RTR, from its own address vector (destination GID, IPv4-mapped for
 * RoCEv2 over IPv4) and destination QPN: into @raddr (16 bytes) and
 * *@rqpn, 0; -ENOENT if unknown (not learning, or not seen).
 */
int bpf_dp_qp_av(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn,
		 uint8_t *raddr, uint32_t *rqpn);

/*
 * Is the dp_qps entry of @lqpn on @ifindex the learner's: the peer it saw
 * the QP set up with, an entry it deletes itself when the QP is reset or
 * destroyed (a QP the caller may not have seen yet)?
 */
bool bpf_dp_qp_learnt(struct bpf_dp *dp, uint32_t ifindex, uint32_t lqpn);

/*
 * The counters of @ifindex, summed over the CPUs, into @v (indexed by
 * enum rocecc_stat / enum dcqcn_stat, names from cli_stat_name() /
 * dcqcn_stat_name());
 * v[ROCECC_STAT_FLOWS] is the number of its flows now (a gauge, as the
 * module's).
 */
int bpf_dp_stats(struct bpf_dp *dp, uint32_t ifindex,
		 uint64_t v[__DCQCN_STAT_MAX]);

/*
 * Call @cb for every flow (of @ifindex, or all for 0), each read under its
 * lock. Stops at the first non-zero return of @cb, which it returns.
 */
int bpf_dp_flow_foreach(struct bpf_dp *dp, uint32_t ifindex,
			int (*cb)(const struct dcqcn_flow_key *k,
				  const struct dcqcn_flow *f, void *data),
			void *data);

/*
 * Put ROCECC_A_DEV_IFINDEX and the ROCECC_A_FLOW nest of flow @f (@k) into
 * @nlh, attribute for attribute what the module's FLOW_GET sends, so that
 * one printer serves both engines. The RP is first brought to @now (ns,
 * CLOCK_MONOTONIC) with @p on a copy, as the module's dump does.
 */
void bpf_dp_flow_put(struct nlmsghdr *nlh, const struct dcqcn_flow_key *k,
		     const struct dcqcn_flow *f, const struct rocecc_params *p,
		     uint64_t now);

/* Delete flows without a packet for @idle_ns before @now; how many. */
int bpf_dp_flows_expire(struct bpf_dp *dp, uint64_t idle_ns, uint64_t now);

/* The programs' fds (tests, benchmarks) and the maps' */
int bpf_dp_prog_fd(struct bpf_dp *dp, bool egress);
int bpf_dp_map_fd(struct bpf_dp *dp, const char *name);

#endif /* _ROCECC_LIB_BPF_DP_H */
