// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's QP pairing (daemon/roceccd/pairing.c): which
 * peer each QP of the table gets from flowmon's flows, fed as fixtures
 * (key, local QPN, packets each way, latest packet) in every order the
 * flow map's hash may walk them, and that a peer from the QP's address
 * vector (rd_pair_av()) outranks them all. The testbed's case: rocegen's
 * QPs are QPN 17 on every rxe device of the one namespace, toward QPN 17.
 */
#include <arpa/inet.h>
#include <string.h>

#include "roceccd/roceccd.h"
#include "tap.h"

#define VETH1	11
#define VETH2	12

struct fx {
	const char *peer;	/* IPv6, or ::ffff:a.b.c.d */
	uint32_t rqpn, ifindex, lqpn;
	uint64_t tx, rx, last_ns;
};

static struct rd rd;
static struct rd_qp qps[8];

static void addr(const char *s, uint8_t a[16])
{
	if (inet_pton(AF_INET6, s, a) != 1)
		tap_diag("bad fixture address %s", s);
}

/* The table: nothing but @n QPs (ifindex, lqpn, rqpn), no peers yet */
static void table(unsigned int n, const uint32_t (*q)[3])
{
	unsigned int i;

	memset(qps, 0, sizeof(qps));
	for (i = 0; i < n; i++) {
		qps[i].ifindex = q[i][0];
		qps[i].lqpn = q[i][1];
		qps[i].rqpn = q[i][2];
	}
	rd.qps = qps;
	rd.nqps = n;
}

/* One round over flows @fl in the order @ord (@n of them) */
static void round_of(const struct fx *fl, const unsigned int *ord,
		     unsigned int n)
{
	struct flowmon_flow f;
	struct flowmon_key k;
	unsigned int i;

	rd_pair_begin(&rd);
	for (i = 0; i < n; i++) {
		const struct fx *x = &fl[ord[i]];

		memset(&k, 0, sizeof(k));
		memset(&f, 0, sizeof(f));
		addr(x->peer, k.peer);
		k.rqpn = x->rqpn;
		k.ifindex = x->ifindex;
		f.lqpn = x->lqpn;
		f.tx_pkts = x->tx;
		f.rx_pkts = x->rx;
		f.first_ns = 1;
		f.last_ns = x->last_ns;
		rd_pair_flow(&rd, &k, &f);
	}
	rd_pair_end(&rd);
}

