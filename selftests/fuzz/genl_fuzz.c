// SPDX-License-Identifier: GPL-2.0
/*
 * genl_fuzz: a fuzzer for rocecc.ko's generic netlink family, run against
 * the live module (in the test VM: selftests/vm/t_genl_fuzz.t).
 *
 *   genl_fuzz [--seed S] [--count N] [--dev NAME]... [--expect-eperm]
 *
 * It resolves the family "rocecc" by name, then sends N messages drawn from
 * a seeded PRNG (the seed is printed; --seed S replays a run):
 *  (a) well-formed requests of every command (do and dump) with valid
 *      attributes, naming the --dev devices (attach, detach, parameters
 *      and profiles change on them and on the default set);
 *  (b) the same with mutations: attribute lengths and types, boundary
 *      integers, strings without NUL or too long, nests without
 *      NLA_F_NESTED, flat attributes where nests belong and the other way
 *      round, deep nests, unknown and reply-only attribute ids,
 *      duplicates, truncated or oversized nlmsg_len, flags, reserved
 *      genetlink bits, event command numbers, unknown commands;
 *  (c) dumps on a socket of their own, closed after the first part (or
 *      before reading anything);
 *  (d) random bytes after a valid genetlink header.
 * Each message is followed by an NLMSG_NOOP with NLM_F_ACK on the same
 * socket; every reply is read up to that ACK (and to a dump's end), so the
 * socket never stalls whatever the fuzz message asked for. A socket joined
 * to the "events" group is drained as well. The replies are counted by
 * errno and summarised at the end.
 *
 * Before the fuzz it records the attached devices and every parameter set
 * (DEV_GET and PARAM_GET dumps); afterwards it puts them back (detach what
 * it attached, attach what it detached, every set's parameters) and checks
 * that the dumps read the same again.
 *
 * --expect-eperm (run as an unprivileged user): every state-changing
 * request (DEV_ATTACH, DEV_DETACH, PARAM_SET, PROFILE_SET as a "do" with a
 * complete header) must be refused with EPERM, and nothing may change.
 *
 * Exit status: 0; 1 on the fuzzer's own failures (socket errors, family
 * not found, state not restored) or, with --expect-eperm, a state-changing
 * request that was not refused. Replies such as EINVAL are the point, not
 * failures. The kernel's health (no WARN, no Oops, no leak) is checked by
 * the caller.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <rocecc/params.h>

#define BUF_SIZE	65536
#define MAX_DEVS	8
#define MAX_SETS	64
#define MAX_ERRNO	4096

struct fuzz {
	struct mnl_socket *nl;
	struct mnl_socket *ev;		/* joined to "events", or NULL */
	uint16_t family;
	uint32_t mcgrp;
	uint32_t seq;
	uint64_t rng;
	bool expect_eperm;
	int ndevs;
	const char *dev_name[MAX_DEVS];
	uint32_t dev_ifindex[MAX_DEVS];
	char buf[BUF_SIZE];
	char rbuf[BUF_SIZE];
	/* the replies */
	unsigned long err[MAX_ERRNO];	/* err[0]: ACKs */
	unsigned long data, multi, done, done_err, noreply, events, ev_lost;
	unsigned long kind[4], interrupted, eperm_checked, eperm_failed;
};

/* What a state snapshot holds: attached devices and every parameter set. */
struct pset {
	uint32_t ifindex;		/* 0: the default set */
	char name[IF_NAMESIZE];
	uint32_t v[ROCECC_PARAM_MAX + 1];
	bool attached;			/* DEV_GET listed it */
};

struct state {
	int n;
	struct pset set[MAX_SETS];
};

