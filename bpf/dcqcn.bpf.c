// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The BPF datapath engine: DCQCN in two TC (clsact) programs, dcqcn_egress
 * and dcqcn_ingress, on every attached netdev. What they do and the maps:
 * dcqcn_bpf.h. The algorithms are the shared core's (include/rocecc/:
 * roce.h parses, cnp.h and icrc.h build and check CNPs, dcqcn.h decides,
 * pacing.h turns the rate into departure times); this file only wires
 * them to packets, as kmod/hooks.c, rp.c and np.c do for the module.
 *
 * Inlining and locking. A flow's state is changed under its
 * bpf_spin_lock (egress runs in rxe's tasks, ingress in softirq, on any
 * CPU), and the 6.1 verifier refuses any call (helper or BPF-to-BPF) while
 * a lock is held. So everything done under a lock is inlined: the shared
 * headers declare plain `static inline` functions, which clang may leave
 * out of line when they are large, so `inline` is made always_inline
 * here, as the kernel's own headers do. The RP core's two loops are the
 * exception: they are bpf_loop() steps (ROCECC_LOOP, dcqcn.h), which the
 * verifier checks once instead of once per iteration and path, and a
 * call; the RP therefore works on a copy of the flow's RP state and
 * stores it back under the lock if nobody changed it meanwhile (see
 * dp_rp_try()). Counters, pacing (pacing.h) and the NP have no loop and
 * run under the lock.
 *
 * CNPs. A program cannot allocate a packet, so a CNP is made from a copy
 * of one: bpf_clone_redirect() sends a clone of the packet at hand to the
 * egress of the same netdev, with skb->mark = dcqcn_cnp_mark, and
 * dcqcn_egress rewrites that clone into the CNP (resized with
 * bpf_skb_change_tail(), the IP packet built by rocecc_cnp_build() stored
 * over it, priority np_cnp_prio in skb->priority and, for a tagged frame,
 * in the VLAN PCP). The packet at hand itself is left as it was and goes
 * on (to rxe, or out). The egress hook runs synchronously, on the same
 * CPU, inside bpf_clone_redirect(): the caller leaves the CNP's parameters
 * in its CPU's hand-over slot (dp_scratch[DP_SLOT_CNP]) and arms it; the
 * egress program consumes an armed slot only, so a foreign packet that
 * merely carries the mark passes untouched. Since the egress program runs
 * nested in the caller, each role has its own scratch slot, and the caller
 * does nothing after the redirect but read the slot's result.
 *  - A CE mark answered at once: the clone is of the CE-marked packet
 *    (ingress); its Ethernet addresses are swapped, so the CNP goes back
 *    to the station the data came from (the module routes it instead;
 *    with symmetric L2 paths, the same next hop).
 *  - The deferred CNP: rocecc_np_on_ce() suppresses a CE mark inside the
 *    np_min_time_between_cnps window and leaves a CNP pending for the end
 *    of it. The module arms an hrtimer for that instant. A BPF timer
 *    cannot send a packet, so here the first packet of the flow, in
 *    either direction (a data packet or CNP that arrives, a request or
 *    ACK that leaves), at or after the end of the window sends it
 *    (rocecc_np_poll()). The difference: the module's CNP leaves at the
 *    end of the window, this one with the flow's next packet after it, so
 *    it is late by the flow's gap between packets. Worst case: if the
 *    flow falls silent inside the window (the sender's last packets were
 *    marked, and the ACKs that answer them left inside the window too),
 *    the pending CNP is sent with the flow's next packet, however late
 *    that comes, or never; the sender then starts its next burst at the
 *    rate it had, not one cut further. As long as the sender sends
 *    (which is when a CNP matters) at least every window, no CNP is
 *    late by more than one packet gap.
 *
 * Helpers: bpf_skb_load_bytes, bpf_skb_store_bytes, bpf_l3_csum_replace
 * (4.x), bpf_clone_redirect, bpf_skb_change_tail, bpf_skb_vlan_push/pop,
 * bpf_spin_lock (5.1), bpf_sk_fullsock and skb->sk (5.1), bpf_loop
 * (5.17), bpf_skb_set_tstamp (5.18), maps, ktime. Kconfig
 * CONFIG_HZ through libbpf (the budget is in jiffies). Nothing newer than
 * 5.18, and no kernel struct is read (only struct __sk_buff and struct
 * bpf_sock), so no CO-RE relocation is needed: one object, unchanged, for
 * 6.1 and later.
 */
/* Every function of the shared core inlined: see "Inlining and locking" */
#define inline inline __attribute__((__always_inline__))

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* The RP's loops run as bpf_loop() steps: see "Inlining and locking" */
#define ROCECC_LOOP(max, fn, ctx)	bpf_loop((max), (fn), (ctx), 0)

#include <rocecc/roce.h>
#include <rocecc/cnp.h>
#include <rocecc/icrc.h>
#include <rocecc/dcqcn.h>
#include <rocecc/pacing.h>
#include "dcqcn_bpf.h"

/* struct bpf_sock's values (the socket headers are not for BPF) */
#define DP_AF_INET		2
#define DP_SOCK_DGRAM		2
#define DP_IPPROTO_UDP		17

/* Headers are copied into this much room: all the parser reads, and a CNP */
#define DP_BUF_LEN	128
_Static_assert(DP_BUF_LEN >= ROCECC_PARSE_HDR_MAX, "parser needs more room");
_Static_assert(DP_BUF_LEN >= ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN +
	       ROCECC_CNP_LEN_MAX, "a whole CNP is checked");

/* Scratch slots, per CPU: one per role, since the roles nest (above) */
enum {
	DP_SLOT_INGRESS,
	DP_SLOT_EGRESS,
	DP_SLOT_CNP,
	DP_SLOTS
};

