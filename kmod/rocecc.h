/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc.ko internal interfaces: attached devices, their parameters and
 * counters, and the control plane (generic netlink, sysctl) around them.
 *
 * Files
 * -----
 *  main.c     module init and exit: the order of everything below
 *  dev.c      attach, detach, rename of devices; the netdevice notifier
 *  params.c   parameter sets: the default one and each device's
 *  sysctl.c   net.rocecc.<dev>.* and net.rocecc.default.*
 *  genl.c     the generic netlink family: commands and events
 *  dcb.c      software DCB: the DCB object (dcb.h) and DCB netlink ops
 *  pfc_rx.c   PFC frames received: indications, pausing the qdisc
 *  pfc_gen.c  receive occupancy and the PFC frames sent from it
 *  sch.c      the "rocecc" qdisc: one band per priority, paused by PFC
 *  kcompat.h  the differences between the kernels it builds for, the
 *             only file that tests the kernel version
 *  the datapath (hooks, flows, RP, fq check, NP, QP cache, rxe): dp.h
 *
 * Locking and lifetime
 * --------------------
 * rocecc_lock (one mutex) serialises every control-plane change: attach,
 * detach, rename, parameter and profile updates, whether they come from
 * generic netlink, sysctl or the netdevice notifier. Where RTNL is needed
 * too (attach, detach, notifier), it is taken first: RTNL -> rocecc_lock.
 * The sysctl handlers take rocecc_lock but never RTNL, and no sysctl table
 * is unregistered with rocecc_lock held (unregistering waits for running
 * handlers), so the two cannot deadlock.
 *
 * The datapath never takes a lock. It finds a device with
 * rocecc_dev_lookup_rcu() (an xarray keyed by ifindex; xa_load() is a
 * lockless RCU walk) and reads its parameters through
 * rocecc_dev_params_rcu(). Parameters live in an immutable block behind an
 * RCU pointer that an update replaces whole (copy, modify, publish, free
 * the old block after a grace period). A reader thus always sees one
 * consistent set, which per-field READ_ONCE/WRITE_ONCE would not give for
 * a PARAM_SET of several related values (e.g. rp_ai_rate and rp_hai_rate),
 * and the update cost (one 128-byte allocation) is paid only by the rare
 * writer. Detached devices are unpublished first and freed after a grace
 * period (call_rcu), so a pointer found under rcu_read_lock() stays valid
 * until rcu_read_unlock().
 *
 * Detach (and unload) never waits with a lock held: it stops pacing the
 * device under rocecc_lock, waits for what fq holds without locks (a
 * reference keeps the object), then unpublishes it under RTNL and
 * rocecc_lock if nothing else detached it meanwhile.
 */
#ifndef _ROCECC_KMOD_H
#define _ROCECC_KMOD_H

#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/u64_stats_sync.h>
#include <linux/xarray.h>
#include <rocecc/params.h>
#include <rocecc/pfc.h>

#include "dp.h"

struct netlink_ext_ack;
struct rocecc_dcb;
struct ctl_table;
struct ctl_table_header;

/* Profile names, as sysctl "profile" and the CLI spell them. */
#define ROCECC_PROFILE_NAME_MLX5	"mlx5"
#define ROCECC_PROFILE_NAME_PAPER	"paper"

/*
 * Counter slots, in the order of enum rocecc_stat from
 * ROCECC_STAT_NP_CNP_SENT on: slot c is netlink attribute
 * ROCECC_CTR_STAT(c).
 */
enum rocecc_ctr {
	ROCECC_CTR_NP_CNP_SENT,
	ROCECC_CTR_NP_ECN_MARKED_ROCE_PACKETS,
	ROCECC_CTR_RP_CNP_HANDLED,
	ROCECC_CTR_RP_CNP_IGNORED,
	ROCECC_CTR_FLOWS,
	ROCECC_CTR_FLOW_TABLE_FULL,
	ROCECC_CTR_PACING_DELAYED,
	ROCECC_CTR_RESOLVER_MISS,
	ROCECC_CTR_MALFORMED,
	ROCECC_CTR_PACING_CAPPED,
	ROCECC_CTR_ECT_MARKED,
	ROCECC_CTR_RP_CNP_SPOOFED,
	ROCECC_CTR_QP_CACHE_FULL,
	ROCECC_CTR_PACING_ACKREQ,
	ROCECC_CTR_TX_NOT_RXE,
	ROCECC_CTR_NUM
};

#define ROCECC_CTR_STAT(c)	((c) + ROCECC_STAT_NP_CNP_SENT)
static_assert(ROCECC_CTR_STAT(ROCECC_CTR_NUM) == __ROCECC_STAT_MAX,
	      "enum rocecc_ctr and enum rocecc_stat differ");