static void die(const char *what)
{
	fprintf(stderr, "genl_fuzz: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* --- PRNG (splitmix64) -------------------------------------------------- */

static uint64_t rnd64(struct fuzz *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(struct fuzz *f, uint32_t n)
{
	return n ? (uint32_t)(rnd64(f) % n) : 0;
}

static bool chance(struct fuzz *f, unsigned int pct)
{
	return rnd(f, 100) < pct;
}

static void rnd_bytes(struct fuzz *f, void *p, size_t len)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)rnd64(f);
}

/* A boundary or random u32: 0, 1, max, max + 1, negatives, powers of 2. */
static uint32_t rnd_u32(struct fuzz *f, uint32_t max)
{
	switch (rnd(f, 9)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return max;
	case 3: return max + 1;
	case 4: return UINT32_MAX;
	case 5: return (uint32_t)-(int32_t)(1 + rnd(f, 64));
	case 6: return 1U << rnd(f, 32);
	case 7: return 0x80000000U;
	default: return (uint32_t)rnd64(f);
	}
}

/* --- message building ----------------------------------------------------- */

static struct nlmsghdr *msg_start(struct fuzz *f, uint16_t type, uint16_t flags,
				  uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(f->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = ++f->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = ROCECC_GENL_VERSION;
	return nlh;
}

/* Room left in the buffer for one more attribute of @len payload bytes. */
static bool room(const struct nlmsghdr *nlh, size_t len)
{
	return nlh->nlmsg_len + MNL_ALIGN(len) + 64 < BUF_SIZE;
}

static void put_raw(struct nlmsghdr *nlh, uint16_t type, size_t len,
		    const void *data)
{
	if (room(nlh, len))
		mnl_attr_put(nlh, type, len, data);
}

/*
 * A u32 attribute; @mut: with a wrong length (0..8 bytes, not 4), the
 * NLA_F_NESTED or byte-order bit, or as an empty nest.
 */
static void put_u32(struct fuzz *f, struct nlmsghdr *nlh, uint16_t type,
		    uint32_t v, bool mut)
{
	unsigned char b[8];
	size_t len = sizeof(v);

	memset(b, 0, sizeof(b));
	memcpy(b, &v, sizeof(v));
	if (mut) {
		switch (rnd(f, 4)) {
		case 0:
			len = rnd(f, 9);
			break;
		case 1:
			type |= NLA_F_NESTED;
			break;
		case 2:
			type |= NLA_F_NET_BYTEORDER;
			break;
		default:
			mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, type));
			return;
		}
	}
	put_raw(nlh, type, len, b);
}

/* A device name: a test device's, or a mutated one. */
static void put_name(struct fuzz *f, struct nlmsghdr *nlh, bool mut)
{
	static const char *const names[] = { "lo", "", "nosuchdev0", "rxe1",
					     "veth9", "0123456789abcde" };
	char s[64];
	size_t len;

	if (f->ndevs && !chance(f, mut ? 30 : 10))
		snprintf(s, sizeof(s), "%s", f->dev_name[rnd(f, f->ndevs)]);
	else
		snprintf(s, sizeof(s), "%s", names[rnd(f, 6)]);
	len = strlen(s) + 1;
	if (mut) {
		switch (rnd(f, 5)) {
		case 0:		/* no NUL */
			len--;
			break;
		case 1:		/* IFNAMSIZ and more, NUL-terminated */
			len = 16 + rnd(f, 40);
			memset(s, 'a', len - 1);
			s[len - 1] = '\0';
			break;
		case 2:		/* random bytes */
			len = rnd(f, sizeof(s));
			rnd_bytes(f, s, len);
			break;
		case 3:		/* embedded NUL, trailing garbage */
			memset(s + len, 'x', 8);
			len += 8;
			break;
		default:	/* a nest */
			mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, ROCECC_A_DEV_NAME));
			return;
		}
	}
	put_raw(nlh, ROCECC_A_DEV_NAME, len, s);
}

static uint32_t pick_ifindex(struct fuzz *f)
{
	if (f->ndevs && chance(f, 80))
		return f->dev_ifindex[rnd(f, f->ndevs)];
	return rnd_u32(f, 1);
}

/*
 * A device selector. @need: a device (attach, detach, DEV_GET do); else
 * the default set is allowed too (absent selector or ifindex 0).
 */
static void put_selector(struct fuzz *f, struct nlmsghdr *nlh, bool need,
			 bool mut)
{
	int i;

	if (!need && chance(f, 30))
		return;
	if (!need && chance(f, 10)) {
		put_u32(f, nlh, ROCECC_A_DEV_IFINDEX, 0, false);
		return;
	}
	i = f->ndevs ? (int)rnd(f, f->ndevs) : -1;
	switch (rnd(f, 3)) {
	case 0:
		put_u32(f, nlh, ROCECC_A_DEV_IFINDEX,
			mut ? pick_ifindex(f) : i >= 0 ? f->dev_ifindex[i] : 1,
			mut && chance(f, 30));
		break;
	case 1:
		put_name(f, nlh, mut && chance(f, 50));
		break;
	default:	/* both: the same device, or (mutated) two */
		put_u32(f, nlh, ROCECC_A_DEV_IFINDEX,
			i >= 0 ? f->dev_ifindex[i] : 1, false);
		if (!mut && i >= 0)
			put_raw(nlh, ROCECC_A_DEV_NAME,
				strlen(f->dev_name[i]) + 1, f->dev_name[i]);
		else
			put_name(f, nlh, mut && chance(f, 30));
		break;
	}
}