/* The hand-over of a CNP to the egress program (the DP_SLOT_CNP slot) */
struct dp_cnp {
	__u32 armed;		/* set by the caller, cleared by egress */
	__u32 built;		/* set by egress: the clone is the CNP */
	__u32 l3;		/* the clone's IP header offset: 14 or 18 */
	__u32 swap_mac;		/* the clone came in: swap the addresses */
	struct rocecc_cnp_params cp;
	__u8 ip[ROCECC_CNP_LEN_MAX];
};

/*
 * An RP event for dp_rp_event(): plain data only, since that is all a
 * global function can be handed (it looks the maps up itself).
 */
struct dp_ev {
	struct dcqcn_flow_key key;	/* the flow, which exists */
	__u64 now;
	__u64 depart;			/* out: departure time */
	__u32 len;			/* a data packet: its IP length */
	__u32 lqpn;			/* a CNP: the local QPN */
	__u32 flags;			/* out: ROCECC_PACE_* */
	__u8 is_cnp;			/* a CNP, else a data packet */
	__u8 paced;			/* a request, not a READ response */
	__u8 pace;			/* ... and the netdev paces */
	__u8 ack_req;
	__u8 may_ask;			/* AckReq may be set on it */
	__u8 done;			/* out: applied */
	__u8 cnp;			/* out: a deferred CNP is due */
	__u8 handled;			/* out: the CNP cut */
	__u8 pad[7];
};

struct dp_scratch {
	__u8 buf[DP_BUF_LEN];
	struct rocecc_pkt pkt;
	struct rocecc_rp rp;	/* a flow's RP, worked on outside its lock */
	struct dp_ev ev;	/* the event handed to dp_rp_event() */
	struct dp_cnp cnp;
};

/* Attempts at one RP event before it is given up (see dp_rp_try()) */
#define DP_TRIES	4

/* The zeroed value new flows start from: too big for the stack */
struct dp_zero {
	__u8 b[sizeof(struct dcqcn_flow)];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DCQCN_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct dcqcn_dev);
} dp_devs SEC(".maps");

/* shared with the QP learner (qptimeout.bpf.c) */
DCQCN_QPS_MAP;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DCQCN_MAX_FLOWS);
	__type(key, struct dcqcn_flow_key);
	__type(value, struct dcqcn_flow);
} dp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, DCQCN_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct dcqcn_stats);
} dp_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DP_SLOTS);
	__type(key, __u32);
	__type(value, struct dp_scratch);
} dp_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct dp_zero);
} dp_zero SEC(".maps");

/* Set by the loader before load (see DCQCN_CNP_MARK_DEFAULT) */
const volatile __u32 dcqcn_cnp_mark = DCQCN_CNP_MARK_DEFAULT;

/*
 * Test hooks: with dcqcn_test_clock the programs read the time from
 * dcqcn_test_now_ns; with dcqcn_test_no_clone a CNP that is due is left
 * armed in the hand-over slot instead of being cloned, for the test to run
 * dcqcn_egress on the frame itself (BPF_PROG_TEST_RUN has no second hook
 * to run); with dcqcn_test_any_sock egress takes any socket, the one
 * BPF_PROG_TEST_RUN makes up for its skb too, as rxe's (dp_rxe_sock()).
 * Read-only data: for everybody else the verifier removes the branches.
 */
const volatile bool dcqcn_test_clock;
const volatile bool dcqcn_test_no_clone;
const volatile bool dcqcn_test_any_sock;
__u64 dcqcn_test_now_ns;
__u64 dcqcn_test_clones;

/* The kernel's HZ, for the pacing budget (rxe's timer is in jiffies) */
extern unsigned int CONFIG_HZ __kconfig __weak;

static __always_inline __u64 dp_now(void)
{
	if (dcqcn_test_clock)
		return dcqcn_test_now_ns;
	return bpf_ktime_get_ns();
}

static __always_inline struct dp_scratch *dp_slot(__u32 i)
{
	return bpf_map_lookup_elem(&dp_scratch, &i);
}

static __always_inline void dp_inc(struct dcqcn_stats *st, __u32 id)
{
	if (st && id < __DCQCN_STAT_MAX)
		st->v[id]++;
}

static __always_inline bool dp_rc_uc(__u8 op)
{
	__u8 tr = ROCECC_OP_TRANSPORT(op);

	return tr == ROCECC_TRANSPORT_RC || tr == ROCECC_TRANSPORT_UC;
}

static __always_inline bool dp_addr_eq(const __u8 *a, const __u8 *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return x[0] == y[0] && x[1] == y[1];
}

/*
 * Copy the frame's first bytes into @s and parse them. Returns the
 * parser's verdict; ROCECC_NOT_ROCE also for frames that cannot be RoCE.
 */
static __always_inline int dp_parse(struct __sk_buff *skb,
				    struct dp_scratch *s)
{
	__u32 len;

	/* Only IPv4 and IPv6 frames, 802.1Q-tagged or not, can be RoCEv2 */
	if (skb->protocol != bpf_htons(ETH_P_IP) &&
	    skb->protocol != bpf_htons(ETH_P_IPV6) &&
	    skb->protocol != bpf_htons(ETH_P_8021Q))
		return ROCECC_NOT_ROCE;
	/* "<", not "== 0": the 6.1 verifier learns a lower bound from it */
	len = skb->len;
	if (len < ROCECC_ETH_HLEN)
		return ROCECC_NOT_ROCE;
	if (len > DP_BUF_LEN)
		len = DP_BUF_LEN;
	if (bpf_skb_load_bytes(skb, 0, s->buf, len))
		return ROCECC_TRUNCATED;
	return rocecc_parse_eth(s->buf, len, skb->len, &s->pkt);
}