/* The next permutation of @o (@n), false after the last */
static bool next_order(unsigned int *o, unsigned int n)
{
	unsigned int i, j, t;

	for (i = n - 1; i > 0 && o[i - 1] >= o[i]; i--)
		;
	if (!i)
		return false;
	for (j = n - 1; o[j] <= o[i - 1]; j--)
		;
	t = o[i - 1], o[i - 1] = o[j], o[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = o[i], o[i] = o[j], o[j] = t;
	return true;
}

static const char *peer_of(const struct rd_qp *e, char *buf, size_t n)
{
	if (!e->have_peer)
		return "none";
	return inet_ntop(AF_INET6, e->peer, buf, (socklen_t)n);
}

/*
 * Every order of flows @fl (@n <= 6) gives QP @i of the table peer @want
 * ("none": no peer) and changes it @changes times; the table is set
 * anew by @setup before each. How many orders did.
 */
static unsigned int every_order(void (*setup)(void), const struct fx *fl,
				unsigned int n, unsigned int i,
				const char *want, unsigned int changes,
				const char **bad)
{
	unsigned int o[6] = { 0 }, j, good = 0, total = 0, gen;
	static char buf[INET6_ADDRSTRLEN], first_bad[INET6_ADDRSTRLEN];

	for (j = 0; j < n; j++)
		o[j] = j;
	*bad = NULL;
	do {
		setup();
		gen = qps[i].peer_gen;
		round_of(fl, o, n);
		total++;
		if (!strcmp(peer_of(&qps[i], buf, sizeof(buf)), want) &&
		    qps[i].peer_gen - gen == changes)
			good++;
		else if (!*bad)
			*bad = strcpy(first_bad, peer_of(&qps[i], buf,
							 sizeof(buf)));
	} while (next_order(o, n));
	return total - good;
}

#define ALL_ORDERS(setup, fl, i, want, changes, ...)			\
	do {								\
		const char *__bad;					\
		unsigned int __n = every_order(setup, fl,		\
			sizeof(fl) / sizeof(fl[0]), i, want, changes,	\
			&__bad);					\
		if (!tap_ok(!__n, __VA_ARGS__))				\
			tap_diag("%u orders wrong, e.g. peer %s, want %s (or a change too many)", \
				 __n, __bad, want);			\
	} while (0)

/* rocegen host 1 -> host 2: QP 17 on both devices, toward QP 17 */
static const uint32_t two_hosts[][3] = {
	{ VETH1, 17, 17 }, { VETH2, 17, 17 },
};

static void fresh(void)
{
	table(2, two_hosts);
}

static void test_plain(void)
{
	static const struct fx fl[] = {
		/* host 1's flow to host 2, and host 2's back */
		{ "::ffff:10.0.0.2", 17, VETH1, 17, 500, 400, 1000 },
		{ "::ffff:10.0.0.1", 17, VETH2, 17, 400, 500, 1001 },
	};
	static const struct fx unres[] = {
		/* before the first answer: our packets only, lqpn 0 */
		{ "::ffff:10.0.0.2", 17, VETH1, 0, 5, 0, 1000 },
	};
	struct flowmon_key k = { .rqpn = 17, .ifindex = 13 };
	struct flowmon_flow f = { .tx_pkts = 1, .last_ns = 1 };

	ALL_ORDERS(fresh, fl, 0, "::ffff:10.0.0.2", 1,
		   "QPN 17 on two devices: veth1's QP paired with host 2");
	ALL_ORDERS(fresh, fl, 1, "::ffff:10.0.0.1", 1,
		   "... veth2's with host 1");
	ALL_ORDERS(fresh, unres, 0, "::ffff:10.0.0.2", 1,
		   "a flow of our packets not yet answered names the peer by the remote QPN");
	fresh();
	addr("::ffff:10.0.0.2", k.peer);
	tap_ok(!rd_pair_flow(&rd, &k, &f),
	       "a flow on a netdev without QPs is nobody's, whatever its QPN");
	qps[1].gone = true;
	rd_pair_begin(&rd);
	k.ifindex = VETH2;
	tap_ok(rd_pair_flow(&rd, &k, &f) == &qps[1],
	       "a gone QP's flow is still its own (it lingers)");
	rd_pair_end(&rd);
	tap_ok(!qps[1].have_peer, "... but gives it no peer");
}

/* veth1's QP already paired with host 2 (dp_qps written) */
static void paired(void)
{
	table(2, two_hosts);
	addr("::ffff:10.0.0.2", qps[0].peer);
	qps[0].have_peer = true;
}

/*
 * t_safety's spoofed CNPs: for QP 17 on veth1 from 10.0.0.3 and fd00::3,
 * which flowmon resolves to QP 17 at once (the QP table knows it) but
 * which we never sent to: they must not take host 2's place, or host 2's
 * own CNPs are counted rp_cnp_spoofed from the next round on.
 */
static void test_spoofed(void)
{
	static const struct fx fl[] = {
		{ "::ffff:10.0.0.2", 17, VETH1, 17, 500, 400, 1000 },
		{ "::ffff:10.0.0.1", 17, VETH2, 17, 400, 500, 1001 },
		/* later than host 2's latest packet: they keep coming */
		{ "::ffff:10.0.0.3", 17, VETH1, 17, 0, 3000, 2000 },
		{ "fd00::3", 17, VETH1, 17, 0, 1000, 3000 },
	};
	static const struct fx unres[] = {
		/* host 2 has not answered yet: our flow is unresolved */
		{ "::ffff:10.0.0.2", 17, VETH1, 0, 5, 0, 1000 },
		{ "::ffff:10.0.0.3", 17, VETH1, 17, 0, 3000, 2000 },
	};

	ALL_ORDERS(paired, fl, 0, "::ffff:10.0.0.2", 0,
		   "CNPs for veth1's QP 17 from 10.0.0.3 and fd00::3 leave its peer host 2");
	ALL_ORDERS(fresh, fl, 0, "::ffff:10.0.0.2", 1,
		   "... also in the round that pairs it first");
	ALL_ORDERS(fresh, fl, 1, "::ffff:10.0.0.1", 1,
		   "... and veth2's QP 17 keeps host 1");
	ALL_ORDERS(fresh, unres, 0, "::ffff:10.0.0.2", 1,
		   "... and they do not beat a flow of our packets not yet answered");
}

/* veth1's QP 17 paired with host 3 (adopted, or an earlier QP's) */
static void stale(void)
{
	table(2, two_hosts);
	addr("::ffff:10.0.0.3", qps[0].peer);
	qps[0].have_peer = true;
}

/*
 * QP 17 of veth1 ended and came back toward host 2 (QPN 17 again)
 * between two rounds, or while no daemon ran: the table never saw it go,
 * and the flow of the earlier QP is still there, our packets in it.
 */
static void test_reused(void)
{
	static const struct fx fl[] = {
		{ "::ffff:10.0.0.3", 17, VETH1, 17, 900, 800, 1000 },
		{ "::ffff:10.0.0.2", 17, VETH1, 17, 50, 40, 5000 },
	};
	static const struct fx unres[] = {
		{ "::ffff:10.0.0.3", 17, VETH1, 0, 900, 0, 1000 },
		{ "::ffff:10.0.0.2", 17, VETH1, 0, 50, 0, 5000 },
	};

	ALL_ORDERS(stale, fl, 0, "::ffff:10.0.0.2", 1,
		   "QPN 17 reused toward host 2: the peer follows our latest packets");
	ALL_ORDERS(stale, unres, 0, "::ffff:10.0.0.2", 1,
		   "... also before either flow was answered");
}

/* A QP that only receives (a UC responder): no flow of our packets */
static void test_receiver(void)
{
	static const uint32_t uc[][3] = { { VETH1, 20, 30 } };
	static const struct fx one[] = {
		{ "::ffff:10.0.0.4", 30, VETH1, 20, 0, 100, 1000 },
	};
	static const struct fx two[] = {
		{ "::ffff:10.0.0.4", 30, VETH1, 20, 0, 100, 1000 },
		{ "::ffff:10.0.0.5", 30, VETH1, 20, 0, 100, 2000 },
	};
	static const unsigned int twice[] = { 0, 0 };

	table(1, uc);
	round_of(one, twice, 2);
	tap_ok(qps[0].have_peer && qps[0].peer_gen == 1,
	       "a QP that only receives: its one flow names its peer (seen twice in a walk that restarted)");
	table(1, uc);
	round_of(two, (const unsigned int[]){ 0, 1 }, 2);
	round_of(two, (const unsigned int[]){ 1, 0 }, 2);
	tap_ok(!qps[0].have_peer,
	       "... two such flows name none (anyone can send)");
	table(1, uc);
	round_of(one, twice, 1);
	round_of(two, (const unsigned int[]){ 1 }, 1);
	tap_is_str(peer_of(&qps[0], (char[INET6_ADDRSTRLEN]){ 0 },
			   INET6_ADDRSTRLEN), "::ffff:10.0.0.4",
		   "... nor replace the peer it has");
}

/* veth1's QP 17 given host 2 by its address vector (the learner) */
static void by_av(void)
{
	uint8_t a[16];

	table(2, two_hosts);
	addr("::ffff:10.0.0.2", a);
	rd_pair_av(&qps[0], a);
}

/* veth1's QP 17 first seen while the learner watched, no AV (yet) */
static void due(void)
{
	table(2, two_hosts);
	qps[0].av_due = true;
}

/*
 * t_incast's flood on the BPF engine: host 4 floods CNPs for the senders'
 * QPNs from the QPs' first packets on (before the daemon saw any of
 * theirs, all it has is the spoofer's flow). With the peer from the QP's
 * address vector, neither that flow nor a later one of our own changes
 * it; a QP the learner saw set up takes no peer from a flow that only
 * received, only from our packets.
 */
static void test_av(void)
{
	static const struct fx spoof[] = {
		{ "::ffff:10.0.0.4", 17, VETH1, 17, 0, 3000, 2000 },
	};
	static const struct fx mixed[] = {
		{ "::ffff:10.0.0.4", 17, VETH1, 17, 0, 3000, 2000 },
		{ "::ffff:10.0.0.3", 17, VETH1, 17, 900, 800, 5000 },
		{ "::ffff:10.0.0.2", 17, VETH1, 0, 5, 0, 1000 },
	};
	static const struct fx ours[] = {
		{ "::ffff:10.0.0.4", 17, VETH1, 17, 0, 3000, 2000 },
		{ "::ffff:10.0.0.2", 17, VETH1, 0, 5, 0, 1000 },
	};
	uint8_t a[16];
	unsigned int gen;

	ALL_ORDERS(fresh, spoof, 0, "::ffff:10.0.0.4", 1,
		   "without an address vector, the spoofer's lone flow names the peer (the fallback's risk)");
	ALL_ORDERS(by_av, spoof, 0, "::ffff:10.0.0.2", 0,
		   "with it, the spoofer's CNPs from the QP's first packet on leave host 2 its peer");
	ALL_ORDERS(by_av, mixed, 0, "::ffff:10.0.0.2", 0,
		   "... nor does a flow of ours to another host (an earlier QP's) change it");
	ALL_ORDERS(due, spoof, 0, "none", 0,
		   "a QP the learner saw set up takes no peer from a flow that only received");
	ALL_ORDERS(due, ours, 0, "::ffff:10.0.0.2", 1,
		   "... but, its address vector missed, from a flow of our packets");
	fresh();
	round_of(spoof, (const unsigned int[]){ 0 }, 1);
	gen = qps[0].peer_gen;
	addr("::ffff:10.0.0.2", a);
	rd_pair_av(&qps[0], a);
	tap_ok(qps[0].peer_av && qps[0].peer_gen == gen + 1 &&
	       !memcmp(qps[0].peer, a, 16),
	       "the address vector replaces a peer the flows gave (dp_qps is written again)");
	rd_pair_av(&qps[0], a);
	tap_ok(qps[0].peer_gen == gen + 1, "... once: the same again changes nothing");
	round_of(spoof, (const unsigned int[]){ 0 }, 1);
	tap_is_str(peer_of(&qps[0], (char[INET6_ADDRSTRLEN]){ 0 },
			   INET6_ADDRSTRLEN), "::ffff:10.0.0.2",
		   "... and the next round's flows do not take it back");
}

int main(void)
{
	test_plain();
	test_spoofed();
	test_reused();
	test_receiver();
	test_av();
	return tap_done();
}