/* A valid value of parameter @id, its bounds often. */
static uint32_t param_value(struct fuzz *f, unsigned int id)
{
	const struct rocecc_param_info *pi = rocecc_param_info(id);

	switch (rnd(f, 4)) {
	case 0: return pi->min;
	case 1: return pi->max;
	case 2: return pi->def[rnd(f, __ROCECC_PROFILE_MAX)];
	default: return pi->min + rnd(f, pi->max - pi->min) + chance(f, 50);
	}
}

/* ROCECC_A_PARAMS; @mut: bad ids, values out of range, bad nesting. */
static void put_params(struct fuzz *f, struct nlmsghdr *nlh, bool mut)
{
	unsigned int i, n = 1 + rnd(f, chance(f, 20) ? 40 : 4), id;
	const struct rocecc_param_info *pi;
	struct nlattr *nest;

	if (mut && chance(f, 15)) {	/* flat where a nest belongs */
		put_u32(f, nlh, ROCECC_A_PARAMS, rnd_u32(f, 0), false);
		return;
	}
	nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
	if (mut && chance(f, 10))
		nest->nla_type &= ~NLA_F_NESTED;
	if (mut && chance(f, 5))
		n = 0;
	for (i = 0; i < n && room(nlh, 64); i++) {
		id = 1 + rnd(f, ROCECC_PARAM_MAX);
		pi = rocecc_param_info(id);
		if (!mut || chance(f, 50)) {
			put_u32(f, nlh, id, param_value(f, id), false);
			continue;
		}
		switch (rnd(f, 5)) {
		case 0:		/* out of range (or just in) */
			put_u32(f, nlh, id, rnd_u32(f, pi->max), false);
			break;
		case 1:		/* unknown id: 0, MAX + 1, anything */
			put_u32(f, nlh, chance(f, 50) ? 0 : ROCECC_PARAM_MAX + 1 +
				rnd(f, chance(f, 50) ? 3 : 0x3fff), param_value(f, id),
				false);
			break;
		case 2:		/* a nest inside */
			mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, id));
			break;
		default:	/* bad length or flags */
			put_u32(f, nlh, id, param_value(f, id), true);
			break;
		}
	}
	mnl_attr_nest_end(nlh, nest);
}

/* A random attribute tree, @depth levels at most. */
static void put_garbage(struct fuzz *f, struct nlmsghdr *nlh, int depth)
{
	unsigned char b[96];
	uint16_t type = (uint16_t)rnd(f, chance(f, 70) ? ROCECC_A_MAX + 3 : 65536);
	struct nlattr *nest;
	unsigned int i, n;

	if (depth > 0 && chance(f, 30) && room(nlh, 256)) {
		nest = mnl_attr_nest_start(nlh, type & NLA_TYPE_MASK);
		if (chance(f, 20))
			nest->nla_type &= ~NLA_F_NESTED;
		n = rnd(f, 4);
		for (i = 0; i < n; i++)
			put_garbage(f, nlh, depth - 1);
		mnl_attr_nest_end(nlh, nest);
		return;
	}
	n = chance(f, 50) ? rnd(f, 9) : rnd(f, sizeof(b));
	rnd_bytes(f, b, n);
	put_raw(nlh, type, n, b);
}

enum { OP_ATTACH, OP_DETACH, OP_DEV_GET, OP_DEV_DUMP, OP_PARAM_GET,
       OP_PARAM_DUMP, OP_FLOW_DUMP, OP_PARAM_SET, OP_PROFILE_SET, OP_NUM };

/* Percent weights of the operations of (a) and (b). */
static const unsigned int op_weight[OP_NUM] = { 4, 4, 12, 10, 12, 10, 10, 26, 12 };

static const uint8_t op_cmd[OP_NUM] = {
	ROCECC_CMD_DEV_ATTACH, ROCECC_CMD_DEV_DETACH, ROCECC_CMD_DEV_GET,
	ROCECC_CMD_DEV_GET, ROCECC_CMD_PARAM_GET, ROCECC_CMD_PARAM_GET,
	ROCECC_CMD_FLOW_GET, ROCECC_CMD_PARAM_SET, ROCECC_CMD_PROFILE_SET,
};

static int pick_op(struct fuzz *f)
{
	unsigned int r = rnd(f, 100), acc = 0;
	int op;

	for (op = 0; op < OP_NUM - 1; op++) {
		acc += op_weight[op];
		if (r < acc)
			break;
	}
	return op;
}

static bool op_is_dump(int op)
{
	return op == OP_DEV_DUMP || op == OP_PARAM_DUMP || op == OP_FLOW_DUMP;
}