/*
 * Did one of rxe's QP sockets send @skb? rxe sends every packet of a QP
 * with skb->sk set to the QP's own socket (rxe_send(), 6.1 and 6.12), an
 * AF_INET UDP socket it made with sock_create_kern() and never binds; the
 * module checks that it is a kernel socket (sk_kern_sock) whose
 * sk_user_data is a QP of the device. Neither is in struct bpf_sock, and
 * a TC program of 6.1 cannot read struct sock (no bpf_rdonly_cast();
 * bpf_skc_to_udp6_sock() is for IPv6 sockets only; a probe read would
 * need the socket's address as a number, which the verifier gives only
 * with CAP_PERFMON and outside lockdown's confidentiality mode). What
 * struct bpf_sock does show tells the same apart: a socket a process
 * sends from always has a local port, because sending on an unbound UDP
 * socket binds it to an ephemeral port first (inet_send_prepare(),
 * udp_sendmsg()), and raw and packet sockets are not UDP. So: a full
 * AF_INET datagram socket of protocol UDP with local port 0, which only
 * the kernel's own sockets are.
 */
static __always_inline bool dp_rxe_sock(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (dcqcn_test_any_sock)
		return true;
	if (!sk)
		return false;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return false;
	return sk->family == DP_AF_INET && sk->type == DP_SOCK_DGRAM &&
	       sk->protocol == DP_IPPROTO_UDP && sk->src_port == 0;
}

/*
 * A parse that failed: count what was on its way to the RoCE port and
 * broken on an attached netdev (before the UDP header it may be
 * anybody's). The packet passes untouched either way.
 */
static __always_inline void dp_count_bad(struct __sk_buff *skb, int rc,
					 const struct rocecc_pkt *p)
{
	__u32 ifindex = skb->ifindex;

	if (rc == ROCECC_NOT_ROCE || p->dport != ROCECC_UDP_PORT)
		return;
	if (!bpf_map_lookup_elem(&dp_devs, &ifindex))
		return;
	dp_inc(bpf_map_lookup_elem(&dp_stats, &ifindex), ROCECC_STAT_MALFORMED);
}

/* --- flows ----------------------------------------------------------------- */

/*
 * The flow @key, created (zeroed; set up under its lock by dp_flow_sync())
 * if needed. NULL if the table is full.
 */
static __always_inline struct dcqcn_flow *
dp_flow_get(const struct dcqcn_flow_key *key, struct dcqcn_stats *st)
{
	struct dcqcn_flow *f;
	struct dp_zero *zero;
	__u32 k = 0;

	f = bpf_map_lookup_elem(&dp_flows, key);
	if (f)
		return f;
	zero = bpf_map_lookup_elem(&dp_zero, &k);
	if (!zero)
		return NULL;
	/* -EEXIST: another CPU was quicker, fine; full: below */
	bpf_map_update_elem(&dp_flows, key, zero, BPF_NOEXIST);
	f = bpf_map_lookup_elem(&dp_flows, key);
	if (!f)
		dp_inc(st, ROCECC_STAT_FLOW_TABLE_FULL);
	return f;
}

/*
 * Under the flow's lock: set a new flow up, and bring the RP back into
 * [floor, ceiling] when the rate parameters or the line rate changed
 * (kmod/flow.c rocecc_flow_sync_params()).
 */
static __always_inline void dp_flow_sync(struct dcqcn_flow *f,
					 const struct dcqcn_dev *d, __u64 now)
{
	const struct rocecc_params *p = &d->params;
	__u32 mx = p->v[ROCECC_PARAM_RP_MAX_RATE];
	__u32 mn = p->v[ROCECC_PARAM_RP_MIN_RATE];
	__u32 div = p->v[ROCECC_PARAM_RP_RATE_DIVISOR];
	__u32 line = d->line_rate_kbps;

	f->ver++;
	if (!f->init) {
		rocecc_rp_init(&f->rp, p, line);
		rocecc_np_init(&f->np);
		f->pace.budget_ns = (__u64)d->default_budget_us * 1000U;
		f->created = now;
		f->init = 1;
	} else if (f->clamp_max == mx && f->clamp_min == mn &&
		   f->clamp_div == div && f->clamp_line == line) {
		f->ver--;	/* unchanged after all */
		return;
	} else {
		rocecc_rp_reclamp(&f->rp, p, line);
	}
	f->clamp_max = mx;
	f->clamp_min = mn;
	f->clamp_div = div;
	f->clamp_line = line;
}

/*
 * Under the flow's lock: take the budget of local QP @lqpn from its map
 * entry @qp (kmod/rp.c rocecc_rp_set_budget(); @qp is the entry whose
 * peer and remote QPN made the flow's key).
 */
static __always_inline void dp_flow_qp(struct dcqcn_flow *f,
				       const struct dcqcn_dev *d, __u32 lqpn,
				       const struct dcqcn_qp *qp, __u64 hz)
{
	bool known = qp->flags & DCQCN_QP_TIMEOUT;

	if (f->lqpn == lqpn && f->budget_known == known &&
	    (!known || f->qp_timeout == qp->timeout))
		return;
	f->lqpn = lqpn;
	f->budget_known = known;
	f->qp_timeout = known ? qp->timeout : 0;
	f->pace.budget_ns = known ?
		rocecc_pace_budget_ns(qp->timeout, (__u32)hz, d->budget_pct,
				      d->max_delay_us) :
		(__u64)d->default_budget_us * 1000U;
}

/* CONFIG_HZ, or the smallest HZ Linux has if unknown (the safe side) */
static __always_inline __u64 dp_hz(void)
{
	return CONFIG_HZ ? CONFIG_HZ : 100;
}

/* --- CNPs -------------------------------------------------------------------- */

/*
 * Under the flow's lock, when the NP said ROCECC_NP_SEND_CNP: note it and
 * fill the hand-over slot @c with the CNP of flow @f (@key).
 */
static __always_inline void dp_cnp_prepare(struct dcqcn_flow *f,
					   const struct dcqcn_flow_key *key,
					   const struct dcqcn_dev *d,
					   struct dp_cnp *c, __u64 now)
{
	struct rocecc_cnp_params *cp = &c->cp;

