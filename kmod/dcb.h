/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc: software DCB and PFC (IEEE 802.1Qbb) of an attached device, as
 * the three files that share it see it:
 *
 *  dcb.c      the DCB object's life (attach, detach, free), DCB netlink
 *             ops (the software DCB configuration), DSCP -> priority, the
 *             PFC nest of a DEV_GET reply
 *  pfc_rx.c   received PFC frames: indications, pausing the rocecc qdisc
 *  pfc_gen.c  receive occupancy of RoCE packets and the XOFF/XON frames
 *             sent from it (rocecc_pfc_gen(), include/rocecc/pfc.h)
 *
 * Lifetime
 * --------
 * The object (struct rocecc_dcb) is refcounted: the attached device holds
 * one reference (dropped when the device is freed, after a grace period,
 * so a hook that found the device under RCU may still take one), every
 * occupancy record one, and every queued generation work one (pfc_gen.c).
 * It thus outlives detach while skbs of the device are in flight; detach
 * marks it dead, which stops frames and new work.
 *
 * Locking: the configuration is written under RTNL and read anywhere with
 * READ_ONCE (dcb.c says why that is enough); counters and occupancy are
 * atomics; @lock serialises the generation work and detach (pfc_gen.c).
 */
#ifndef _ROCECC_DCB_H
#define _ROCECC_DCB_H

#include <linux/atomic.h>
#include <linux/dcbnl.h>
#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rocecc/pfc.h>

struct net_device;
struct rocecc_dev;

#define ROCECC_DCB_PRIOS	ROCECC_PFC_PRIOS
#define ROCECC_DCB_BUFS		DCBX_MAX_BUFFERS
static_assert(ROCECC_DCB_BUFS == ROCECC_PFC_BUFS,
	      "the shared PFC generation has as many buffers as DCB");

/* struct rocecc_dcb.flags */
enum {
	ROCECC_DCB_WARNED_UNENFORCED,	/* pfc_rx.c: warned once */
};

/*
 * Software DCB of one attached device, and its occupancy accounting.
 * Allocated at attach (kzalloc, one per attached device); freed when the
 * last reference goes (see the top of this file).
 */
struct rocecc_dcb {
	refcount_t	ref;
	int		ifindex;
	bool		sw;		/* our ops are installed; constant */

	/* Configuration: written under RTNL, read with READ_ONCE. */
	u8		pfc_en;
	u8		mbc;
	u16		delay;
	u8		prio2buffer[ROCECC_DCB_PRIOS];
	u32		buffer_size[ROCECC_DCB_BUFS];
	u32		xoff[ROCECC_DCB_BUFS];
	u32		xon[ROCECC_DCB_BUFS];
	u32		speed_mbps;
	u8		dscp2prio[64];

	/*
	 * Counters and gauges. Atomics, not per-CPU: PFC frames are rare,
	 * and the occupancy must be exact at every instant to be compared
	 * with the thresholds.
	 */
	atomic64_t	indications[ROCECC_DCB_PRIOS];
	atomic64_t	requests[ROCECC_DCB_PRIOS];
	atomic64_t	unenforced;
	atomic64_t	pause_rx;
	atomic64_t	tx_errors;
	atomic64_t	untracked;
	atomic64_t	rx_ignored;	/* pfc_rx.c: not to us */
	atomic64_t	not_rxe;	/* pfc_gen.c: not rxe's socket */
	atomic64_t	occ_expired;	/* pfc_gen.c: records aged out */
	atomic_t	occ[ROCECC_DCB_PRIOS];		/* bytes */
	atomic_t	occ_max[ROCECC_DCB_PRIOS];
	atomic_t	occ_buf[ROCECC_DCB_BUFS];
	unsigned long	flags;

	/*
	 * Generation state. @lock serialises the work and detach, both in
	 * process context (the timer and the packet paths never take it: they
	 * only kick the work). @paused_mask (bit b: buffer b has an XOFF out)
	 * is read locklessly by the hook and the destructor to decide whether
	 * to kick the work.
	 */
	spinlock_t	lock;
	bool		dead;				/* detached */
	/*
	 * Bit b: buffer b crossed xoff (set by the hook, taken by the work),
	 * so that a burst rxe drains before the work runs still sends its
	 * XOFF (and the XON right after), as a NIC's buffer would.
	 */
	unsigned long	xoff_req;
	u8		paused_mask;
	/* Per buffer: the priorities XOFF'd and their refresh (pfc.h). */
	struct rocecc_pfc_gen_buf gen[ROCECC_DCB_BUFS];
	struct work_struct work;
	struct hrtimer	timer;
};

/* dcb.c */
void rocecc_dcb_put(struct rocecc_dcb *d);

/* pfc_gen.c */
void rocecc_dcb_kick(struct rocecc_dcb *d);
void rocecc_dcb_gen_setup(struct rocecc_dcb *d);
void rocecc_dcb_gen_stop(struct rocecc_dcb *d);
int rocecc_dcb_gen_init(void);
void rocecc_dcb_gen_exit(void);

/* pfc_rx.c */
void rocecc_dcb_pause_init(void);
void rocecc_dcb_pause_exit(void);

#endif /* _ROCECC_DCB_H */