/* The attributes of @op, well-formed unless @mut. */
static void put_op_attrs(struct fuzz *f, struct nlmsghdr *nlh, int op, bool mut)
{
	switch (op) {
	case OP_ATTACH:
	case OP_DETACH:
	case OP_DEV_GET:
		put_selector(f, nlh, true, mut);
		break;
	case OP_PARAM_SET:
		put_selector(f, nlh, false, mut);
		if (!mut || !chance(f, 10))
			put_params(f, nlh, mut);
		break;
	case OP_PROFILE_SET:
		put_selector(f, nlh, false, mut);
		if (!mut)
			put_u32(f, nlh, ROCECC_A_PROFILE, rnd(f, __ROCECC_PROFILE_MAX), false);
		else if (!chance(f, 10))
			put_u32(f, nlh, ROCECC_A_PROFILE,
				rnd_u32(f, __ROCECC_PROFILE_MAX - 1), chance(f, 30));
		break;
	default:	/* gets and dumps: a selector or none */
		put_selector(f, nlh, false, mut);
		break;
	}
}

/* Attribute bytes of @nlh (as built: nlmsg_len not mutated yet). */
static unsigned int attrs_len(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
}

/* (b): mutations of the content of a request (nlmsg_len stays true). */
static void mutate(struct fuzz *f, struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	unsigned int i, n = 1 + rnd(f, 3), len, at;
	struct nlattr *a;

	for (i = 0; i < n; i++) {
		len = attrs_len(nlh);
		switch (rnd(f, 9)) {
		case 0:		/* unknown or reply-only attributes */
		case 1:
			put_garbage(f, nlh, 4);
			break;
		case 2:		/* a duplicate of the first attribute */
			a = (struct nlattr *)((char *)g + GENL_HDRLEN);
			if (len >= sizeof(*a) && a->nla_len >= sizeof(*a) &&
			    a->nla_len <= len && room(nlh, a->nla_len))
				put_raw(nlh, a->nla_type, a->nla_len - sizeof(*a),
					mnl_attr_get_payload(a));
			break;
		case 3:		/* reply-only nests, flat or nested */
			put_u32(f, nlh, ROCECC_A_STATS + rnd(f, 4), rnd_u32(f, 0),
				chance(f, 50));
			break;
		case 4:		/* netlink flags */
			nlh->nlmsg_flags ^= (uint16_t)(1U << rnd(f, 16));
			break;
		case 5:		/* genetlink reserved bits, version */
			if (chance(f, 50))
				g->reserved = (uint16_t)rnd64(f);
			else
				g->version = (uint8_t)rnd64(f);
			break;
		case 6:		/* events, unused and unknown commands */
			g->cmd = chance(f, 60) ? (uint8_t)rnd(f, ROCECC_CMD_MAX + 3) :
						 (uint8_t)rnd64(f);
			break;
		case 7:		/* random bytes over the attributes */
			if (len) {
				at = rnd(f, len);
				rnd_bytes(f, (char *)g + GENL_HDRLEN + at,
					  1 + rnd(f, len - at));
			}
			break;
		default:	/* padding a valid attribute would not have */
			if (room(nlh, 8)) {
				memset(mnl_nlmsg_get_payload_tail(nlh), 0, 8);
				nlh->nlmsg_len += 4 * (1 + rnd(f, 2));
			}
			break;
		}
	}
}

/*
 * (b): nlmsg_len that is not what is sent (after mutate(): @sent bytes
 * go on the wire). Returns how many are sent now (never 0: netlink
 * refuses an empty message with ENODATA).
 */
static size_t mutate_len(struct fuzz *f, struct nlmsghdr *nlh, size_t sent)
{
	unsigned int len = attrs_len(nlh);

	switch (rnd(f, 3)) {
	case 0:		/* truncated: cut into the attributes */
		if (len)
			nlh->nlmsg_len -= 1 + rnd(f, len);
		break;
	case 1:		/* truncated into the headers */
		nlh->nlmsg_len = rnd(f, NLMSG_HDRLEN + GENL_HDRLEN + 1);
		break;
	default:	/* oversized: claims more than is sent */
		nlh->nlmsg_len += 1 + rnd(f, chance(f, 50) ? 8 : 4096);
		break;
	}
	/* what follows a short nlmsg_len: sent too, or not */
	if (nlh->nlmsg_len < sent && nlh->nlmsg_len && chance(f, 50))
		return nlh->nlmsg_len;
	return sent;
}

/* --- sending and reading ------------------------------------------------- */