	f->last_cnp_tx = now;
	__builtin_memcpy(cp->saddr, f->laddr, 16);
	__builtin_memcpy(cp->daddr, key->raddr, 16);
	cp->family = f->laddr_family;
	cp->dest_qp = key->rqpn;
	cp->sport = f->cnp_sport;
	cp->flow_label = 0;
	cp->ip_id = 0;
	cp->dscp = d->params.v[ROCECC_PARAM_NP_CNP_DSCP];
	cp->prio = d->params.v[ROCECC_PARAM_NP_CNP_PRIO];
	cp->ttl = ROCECC_CNP_DEFAULT_TTL;
}

/*
 * Send the CNP prepared in @c as a clone of @skb (IP header at @l3;
 * @swap_mac: @skb came in). Last thing a program does with its scratch:
 * the egress program runs inside the redirect.
 */
static __always_inline void dp_cnp_send(struct __sk_buff *skb,
					struct dp_cnp *c, __u32 l3,
					bool swap_mac, struct dcqcn_flow *f,
					struct dcqcn_stats *st)
{
	__u32 mark = skb->mark;
	long err;

	c->l3 = l3;
	c->swap_mac = swap_mac;
	c->built = 0;
	c->armed = 1;
	if (dcqcn_test_no_clone) {
		dcqcn_test_clones++;
		return;		/* the test runs dcqcn_egress on it */
	}
	skb->mark = dcqcn_cnp_mark;
	err = bpf_clone_redirect(skb, skb->ifindex, 0);
	skb->mark = mark;
	if (err || !c->built) {
		dp_inc(st, DCQCN_STAT_CNP_TX_ERRORS);
		__sync_fetch_and_add(&f->cnp_tx_errors, 1);
	}
	c->armed = 0;
}

/* Store the 802.1p priority @prio in the frame's VLAN tag, if it has one */
static __always_inline int dp_cnp_pcp(struct __sk_buff *skb, __u32 l3,
				      __u8 prio)
{
	__u16 tci;
	__u8 b[2];

	if (skb->vlan_present) {
		/* accelerated tag: pop and push it with the new PCP */
		tci = (__u16)((skb->vlan_tci & 0x1fff) | ((__u16)prio << 13));
		if (bpf_skb_vlan_pop(skb))
			return -1;
		return bpf_skb_vlan_push(skb, skb->vlan_proto, tci) ? -1 : 0;
	}
	if (l3 != ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN)
		return 0;
	if (bpf_skb_load_bytes(skb, ROCECC_ETH_HLEN, b, 1))
		return -1;
	b[0] = (__u8)((b[0] & 0x1f) | (prio << 5));
	return bpf_skb_store_bytes(skb, ROCECC_ETH_HLEN, b, 1, 0) ? -1 : 0;
}

/* Swap the Ethernet destination and source addresses */
static __always_inline int dp_swap_mac(struct __sk_buff *skb)
{
	__u8 m[12], o[12];
	__u32 i;

	if (bpf_skb_load_bytes(skb, 0, m, 12))
		return -1;
	for (i = 0; i < 6; i++) {
		o[i] = m[6 + i];
		o[6 + i] = m[i];
	}
	return bpf_skb_store_bytes(skb, 0, o, 12, 0) ? -1 : 0;
}

/*
 * Egress: @skb is the clone a program sent here to become the CNP of its
 * CPU's armed slot. Returns the verdict: the CNP goes on; a clone that
 * could not be rewritten is dropped (it is a copy of a data packet, which
 * must not be sent twice). A global function (checked once, on its own
 * stack): see dp_rp_event().
 */
__noinline int dp_cnp_rewrite(struct __sk_buff *skb)
{
	__u32 l3, ifindex = skb->ifindex;
	struct dcqcn_stats *st;
	struct dp_scratch *cs;
	struct dp_cnp *c;
	int len;

	cs = dp_slot(DP_SLOT_CNP);
	if (!cs)
		return TC_ACT_SHOT;
	c = &cs->cnp;
	l3 = c->l3;
	c->armed = 0;
	st = bpf_map_lookup_elem(&dp_stats, &ifindex);
	if (l3 != ROCECC_ETH_HLEN && l3 != ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN)
		goto fail;
	len = rocecc_cnp_build(&c->cp, c->ip, sizeof(c->ip));
	if (len != ROCECC_CNP_LEN_IPV4 && len != ROCECC_CNP_LEN_IPV6)
		goto fail;
	if (bpf_skb_change_tail(skb, l3 + len, 0))
		goto fail;
	if (len == ROCECC_CNP_LEN_IPV4) {
		if (bpf_skb_store_bytes(skb, l3, c->ip, ROCECC_CNP_LEN_IPV4,
					BPF_F_RECOMPUTE_CSUM))
			goto fail;
	} else {
		if (bpf_skb_store_bytes(skb, l3, c->ip, ROCECC_CNP_LEN_IPV6,
					BPF_F_RECOMPUTE_CSUM))
			goto fail;
	}
	if (c->swap_mac && dp_swap_mac(skb))
		goto fail;
	if (dp_cnp_pcp(skb, l3, c->cp.prio))
		goto fail;
	skb->priority = c->cp.prio;
	skb->mark = 0;
	/* never the departure time of the data packet it was cloned from */
	bpf_skb_set_tstamp(skb, 0, BPF_SKB_TSTAMP_UNSPEC);
	c->built = 1;
	dp_inc(st, ROCECC_STAT_NP_CNP_SENT);
	return TC_ACT_UNSPEC;
fail:
	/* the caller counts the failure, per flow too */
	return TC_ACT_SHOT;
}

/* --- egress -------------------------------------------------------------------- */