/*
 * Counters are per CPU: the datapath bumps them for every packet from
 * softirq on whichever CPU received or sent it, and a shared atomic would
 * bounce one cache line between the CPUs on every packet. Readers (netlink,
 * rare) sum over the possible CPUs. u64_stats_t is a plain u64 on 64-bit;
 * on 32-bit the seqcount keeps readers from seeing torn values.
 * ROCECC_CTR_FLOWS is a gauge (+1 on insert, -1 on delete, maybe on
 * different CPUs): per-CPU values may wrap, their sum is exact.
 */
struct rocecc_pcpu_ctrs {
	u64_stats_t		c[ROCECC_CTR_NUM];
	struct u64_stats_sync	syncp;
};

/* An immutable parameter set, replaced as a whole on every change. */
struct rocecc_pset {
	struct rocecc_params	p;
	struct rcu_head		rcu;
};

/*
 * An attached device. Allocated by attach (kzalloc, one per device), freed
 * by call_rcu() after it has been unpublished, its sysctl table
 * unregistered and its last reference dropped: the table holds one while
 * it is attached, a detach one while it waits without locks for what
 * pacing holds (dev.c).
 */
struct rocecc_dev {
	/* Read by the datapath under RCU. */
	int				ifindex;	/* key, constant */
	struct rocecc_pset __rcu	*params;
	struct rocecc_pcpu_ctrs __percpu *ctrs;
	struct rocecc_dp_dev		dp;		/* datapath state, dp.h */
	/*
	 * Software DCB and PFC (dcb.h): set before the device is published,
	 * constant; the device holds one reference, dropped when it is freed
	 * (after a grace period).
	 */
	struct rocecc_dcb		*dcb;

	/* Control plane only, under rocecc_lock. */
	struct net_device		*netdev;	/* held; NULL once detached */
	netdevice_tracker		dev_tracker;
	char				name[IFNAMSIZ];	/* sysctl directory name */
	bool				dead;		/* detached */
	refcount_t			ref;
	struct ctl_table_header		*sysctl_hdr;
	struct ctl_table		*sysctl_tbl;
	struct rcu_head			rcu;
};

extern struct mutex rocecc_lock;
extern struct xarray rocecc_devs;
extern struct rocecc_pset __rcu *rocecc_default_pset;
extern unsigned int rocecc_devs_gen;

/* --- the datapath's read side (under rcu_read_lock(), any context) ------- */

/*
 * The attached device with this ifindex in init_net, or NULL. The caller
 * must have checked that the device belongs to init_net (ifindexes are per
 * namespace; only init_net devices can be attached).
 */
static inline struct rocecc_dev *rocecc_dev_lookup_rcu(int ifindex)
{
	return xa_load(&rocecc_devs, ifindex);
}

/* The device's current parameters; valid until rcu_read_unlock(). */
static inline const struct rocecc_params *
rocecc_dev_params_rcu(const struct rocecc_dev *rdev)
{
	return &rcu_dereference(rdev->params)->p;
}

/* Add @n to counter @ctr of @rdev; any context. */
static inline void rocecc_ctr_add(struct rocecc_dev *rdev, enum rocecc_ctr ctr,
				  unsigned long n)
{
	struct rocecc_pcpu_ctrs *c = get_cpu_ptr(rdev->ctrs);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	u64_stats_add(&c->c[ctr], n);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(rdev->ctrs);
}

static inline void rocecc_ctr_inc(struct rocecc_dev *rdev, enum rocecc_ctr ctr)
{
	rocecc_ctr_add(rdev, ctr, 1);
}

/* Decrement a gauge (ROCECC_CTR_FLOWS); any context. */
static inline void rocecc_ctr_dec(struct rocecc_dev *rdev, enum rocecc_ctr ctr)
{
	struct rocecc_pcpu_ctrs *c = get_cpu_ptr(rdev->ctrs);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	u64_stats_sub(&c->c[ctr], 1);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(rdev->ctrs);
}

/* --- dev.c ---------------------------------------------------------------- */

/* Why a device leaves: the event it sends (none at module unload). */
enum rocecc_detach_why {
	ROCECC_DETACH_REQUEST,	/* ROCECC_CMD_DEV_DETACHED */
	ROCECC_DETACH_GONE,	/* ROCECC_CMD_DEV_GONE */
	ROCECC_DETACH_UNLOAD,	/* no event: the family is gone already */
};

int rocecc_dev_attach(u32 ifindex, const char *name,
		      struct netlink_ext_ack *extack);
int rocecc_dev_detach(u32 ifindex, const char *name,
		      struct netlink_ext_ack *extack);
struct rocecc_dev *rocecc_dev_find(u32 ifindex, const char *name,
				   struct netlink_ext_ack *extack);
void rocecc_dev_read_ctrs(const struct rocecc_dev *rdev,
			  u64 sum[ROCECC_CTR_NUM]);
int rocecc_dev_init(void);
void rocecc_dev_exit(void);

/* --- params.c: parameter sets; @rdev NULL means the default set ----------- */

const struct rocecc_params *rocecc_params_locked(struct rocecc_dev *rdev);
void rocecc_params_read(struct rocecc_dev *rdev, struct rocecc_params *out);
int rocecc_params_commit(struct rocecc_dev *rdev,
			 const struct rocecc_params *newp);