static void send_msg(struct mnl_socket *nl,
		     const struct nlmsghdr *nlh, size_t len)
{
	if (mnl_socket_sendto(nl, nlh, len) < 0)
		die("sendto");
}

/* Count one message of a reply. Returns true when it ends request @seq. */
static bool tally(struct fuzz *f, const struct nlmsghdr *nlh, uint32_t seq,
		  int *errp)
{
	const struct nlmsgerr *e;
	int err;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		e = mnl_nlmsg_get_payload(nlh);
		err = -e->error;
		if (nlh->nlmsg_seq == seq)
			*errp = err;
		f->err[err >= 0 && err < MAX_ERRNO ? err : MAX_ERRNO - 1]++;
		return nlh->nlmsg_seq == seq;
	}
	if (nlh->nlmsg_type == NLMSG_DONE) {
		if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int) &&
		    *(int *)mnl_nlmsg_get_payload(nlh))
			f->done_err++;
		f->done++;
		return nlh->nlmsg_seq == seq;
	}
	if (nlh->nlmsg_flags & NLM_F_MULTI)
		f->multi++;
	else
		f->data++;
	return false;
}

/*
 * Read replies until the ACK of the NOOP numbered @sync, and until the end
 * of request @seq if a dump of it started. *errp: the errno request @seq
 * got (0: ACK), or -1 if no ACK or error came for it.
 */
static void drain(struct fuzz *f, uint32_t seq, uint32_t sync, int *errp)
{
	bool synced = false, ended = false, in_dump = false;
	const struct nlmsghdr *nlh;
	ssize_t n;
	int rem;

	*errp = -1;
	while (!synced || (in_dump && !ended)) {
		n = mnl_socket_recvfrom(f->nl, f->rbuf, sizeof(f->rbuf));
		if (n < 0) {
			if (errno == ENOBUFS || errno == EINTR)
				continue;
			die("recvfrom");
		}
		rem = (int)n;
		for (nlh = (struct nlmsghdr *)f->rbuf; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq == sync && nlh->nlmsg_type == NLMSG_ERROR) {
				synced = true;
				continue;
			}
			if (nlh->nlmsg_seq == seq && (nlh->nlmsg_flags & NLM_F_MULTI))
				in_dump = true;
			if (tally(f, nlh, seq, errp))
				ended = true;
		}
	}
	if (!ended)
		f->noreply++;
}

/* Send @nlh (@len bytes on the wire), then the NOOP; read all replies. */
static int exchange(struct fuzz *f, struct nlmsghdr *nlh, size_t len)
{
	struct nlmsghdr *noop;
	char nb[NLMSG_HDRLEN];
	uint32_t seq = nlh->nlmsg_seq;
	int err;

	send_msg(f->nl, nlh, len);
	noop = mnl_nlmsg_put_header(nb);
	noop->nlmsg_type = NLMSG_NOOP;
	noop->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	noop->nlmsg_seq = ++f->seq;
	send_msg(f->nl, noop, noop->nlmsg_len);
	drain(f, seq, noop->nlmsg_seq, &err);
	return err;
}

static void drain_events(struct fuzz *f)
{
	ssize_t n;

	if (!f->ev)
		return;
	for (;;) {
		n = recv(mnl_socket_get_fd(f->ev), f->rbuf, sizeof(f->rbuf),
			 MSG_DONTWAIT);
		if (n > 0) {
			f->events++;
			continue;
		}
		if (n < 0 && errno == ENOBUFS) {
			f->ev_lost++;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			die("recv events");
		return;
	}
}

static struct mnl_socket *open_nl(void)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);
	int one = 1;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink socket");
	/* extack in errors: the module's messages are built too */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	return nl;
}

/* --- the family ------------------------------------------------------------- */

static int family_grp_cb(const struct nlattr *a, void *data)
{
	struct fuzz *f = data;
	struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = { NULL };
	const struct nlattr *x;

	mnl_attr_for_each_nested(x, a) {
		if (mnl_attr_get_type(x) <= CTRL_ATTR_MCAST_GRP_MAX)
			tb[mnl_attr_get_type(x)] = (struct nlattr *)x;
	}
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
		    ROCECC_GENL_MCGRP_EVENTS))
		f->mcgrp = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fuzz *f = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			f->family = mnl_attr_get_u16(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_for_each_nested(g, a)
				family_grp_cb(g, f);
	}
	return MNL_CB_OK;
}