/* Not-ECT -> ECT(0), DSCP kept; IPv4 checksum updated. 0 if done. */
static __always_inline int dp_set_ect0(struct __sk_buff *skb,
				       const struct rocecc_pkt *p)
{
	__u32 l3 = p->l3_off;
	__u8 b[2], o[2];

	if (l3 != ROCECC_ETH_HLEN && l3 != ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN)
		return -1;
	if (bpf_skb_load_bytes(skb, l3, b, 2))
		return -1;
	o[0] = b[0];
	o[1] = b[1];
	if (p->family == ROCECC_AF_INET) {
		/* byte 1 is the TOS: ECN in its low two bits */
		b[1] = (__u8)((b[1] & ~ROCECC_ECN_MASK) | ROCECC_ECN_ECT0);
		if (bpf_l3_csum_replace(skb, l3 + 10, *(__u16 *)o,
					*(__u16 *)b, 2))
			return -1;
	} else {
		/* traffic class: its low nibble is byte 1's high nibble */
		b[1] = (__u8)((b[1] & ~(ROCECC_ECN_MASK << 4)) |
			      (ROCECC_ECN_ECT0 << 4));
	}
	return bpf_skb_store_bytes(skb, l3, b, 2, 0) ? -1 : 0;
}

/*
 * One RP event (@e, see struct dp_ev) on a flow, tried by dp_rp_try_send()
 * or dp_rp_try_cnp(), bpf_loop() steps: the maps dp_rp_event() found.
 */
struct dp_try {
	struct dcqcn_flow *f;
	const struct dcqcn_dev *d;
	const struct dcqcn_qp *qp;	/* a CNP: the QP it is for */
	struct dp_scratch *s;
	struct dp_cnp *c;
	struct dp_ev *e;
};

/*
 * The core runs on a copy of the flow's RP state (@t->s->rp),
 * outside the flow's bpf_spin_lock: its two loops are bpf_loop() steps
 * (ROCECC_LOOP), a call, which the 6.1 verifier refuses under a lock. The
 * result is stored back under the lock only if the flow's version is
 * still the one copied, i.e. no other CPU changed its RP meanwhile (every
 * change of rp bumps ver under the lock); otherwise the event is tried
 * again on a fresh copy, at most DP_TRIES times, and then given up
 * (rp_contended; never seen: a flow's events come from one rxe task and
 * one softirq, a window of a few hundred ns). So every event is applied
 * once, in a serial order, and a reader under the lock (BPF_F_LOCK) sees
 * a consistent flow. The bookkeeping that has no loop (counters, pacing,
 * the NP) is done under the lock with the store.
 */
static __always_inline long dp_rp_try(void *data, bool is_cnp)
{
	struct dp_try *t = data;
	struct dcqcn_flow *f = t->f;
	const struct dcqcn_dev *d = t->d;
	struct rocecc_rp *w = &t->s->rp;
	struct dp_ev *e = t->e;
	__u64 now = e->now, inc, ver;
	bool handled = false;

	bpf_spin_lock(&f->lock);
	dp_flow_sync(f, d, now);
	if (is_cnp && t->qp)
		dp_flow_qp(f, d, e->lqpn, t->qp, dp_hz());
	ver = f->ver;
	*w = f->rp;
	bpf_spin_unlock(&f->lock);

	inc = w->inc_timer + w->inc_byte;
	if (is_cnp)
		handled = rocecc_rp_on_cnp(w, &d->params, now);
	else
		rocecc_rp_on_send(w, &d->params, now, e->len);

	bpf_spin_lock(&f->lock);
	if (f->ver != ver) {
		bpf_spin_unlock(&f->lock);
		return 0;		/* somebody was quicker: again */
	}
	f->rp = *w;
	f->ver++;
	f->last_active = now;
	if (f->rp.inc_timer + f->rp.inc_byte != inc)
		f->last_increase = now;
	if (is_cnp) {
		f->last_cnp_rx = now;
	} else {
		f->bytes += e->len;
		f->pkts++;
		if (!e->paced)
			f->unpaced_pkts++;
	}
	if (!is_cnp && e->pace) {
		/* AckReq is set by the caller (dp_set_ackreq()) */
		e->depart = rocecc_pace(&f->pace, &f->rp, now, e->len,
					e->ack_req, e->may_ask,
					(__u64)d->max_delay_us * 1000U,
					&e->flags);
		if (e->flags & ROCECC_PACE_CAPPED)
			f->pacing_capped++;
		if (e->flags & ROCECC_PACE_ACKREQ)
			f->pacing_ackreq++;
		if (e->flags & ROCECC_PACE_DELAYED)
			f->pacing_delayed++;
	} else if (!is_cnp && e->paced) {
		/* not paced (any more): behind what is held (pacing.h) */
		e->depart = rocecc_pace_unpaced(&f->pace, now);
	}
	e->cnp = f->np.pending &&
		 rocecc_np_poll(&f->np, &d->params, now) == ROCECC_NP_SEND_CNP;
	if (e->cnp)
		dp_cnp_prepare(f, &e->key, d, t->c, now);
	bpf_spin_unlock(&f->lock);
	e->handled = handled;
	e->done = 1;
	return 1;
}

/* The bpf_loop() steps: one per kind of event, each verified on its own */
static long dp_rp_try_send(__u32 i, void *data)
{
	(void)i;
	return dp_rp_try(data, false);
}

static long dp_rp_try_cnp(__u32 i, void *data)
{
	(void)i;
	return dp_rp_try(data, true);
}

/*
 * Apply RP event @e to its flow: a global function, so that the verifier
 * checks it once, whatever state its callers reach it in (inlined, the RP
 * core was checked once per path that leads to it: over 300k
 * instructions for dcqcn_egress alone). Its bpf_loop() steps run the
 * tries. A deferred CNP that became due is in the CNP slot.
 */