int rocecc_params_profile(const struct rocecc_params *p);
const char *rocecc_profile_name(unsigned int profile);
int rocecc_params_init(void);
void rocecc_params_exit(void);

/* --- sysctl.c ------------------------------------------------------------- */

int rocecc_sysctl_register(struct rocecc_dev *rdev, const char *name,
			   struct ctl_table_header **hdr,
			   struct ctl_table **tbl);
void rocecc_sysctl_unregister(struct ctl_table_header *hdr,
			      struct ctl_table *tbl);
int rocecc_sysctl_init(void);
void rocecc_sysctl_exit(void);

/* --- dcb.c, pfc_rx.c, pfc_gen.c: software DCB and PFC (dcb.h) ------------ */

struct rocecc_pkt;

int rocecc_dcb_attach(struct rocecc_dev *rdev, struct net_device *netdev);
void rocecc_dcb_publish(struct rocecc_dev *rdev, struct net_device *netdev);
void rocecc_dcb_detach(struct rocecc_dev *rdev, struct net_device *netdev);
void rocecc_dcb_free(struct rocecc_dev *rdev);
void rocecc_dcb_netdev_event(struct rocecc_dev *rdev,
			     struct net_device *netdev, unsigned long event);
void rocecc_dcb_rx(struct rocecc_dev *rdev, struct sk_buff *skb,
		   const struct rocecc_pkt *pkt, u32 len);
int rocecc_dcb_nl_put(struct sk_buff *skb, const struct rocecc_dev *rdev);
void rocecc_dcb_dscp_prio(struct net_device *netdev, u8 map[64]);
int rocecc_dcb_init(void);
void rocecc_dcb_exit(void);

/* --- genl.c --------------------------------------------------------------- */

void rocecc_genl_notify_dev(u8 cmd, const struct rocecc_dev *rdev);
void rocecc_genl_notify_params(const struct rocecc_dev *rdev,
			       const struct rocecc_params *oldp,
			       const struct rocecc_params *newp);
/* Flow events, built by flow.c; under rcu_read_lock(), any context. */
bool rocecc_genl_flow_event_wanted(void);
void *rocecc_genl_flow_event_put(struct sk_buff *skb, u8 cmd);
void rocecc_genl_flow_event_send(struct sk_buff *skb);
int rocecc_genl_init(void);
void rocecc_genl_exit(void);

/* --- bpf_engine.c --------------------------------------------------------- */

/* Is @netdev the BPF datapath engine's (its clsact filters)? Under RTNL. */
bool rocecc_bpf_engine_drives(struct net_device *netdev);

/* --- sch.c: the "rocecc" qdisc (802.1Qbb PFC on egress) -------------------- */

/* Module parameters (dp.c): the pause watchdog's bound, the record age. */
extern unsigned int rocecc_pfc_pause_max_ms;
extern unsigned int rocecc_pfc_occ_max_age_ms;

/* One 802.1p priority (class X:(p + 1)) of a rocecc qdisc. */
struct rocecc_sch_prio_stats {
	u64	backlog;	/* bytes queued in the band */
	u32	qlen;		/* packets queued in the band */
	bool	paused;		/* paused now */
	u64	pause_ns_total;	/* time spent paused, ns */
	u64	pauses;		/* XOFF applied */
	u64	resumes;	/* XON applied */
	u64	released;	/* pauses the pause watchdog ended */
	u64	tx_packets;	/* sent by the band's qdisc */
	u64	tx_bytes;
};

struct rocecc_sch_stats {
	struct rocecc_sch_prio_stats	prio[ROCECC_PFC_PRIOS];
	u32				ctrl_qlen;	/* MAC control frames */
};

/*
 * For the receive side (pfc_rx.c), from softirq under rcu_read_lock(), no
 * lock: pause priority @prio of @dev until @until_ns (ktime_get_ns()), or
 * resume it now (@until_ns 0); the newest frame wins. 0, or -ENOENT when
 * @dev's root qdisc is not a rocecc qdisc (not enforced), -EINVAL for a
 * priority above 7.
 */
int rocecc_sch_pause(struct net_device *dev, unsigned int prio, u64 until_ns);
/* Under RTNL or RCU. -ENOENT when @dev's root qdisc is not a rocecc qdisc. */
int rocecc_sch_read(struct net_device *dev, struct rocecc_sch_stats *out);
struct Qdisc;
/* Under RTNL: the child qdisc of priority @prio, NULL if not rocecc's. */
struct Qdisc *rocecc_sch_child(struct Qdisc *sch, unsigned int prio);
/* Under RTNL: DSCP -> priority of @dev's rocecc root qdisc, if any. */
void rocecc_sch_set_dscp_map(struct net_device *dev, const u8 map[64]);
int rocecc_sch_init(void);
void rocecc_sch_exit(void);

#endif /* _ROCECC_KMOD_H */