static void resolve_family(struct fuzz *f)
{
	struct nlmsghdr *nlh;
	ssize_t n;
	int ret;

	nlh = msg_start(f, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
			CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ROCECC_GENL_NAME);
	send_msg(f->nl, nlh, nlh->nlmsg_len);
	do {
		n = mnl_socket_recvfrom(f->nl, f->rbuf, sizeof(f->rbuf));
		if (n < 0)
			die("recvfrom (family)");
		ret = mnl_cb_run(f->rbuf, n, f->seq, 0, family_cb, f);
	} while (ret > 0);
	if (ret < 0 || !f->family) {
		fprintf(stderr, "genl_fuzz: family \"%s\" not found (rocecc.ko loaded?): %s\n",
			ROCECC_GENL_NAME, strerror(errno));
		exit(1);
	}
}

/* --- state: snapshot, restore, compare ------------------------------------ */

static struct pset *state_set(struct state *s, uint32_t ifindex)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->set[i].ifindex == ifindex)
			return &s->set[i];
	if (s->n == MAX_SETS) {
		fprintf(stderr, "genl_fuzz: more than %d parameter sets\n", MAX_SETS);
		exit(1);
	}
	memset(&s->set[s->n], 0, sizeof(s->set[0]));
	s->set[s->n].ifindex = ifindex;
	return &s->set[s->n++];
}

struct snap_ctx {
	struct state *s;
	uint8_t cmd;
};

static int snap_cb(const struct nlmsghdr *nlh, void *data)
{
	struct snap_ctx *c = data;
	const struct nlattr *a, *p;
	struct pset *ps = NULL;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case ROCECC_A_DEV_IFINDEX:
			ps = state_set(c->s, mnl_attr_get_u32(a));
			if (c->cmd == ROCECC_CMD_DEV_GET)
				ps->attached = true;
			break;
		case ROCECC_A_DEV_NAME:
			if (ps)
				snprintf(ps->name, sizeof(ps->name), "%s",
					 mnl_attr_get_str(a));
			break;
		case ROCECC_A_PARAMS:
			if (!ps)
				break;
			mnl_attr_for_each_nested(p, a)
				if (mnl_attr_get_type(p) <= ROCECC_PARAM_MAX)
					ps->v[mnl_attr_get_type(p)] = mnl_attr_get_u32(p);
			break;
		}
	}
	return MNL_CB_OK;
}

static void dump_into(struct fuzz *f, struct state *s, uint8_t cmd)
{
	struct snap_ctx c = { .s = s, .cmd = cmd };
	struct nlmsghdr *nlh;
	ssize_t n;
	int ret;

	nlh = msg_start(f, f->family, NLM_F_REQUEST | NLM_F_DUMP, cmd);
	send_msg(f->nl, nlh, nlh->nlmsg_len);
	do {
		n = mnl_socket_recvfrom(f->nl, f->rbuf, sizeof(f->rbuf));
		if (n < 0)
			die("recvfrom (state)");
		ret = mnl_cb_run(f->rbuf, n, f->seq, 0, snap_cb, &c);
	} while (ret > 0);
	if (ret < 0)
		die("dump (state)");
}

static void snapshot(struct fuzz *f, struct state *s)
{
	memset(s, 0, sizeof(*s));
	dump_into(f, s, ROCECC_CMD_DEV_GET);
	dump_into(f, s, ROCECC_CMD_PARAM_GET);
}

/* A well-formed request on @ifindex; its errno (0: done). */
static int request(struct fuzz *f, uint8_t cmd, uint32_t ifindex,
		   const struct pset *ps)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int id;

	nlh = msg_start(f, f->family, NLM_F_REQUEST | NLM_F_ACK, cmd);
	if (ifindex)
		mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, ifindex);
	if (ps) {
		nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
		for (id = 1; id <= ROCECC_PARAM_MAX; id++)
			mnl_attr_put_u32(nlh, id, ps->v[id]);
		mnl_attr_nest_end(nlh, nest);
	}
	return exchange(f, nlh, nlh->nlmsg_len);
}

static bool sets_equal(const struct state *a, const struct state *b)
{
	const struct pset *x, *y;
	int i, j;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		x = &a->set[i];
		for (j = 0; j < b->n && b->set[j].ifindex != x->ifindex; j++)
			;
		if (j == b->n)
			return false;
		y = &b->set[j];
		if (x->attached != y->attached ||
		    memcmp(x->v, y->v, sizeof(x->v)))
			return false;
	}
	return true;
}

/*
 * Put @want back: detach what is attached and should not be, attach what
 * should be, then every set's parameters (the default set first: a
 * device attached now starts from it). Returns the requests that failed.
 */