__noinline int dp_rp_event(struct dp_ev *e)
{
	struct dcqcn_flow_key key;	/* 6.1 takes no other memory as a key */
	struct dcqcn_qp_key qk;
	struct dp_try t = {};
	struct dp_scratch *cs;
	__u32 ifindex;

	if (!e)
		return 0;
	__builtin_memcpy(&key, &e->key, sizeof(key));
	ifindex = key.ifindex;
	t.f = bpf_map_lookup_elem(&dp_flows, &key);
	t.d = bpf_map_lookup_elem(&dp_devs, &ifindex);
	t.s = dp_slot(e->is_cnp ? DP_SLOT_INGRESS : DP_SLOT_EGRESS);
	cs = dp_slot(DP_SLOT_CNP);
	if (!t.f || !t.d || !t.s || !cs)
		return 0;
	t.c = &cs->cnp;
	t.e = e;
	if (e->is_cnp) {
		qk.ifindex = ifindex;
		qk.lqpn = e->lqpn;
		t.qp = bpf_map_lookup_elem(&dp_qps, &qk);
		bpf_loop(DP_TRIES, dp_rp_try_cnp, &t, 0);
	} else {
		bpf_loop(DP_TRIES, dp_rp_try_send, &t, 0);
	}
	return 0;
}

/*
 * Set BTH AckReq on the request @p (parsed from @skb, which holds it all)
 * and mend its ICRC by what the bit changes (rocecc_icrc_flip(): no read
 * of the payload, which the verifier could not bound), as the module does
 * with rocecc_icrc_set_ackreq(). The UDP checksum is 0
 * (rocecc_pace_may_ask()), so nothing else covers the bit. 0 or -1.
 */
static __always_inline int dp_set_ackreq(struct __sk_buff *skb,
					 const struct rocecc_pkt *p)
{
	__u32 off = p->bth_off + 8, icrc;
	__s32 after = rocecc_icrc_after(p, off);
	__u8 b, c[ROCECC_ICRC_LEN];

	if (after < 0 || bpf_skb_load_bytes(skb, off, &b, 1) ||
	    bpf_skb_load_bytes(skb, p->icrc_off, c, sizeof(c)))
		return -1;
	b |= ROCECC_BTH_ACKREQ;
	icrc = rocecc_get_le32(c) ^
	       rocecc_icrc_flip(ROCECC_BTH_ACKREQ, (__u32)after);
	rocecc_put_le32(c, icrc);
	if (bpf_skb_store_bytes(skb, off, &b, 1, 0) ||
	    bpf_skb_store_bytes(skb, p->icrc_off, c, sizeof(c), 0))
		return -1;
	return 0;
}

/*
 * A data packet @p of class @cls leaves: the RP of its flow @key, and its
 * departure time. Returns whether a deferred CNP became due (prepared in
 * the CNP slot, to be sent by the caller).
 */
static __always_inline bool dp_egress_data(struct __sk_buff *skb,
					   const struct rocecc_pkt *p,
					   enum rocecc_data_class cls,
					   const struct dcqcn_dev *d,
					   const struct dcqcn_flow_key *key,
					   struct dcqcn_stats *st,
					   const __u8 *buf,
					   struct dp_ev *e, __u64 now)
{
	__builtin_memset(e, 0, sizeof(*e));
	__builtin_memcpy(&e->key, key, sizeof(e->key));
	e->now = now;
	e->len = p->icrc_off + ROCECC_ICRC_LEN - p->l3_off;
	e->paced = cls == ROCECC_DATA_PACED;
	e->pace = cls == ROCECC_DATA_PACED && (d->flags & DCQCN_DEV_PACE);
	e->ack_req = p->bth.ack_req;
	e->may_ask = e->pace && (d->flags & DCQCN_DEV_ACKREQ) &&
		     rocecc_pace_may_ask(p, buf, DP_BUF_LEN);
	dp_rp_event(e);
	if (!e->done)
		dp_inc(st, DCQCN_STAT_RP_CONTENDED);
	if (e->flags & ROCECC_PACE_CAPPED)
		dp_inc(st, ROCECC_STAT_PACING_CAPPED);
	if (e->flags & ROCECC_PACE_ACKREQ)
		dp_inc(st, dp_set_ackreq(skb, p) ? ROCECC_STAT_MALFORMED :
			   ROCECC_STAT_PACING_ACKREQ);
	if (e->flags & ROCECC_PACE_DELAYED)
		dp_inc(st, ROCECC_STAT_PACING_DELAYED);
	if (e->depart > now)
		bpf_skb_set_tstamp(skb, e->depart,
				   BPF_SKB_TSTAMP_DELIVERY_MONO);
	return e->cnp;
}

/* Another packet of a flow leaves (an ACK): only a deferred CNP may be due */
static __always_inline bool dp_poll(struct dcqcn_flow *f,
				    const struct dcqcn_flow_key *key,
				    const struct dcqcn_dev *d,
				    struct dp_cnp *c, __u64 now)
{
	bool cnp = false;

	if (!f->np.pending)		/* racy peek; decided under the lock */
		return false;
	bpf_spin_lock(&f->lock);
	f->last_active = now;
	if (f->init &&
	    rocecc_np_poll(&f->np, &d->params, now) == ROCECC_NP_SEND_CNP) {
		dp_cnp_prepare(f, key, d, c, now);
		cnp = true;
	}
	bpf_spin_unlock(&f->lock);
	return cnp;
}

SEC("tc")
int dcqcn_egress(struct __sk_buff *skb)
{
	struct dcqcn_flow_key key = {};
	struct dp_scratch *s, *cs;
	struct dcqcn_stats *st;
	struct dcqcn_flow *f;
	struct dcqcn_dev *d;
	struct rocecc_pkt *p;
	__u32 ifindex = skb->ifindex;
	enum rocecc_data_class cls;
	bool cnp;
	__u64 now;
	int rc;

	cs = dp_slot(DP_SLOT_CNP);
	if (!cs)
		return TC_ACT_UNSPEC;
	if (skb->mark == dcqcn_cnp_mark && cs->cnp.armed)
		return dp_cnp_rewrite(skb);

	s = dp_slot(DP_SLOT_EGRESS);
	if (!s)
		return TC_ACT_UNSPEC;
	p = &s->pkt;
	rc = dp_parse(skb, s);
	if (rc != ROCECC_ROCE) {
		dp_count_bad(skb, rc, p);
		return TC_ACT_UNSPEC;
	}
	d = bpf_map_lookup_elem(&dp_devs, &ifindex);
	if (!d)
		return TC_ACT_UNSPEC;
	if (p->bth.opcode == ROCECC_OP_CNP)
		return TC_ACT_UNSPEC;	/* ours, or someone's: untouched */
	st = bpf_map_lookup_elem(&dp_stats, &ifindex);
	/* not rxe's: a user's, neither marked nor tracked nor paced */
	if (!dp_rxe_sock(skb)) {
		dp_inc(st, ROCECC_STAT_TX_NOT_RXE);
		return TC_ACT_UNSPEC;
	}

	if (p->ecn == ROCECC_ECN_NOT_ECT && !dp_set_ect0(skb, p))
		dp_inc(st, ROCECC_STAT_ECT_MARKED);
	if (!dp_rc_uc(p->bth.opcode))
		return TC_ACT_UNSPEC;

	now = dp_now();
	__builtin_memcpy(key.raddr, p->daddr, 16);
	key.rqpn = p->bth.dest_qp;
	key.ifindex = ifindex;
	cls = rocecc_op_data_class(p->bth.opcode);
	if (cls == ROCECC_DATA_NONE) {
		f = bpf_map_lookup_elem(&dp_flows, &key);
		cnp = f && dp_poll(f, &key, d, &cs->cnp, now);
	} else {
		f = dp_flow_get(&key, st);
		if (!f)
			return TC_ACT_UNSPEC;
		cnp = dp_egress_data(skb, p, cls, d, &key, st, s->buf,
				     &s->ev, now);
	}
	if (cnp && f) {
		dp_inc(st, DCQCN_STAT_CNP_DEFERRED);
		dp_cnp_send(skb, &cs->cnp, p->l3_off, false, f, st);
	}
	return TC_ACT_UNSPEC;
}

/* --- ingress -------------------------------------------------------------------- */

/*
 * The ICRC check of a CNP of the standard layout (rocecc_cnp_build()'s:
 * an IP header of @iplen bytes without options, UDP, BTH, 16 reserved
 * bytes) at @ip, with icrc.h's functions on constant offsets, which is
 * what the verifier can bound.
 */
static __always_inline bool dp_cnp_icrc(const __u8 *ip, __u32 iplen,
					__u8 family)
{
	__u32 crc;

	if (rocecc_icrc_hdr(ip, 0, iplen, family, &crc))
		return false;
	crc = rocecc_crc32_le(crc, ip + iplen + ROCECC_UDP_HLEN +
			      ROCECC_BTH_LEN, ROCECC_CNP_RSVD_LEN);
	return ~crc == rocecc_get_le32(ip + iplen + ROCECC_CNP_UDP_LEN -
				       ROCECC_ICRC_LEN);
}

/*
 * Is the CNP ingress parsed into its slot a whole CNP of the standard
 * layout with a valid ICRC? (The module also takes IPv4 options in a CNP;
 * no sender puts any there.) A global function: see dp_rp_event().
 */
__noinline int dp_cnp_valid(struct __sk_buff *skb)
{
	__u32 n = skb->len < DP_BUF_LEN ? skb->len : DP_BUF_LEN, l3;
	struct dp_scratch *s = dp_slot(DP_SLOT_INGRESS);
	const struct rocecc_pkt *p;
	const __u8 *ip;

	if (!s)
		return false;
	p = &s->pkt;
	l3 = p->l3_off;

	if (p->udp_len != ROCECC_CNP_UDP_LEN)
		return false;
	if (l3 == ROCECC_ETH_HLEN)
		ip = s->buf + ROCECC_ETH_HLEN;
	else if (l3 == ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN)
		ip = s->buf + ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN;
	else
		return false;
	if (p->family == ROCECC_AF_INET)
		return p->l4_off == l3 + ROCECC_IPV4_HLEN &&
		       n >= l3 + ROCECC_CNP_LEN_IPV4 &&
		       dp_cnp_icrc(ip, ROCECC_IPV4_HLEN, ROCECC_AF_INET);
	return n >= l3 + ROCECC_CNP_LEN_IPV6 &&
	       dp_cnp_icrc(ip, ROCECC_IPV6_HLEN, ROCECC_AF_INET6);
}

/*
 * A CNP with a valid ICRC for local QP @p->bth.dest_qp: the RP of the QP's
 * flow. Returns whether a deferred CNP of that flow became due (in the
 * CNP slot).
 */
static __always_inline bool dp_ingress_cnp(const struct rocecc_pkt *p,
					   struct dcqcn_stats *st,
					   struct dcqcn_flow **fp,
					   struct dcqcn_flow_key *key,
					   struct dp_ev *e, __u64 now)
{
	struct dcqcn_qp_key qk = {
		.ifindex = key->ifindex,
		.lqpn = p->bth.dest_qp,
	};
	struct dcqcn_flow *f;
	struct dcqcn_qp *qp;
	bool handled, cnp;

	qp = bpf_map_lookup_elem(&dp_qps, &qk);
	if (!qp) {
		dp_inc(st, ROCECC_STAT_RESOLVER_MISS);
		dp_inc(st, ROCECC_STAT_RP_CNP_IGNORED);
		return false;
	}
	if (!dp_addr_eq(qp->raddr, p->saddr)) {
		dp_inc(st, ROCECC_STAT_RP_CNP_SPOOFED);
		dp_inc(st, ROCECC_STAT_RP_CNP_IGNORED);
		return false;
	}
	__builtin_memcpy(key->raddr, qp->raddr, 16);
	key->rqpn = qp->rqpn & ROCECC_BTH_QPN_MASK;
	f = dp_flow_get(key, st);
	if (!f) {
		dp_inc(st, ROCECC_STAT_RP_CNP_IGNORED);
		return false;
	}
	*fp = f;