static int restore(struct fuzz *f, const struct state *want)
{
	const struct pset *w;
	struct state now;
	int i, fails = 0;

	snapshot(f, &now);
	for (i = 0; i < now.n; i++) {
		w = NULL;
		for (int j = 0; j < want->n; j++)
			if (want->set[j].ifindex == now.set[i].ifindex)
				w = &want->set[j];
		if (now.set[i].attached && !(w && w->attached) &&
		    request(f, ROCECC_CMD_DEV_DETACH, now.set[i].ifindex, NULL))
			fails++;
	}
	for (i = 0; i < want->n; i++) {
		w = &want->set[i];
		if (w->attached && !state_set(&now, w->ifindex)->attached &&
		    request(f, ROCECC_CMD_DEV_ATTACH, w->ifindex, NULL))
			fails++;
	}
	for (i = 0; i < want->n; i++) {
		w = &want->set[i];
		if (!w->ifindex && request(f, ROCECC_CMD_PARAM_SET, 0, w))
			fails++;
	}
	for (i = 0; i < want->n; i++) {
		w = &want->set[i];
		if (w->ifindex && request(f, ROCECC_CMD_PARAM_SET, w->ifindex, w))
			fails++;
	}
	return fails;
}

/* --- the fuzz ------------------------------------------------------------------ */

static bool is_admin(uint8_t cmd)
{
	return cmd == ROCECC_CMD_DEV_ATTACH || cmd == ROCECC_CMD_DEV_DETACH ||
	       cmd == ROCECC_CMD_PARAM_SET || cmd == ROCECC_CMD_PROFILE_SET;
}

/*
 * Whether the genetlink core takes @nlh as a "do" of its command: a
 * complete header (as sent), a request, no reserved genetlink bits, no
 * netlink flags but REQUEST, ACK and ECHO (the core's strict header check,
 * which runs before the permission check and answers EINVAL).
 */
static bool core_do(const struct nlmsghdr *nlh, size_t sent)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	return nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
	       nlh->nlmsg_len <= sent && (nlh->nlmsg_flags & NLM_F_REQUEST) &&
	       !(nlh->nlmsg_flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) &&
	       !g->reserved;
}

/* --expect-eperm: a state-changing "do" was refused with EPERM. */
static void check_eperm(struct fuzz *f, const struct nlmsghdr *nlh,
			size_t sent, int err)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (!f->expect_eperm || !core_do(nlh, sent) || !is_admin(g->cmd))
		return;
	f->eperm_checked++;
	if (err != EPERM) {
		f->eperm_failed++;
		fprintf(stderr, "genl_fuzz: seq %u, command %u: %s, not EPERM\n",
			nlh->nlmsg_seq, g->cmd, err < 0 ? "no answer" :
			err ? strerror(err) : "accepted");
	}
}

/* (c): a dump on a socket of its own, closed after its first part. */
static void interrupted_dump(struct fuzz *f)
{
	static const uint8_t cmds[] = { ROCECC_CMD_DEV_GET, ROCECC_CMD_PARAM_GET,
					ROCECC_CMD_FLOW_GET };
	struct mnl_socket *nl = open_nl();
	struct nlmsghdr *nlh;
	int bufsz = 4096;

	/* a small receive buffer: the dump needs more parts */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	nlh = msg_start(f, f->family, NLM_F_REQUEST | NLM_F_DUMP, cmds[rnd(f, 3)]);
	put_selector(f, nlh, false, false);
	send_msg(nl, nlh, nlh->nlmsg_len);
	if (chance(f, 70) && mnl_socket_recvfrom(nl, f->rbuf, sizeof(f->rbuf)) < 0)
		die("recvfrom (interrupted dump)");
	mnl_socket_close(nl);
	f->interrupted++;
}

static void fuzz_one(struct fuzz *f)
{
	unsigned int r = rnd(f, 100), k, len;
	struct nlmsghdr *nlh;
	size_t sent;
	uint16_t flags;
	int op, err;

	k = r < 35 ? 0 : r < 82 ? 1 : r < 85 ? 2 : 3;
	f->kind[k]++;
	if (k == 2) {
		interrupted_dump(f);
		return;
	}
	op = pick_op(f);
	flags = NLM_F_REQUEST | (op_is_dump(op) ? NLM_F_DUMP : NLM_F_ACK);
	if (k == 1 && chance(f, 10))
		flags ^= NLM_F_ACK;
	nlh = msg_start(f, f->family, flags, op_cmd[op]);
	if (k == 3) {
		len = rnd(f, chance(f, 80) ? 64 : 1024);
		rnd_bytes(f, mnl_nlmsg_get_payload_tail(nlh), len);
		nlh->nlmsg_len += len;
	} else {
		put_op_attrs(f, nlh, op, k == 1);
	}
	if (k == 1)
		mutate(f, nlh);
	/* what goes on the wire, whatever nlmsg_len says afterwards */
	sent = nlh->nlmsg_len;
	if (k == 1 && chance(f, 25))
		sent = mutate_len(f, nlh, sent);
	err = exchange(f, nlh, sent);
	check_eperm(f, nlh, sent, err);
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "ack";
	case EINVAL: return "EINVAL";
	case ENODEV: return "ENODEV";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case ERANGE: return "ERANGE";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EMSGSIZE: return "EMSGSIZE";
	case E2BIG: return "E2BIG";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	default: return NULL;
	}
}