	__builtin_memset(e, 0, sizeof(*e));
	__builtin_memcpy(&e->key, key, sizeof(e->key));
	e->now = now;
	e->lqpn = qk.lqpn;
	e->is_cnp = 1;
	dp_rp_event(e);
	if (!e->done) {
		dp_inc(st, DCQCN_STAT_RP_CONTENDED);
		dp_inc(st, ROCECC_STAT_RP_CNP_IGNORED);
		return false;
	}
	handled = e->handled;
	cnp = e->cnp;
	dp_inc(st, handled ? ROCECC_STAT_RP_CNP_HANDLED :
			     ROCECC_STAT_RP_CNP_IGNORED);
	return cnp;
}

/*
 * Any other RC/UC packet for local QP @p->bth.dest_qp: the NP of the QP's
 * flow if it is CE-marked, a deferred CNP that may be due, the QP's
 * timeout for the pacing budget. Returns whether a CNP is due (in @c, the CNP slot).
 */
static __always_inline bool dp_ingress_data(const struct rocecc_pkt *p,
					    const struct dcqcn_dev *d,
					    struct dcqcn_stats *st,
					    struct dcqcn_flow **fp,
					    struct dcqcn_flow_key *key,
					    struct dp_cnp *c, __u64 now)
{
	struct dcqcn_qp_key qk = {
		.ifindex = key->ifindex,
		.lqpn = p->bth.dest_qp,
	};
	bool ce = p->ecn == ROCECC_ECN_CE, cnp = false;
	enum rocecc_np_action act;
	struct dcqcn_flow *f;
	struct dcqcn_qp *qp;
	__u64 hz = dp_hz();

	qp = bpf_map_lookup_elem(&dp_qps, &qk);
	/* rxe accepts RC/UC packets only from the QP's remote address */
	if (!qp || !dp_addr_eq(qp->raddr, p->saddr)) {
		if (ce) {
			dp_inc(st, ROCECC_STAT_RESOLVER_MISS);
			dp_inc(st, DCQCN_STAT_CE_UNANSWERED);
		}
		return false;
	}
	__builtin_memcpy(key->raddr, qp->raddr, 16);
	key->rqpn = qp->rqpn & ROCECC_BTH_QPN_MASK;
	f = ce ? dp_flow_get(key, st) : bpf_map_lookup_elem(&dp_flows, key);
	if (!f) {
		if (ce)
			dp_inc(st, DCQCN_STAT_CE_UNANSWERED);
		return false;
	}
	*fp = f;
	/*
	 * Nothing to do for a clean packet of a flow that knows its QP and
	 * the QP's timeout as dp_qps has it now (the daemon fills it in once
	 * the learner saw it, bpf/qptimeout.bpf.c; an entry without one has
	 * timeout 0, as a flow without one has qp_timeout 0)
	 */
	if (!ce && !f->np.pending && f->lqpn == qk.lqpn &&
	    f->budget_known == !!(qp->flags & DCQCN_QP_TIMEOUT) &&
	    f->qp_timeout == qp->timeout)
		return false;

	bpf_spin_lock(&f->lock);
	dp_flow_sync(f, d, now);
	dp_flow_qp(f, d, qk.lqpn, qp, hz);
	f->last_active = now;
	if (ce) {
		/* Where the CNPs go, remembered for a deferred one too */
		f->laddr_family = p->family;
		f->cnp_sport = p->sport;
		__builtin_memcpy(f->laddr, p->daddr, 16);
		act = rocecc_np_on_ce(&f->np, &d->params, now);
	} else {
		act = rocecc_np_poll(&f->np, &d->params, now);
	}
	if (act == ROCECC_NP_SEND_CNP) {
		dp_cnp_prepare(f, key, d, c, now);
		cnp = true;
	}
	bpf_spin_unlock(&f->lock);

	if (ce)
		dp_inc(st, DCQCN_STAT_CE_ANSWERED);
	else if (cnp)
		dp_inc(st, DCQCN_STAT_CNP_DEFERRED);
	return cnp;
}

SEC("tc")
int dcqcn_ingress(struct __sk_buff *skb)
{
	struct dcqcn_flow_key key = {};
	struct dcqcn_flow *f = NULL;
	struct dp_scratch *s, *cs;
	struct dcqcn_stats *st;
	struct dcqcn_dev *d;
	struct rocecc_pkt *p;
	__u32 ifindex = skb->ifindex;
	int rc, verdict = TC_ACT_UNSPEC;
	bool cnp;
	__u64 now;

	s = dp_slot(DP_SLOT_INGRESS);
	cs = dp_slot(DP_SLOT_CNP);
	if (!s || !cs)
		return TC_ACT_UNSPEC;
	p = &s->pkt;
	rc = dp_parse(skb, s);
	if (rc != ROCECC_ROCE) {
		dp_count_bad(skb, rc, p);
		return TC_ACT_UNSPEC;
	}
	d = bpf_map_lookup_elem(&dp_devs, &ifindex);
	if (!d)
		return TC_ACT_UNSPEC;
	st = bpf_map_lookup_elem(&dp_stats, &ifindex);
	key.ifindex = ifindex;
	now = dp_now();

	if (p->bth.opcode == ROCECC_OP_CNP) {
		if (!dp_cnp_valid(skb)) {
			dp_inc(st, ROCECC_STAT_MALFORMED);
			return TC_ACT_UNSPEC;
		}
		cnp = dp_ingress_cnp(p, st, &f, &key, &s->ev, now);
		/* consumed, as the module does: rxe has no use for it */
		verdict = TC_ACT_STOLEN;
	} else {
		if (p->ecn == ROCECC_ECN_CE)
			dp_inc(st, ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS);
		if (!dp_rc_uc(p->bth.opcode))
			return TC_ACT_UNSPEC;
		cnp = dp_ingress_data(p, d, st, &f, &key, &cs->cnp, now);
	}
	if (cnp && f)
		dp_cnp_send(skb, &cs->cnp, p->l3_off, true, f, st);
	return verdict;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