static void summary(const struct fuzz *f, unsigned long n, double secs)
{
	const char *name;
	int e;

	printf("genl_fuzz: %lu messages in %.1f s (%.0f/s): %lu well-formed, %lu mutated, %lu interrupted dumps, %lu random payloads\n",
	       n, secs, secs > 0 ? n / secs : 0.0, f->kind[0], f->kind[1],
	       f->kind[2], f->kind[3]);
	printf("genl_fuzz: replies:");
	for (e = 0; e < MAX_ERRNO; e++) {
		if (!f->err[e])
			continue;
		name = errname(e);
		if (name)
			printf(" %s %lu", name, f->err[e]);
		else
			printf(" errno%d %lu", e, f->err[e]);
	}
	printf(" replies %lu dump-parts %lu dump-ends %lu (with error %lu) unanswered %lu events %lu (lost %lu)\n",
	       f->data, f->multi, f->done, f->done_err, f->noreply, f->events,
	       f->ev_lost);
	if (f->expect_eperm)
		printf("genl_fuzz: %lu state-changing requests, %lu not refused with EPERM\n",
		       f->eperm_checked, f->eperm_failed);
}

static void usage(void)
{
	fprintf(stderr, "usage: genl_fuzz [--seed S] [--count N] [--dev NAME]... [--expect-eperm]\n");
	exit(1);
}

static void parse_args(struct fuzz *f, int argc, char **argv,
		       unsigned long long *seed, unsigned long *count)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "expect-eperm", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:d:e", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			*seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "genl_fuzz: --seed '%s' is not a number\n", optarg);
				exit(1);
			}
			break;
		case 'n':
			errno = 0;
			*count = strtoul(optarg, &end, 0);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "genl_fuzz: --count '%s' is not a number\n", optarg);
				exit(1);
			}
			break;
		case 'd':
			if (f->ndevs == MAX_DEVS)
				usage();
			f->dev_name[f->ndevs] = optarg;
			f->dev_ifindex[f->ndevs] = if_nametoindex(optarg);
			if (!f->dev_ifindex[f->ndevs]) {
				fprintf(stderr, "genl_fuzz: --dev '%s': %s\n", optarg,
					strerror(errno));
				exit(1);
			}
			f->ndevs++;
			break;
		case 'e':
			f->expect_eperm = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

int main(int argc, char **argv)
{
	unsigned long long seed;
	unsigned long count = 10000, i;
	struct state before, after;
	struct timespec t0, t1;
	struct fuzz *f;
	int fails;

	f = calloc(1, sizeof(*f));
	if (!f)
		die("calloc");
	clock_gettime(CLOCK_REALTIME, &t0);
	seed = (unsigned long long)t0.tv_nsec ^ ((unsigned long long)getpid() << 32);
	parse_args(f, argc, argv, &seed, &count);
	f->rng = seed;
	printf("genl_fuzz: seed %llu, %lu messages (--seed %llu to replay)\n",
	       seed, count, seed);
	fflush(stdout);

	f->nl = open_nl();
	resolve_family(f);
	if (f->mcgrp) {
		f->ev = open_nl();
		if (mnl_socket_setsockopt(f->ev, NETLINK_ADD_MEMBERSHIP, &f->mcgrp,
					  sizeof(f->mcgrp)) < 0)
			die("join events");
	}
	snapshot(f, &before);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		fuzz_one(f);
		if (!(i % 64))
			drain_events(f);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	drain_events(f);

	fails = f->expect_eperm ? 0 : restore(f, &before);
	snapshot(f, &after);
	summary(f, count, (double)(t1.tv_sec - t0.tv_sec) +
		(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (fails || !sets_equal(&before, &after)) {
		fprintf(stderr, "genl_fuzz: state not restored (%d requests failed)\n",
			fails);
		return 1;
	}
	printf("genl_fuzz: state as before: %d parameter sets\n", before.n);
	return f->eperm_failed ? 1 : 0;
}
