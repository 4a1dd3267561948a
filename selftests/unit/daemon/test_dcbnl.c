// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DCB netlink client (daemon/lib/dcbnl.c), without a socket:
 * the requests byte for byte, crafted replies (good, short, malformed,
 * truncated at every length, errors with extack, the driver's status byte), and
 * the textual forms ("3:on,4:off", "0:0,3:1", "1:64K").
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rocecc/pfc.h>

#include "lib/dcbnl.h"
#include "tap.h"

/* ---- expected images, written out by hand -------------------------------- */

struct img {
	uint8_t b[1024];
	size_t n;
};

static void put8(struct img *m, uint8_t v)
{
	m->b[m->n++] = v;
}

static void put16(struct img *m, uint16_t v)
{
	put8(m, v & 0xff);
	put8(m, v >> 8);
}

static void put32(struct img *m, uint32_t v)
{
	put16(m, v & 0xffff);
	put16(m, v >> 16);
}

static void put64(struct img *m, uint64_t v)
{
	put32(m, (uint32_t)v);
	put32(m, (uint32_t)(v >> 32));
}

static void pad(struct img *m)
{
	while (m->n % 4)
		put8(m, 0);
}

/* nlmsghdr with length @len, type, flags, seq, pid 0; dcbmsg; IFNAME. */
static void head(struct img *m, uint32_t len, uint16_t type, uint8_t cmd,
		 uint32_t seq, const char *ifname)
{
	size_t i, l = strlen(ifname) + 1;

	put32(m, len);
	put16(m, type);
	put16(m, 0x0005);	/* NLM_F_REQUEST | NLM_F_ACK */
	put32(m, seq);
	put32(m, 0);
	put8(m, 0);		/* AF_UNSPEC */
	put8(m, cmd);
	put16(m, 0);
	put16(m, (uint16_t)(4 + l));
	put16(m, 1);		/* DCB_ATTR_IFNAME */
	for (i = 0; i < l; i++)
		put8(m, (uint8_t)ifname[i]);
	pad(m);
}

static void pfc_img(struct img *m, uint8_t cap, uint8_t en, uint8_t mbc,
		    uint16_t delay, uint64_t req0, uint64_t ind7)
{
	int i;

	put16(m, 4 + 136);
	put16(m, 2);		/* DCB_ATTR_IEEE_PFC */
	put8(m, cap);
	put8(m, en);
	put8(m, mbc);
	put8(m, 0);		/* padding */
	put16(m, delay);
	put16(m, 0);		/* padding before the u64s */
	for (i = 0; i < 8; i++)
		put64(m, i == 0 ? req0 : 0);
	for (i = 0; i < 8; i++)
		put64(m, i == 7 ? ind7 : 0);
}

static void buf_img(struct img *m, const uint8_t p2b[8], const uint32_t sz[8],
		    uint32_t total)
{
	int i;

	put16(m, 4 + 44);
	put16(m, 10);		/* DCB_ATTR_DCB_BUFFER */
	for (i = 0; i < 8; i++)
		put8(m, p2b[i]);
	for (i = 0; i < 8; i++)
		put32(m, sz[i]);
	put32(m, total);
}

static int bytes_eq(const void *got, size_t gotlen, const struct img *want,
		    const char *what)
{
	const uint8_t *g = got;
	size_t i;
	int ok = gotlen == want->n && !memcmp(got, want->b, want->n);

	tap_ok(ok, "%s (%zu bytes)", what, want->n);
	if (!ok) {
		tap_diag("length got %zu want %zu", gotlen, want->n);
		for (i = 0; i < gotlen && i < want->n; i++)
			if (g[i] != want->b[i]) {
				tap_diag("first difference at byte %zu: got 0x%02x want 0x%02x",
					 i, g[i], want->b[i]);
				break;
			}
	}
	return ok;
}

static void test_abi(void)
{
	tap_eq(RTM_GETDCB, 78, "RTM_GETDCB is 78");
	tap_eq(RTM_SETDCB, 79, "RTM_SETDCB is 79");
	tap_eq(DCB_CMD_IEEE_SET, 20, "DCB_CMD_IEEE_SET is 20");
	tap_eq(DCB_CMD_IEEE_GET, 21, "DCB_CMD_IEEE_GET is 21");
	tap_eq(DCB_ATTR_IEEE, 13, "DCB_ATTR_IEEE is 13");
	tap_eq(sizeof(struct ieee_pfc), 136, "struct ieee_pfc is 136 bytes");
	tap_eq(sizeof(struct dcbnl_buffer), 44, "struct dcbnl_buffer is 44 bytes");
}

static void test_build(void)
{
	static uint8_t buf[8192];
	struct ieee_pfc pfc = { 0 };
	struct dcbnl_buffer b = { { 0 }, { 0 }, 0 };
	static const uint8_t p2b[8] = { 0, 0, 0, 1, 2, 0, 0, 7 };
	static const uint32_t sz[8] = { 65536, 131072, 1, 0, 0, 0, 0, 0xffffffff };
	struct nlmsghdr *nlh;
	struct img m = { .n = 0 };
	int i;

	nlh = dcbnl_msg_get(buf, 7, "eth0");
	head(&m, 32, 78, 21, 7, "eth0");
	if (tap_ok(nlh != NULL, "GET eth0 builds"))
		bytes_eq(nlh, nlh->nlmsg_len, &m, "GET eth0: the bytes");

	m.n = 0;
	nlh = dcbnl_msg_get(buf, 0xdeadbeef, "abcdefghijklmno");
	head(&m, 16 + 4 + 20, 78, 21, 0xdeadbeef, "abcdefghijklmno");
	if (tap_ok(nlh != NULL, "GET with a 15-character name builds"))
		bytes_eq(nlh, nlh->nlmsg_len, &m, "GET 15 characters: the bytes");
	tap_ok(dcbnl_msg_get(buf, 1, "abcdefghijklmnop") == NULL,
	       "GET with a 16-character name: NULL");
	tap_ok(dcbnl_msg_get(buf, 1, "") == NULL, "GET with an empty name: NULL");
	tap_ok(dcbnl_msg_get(buf, 1, NULL) == NULL, "GET without a name: NULL");

	pfc.pfc_cap = 8;
	pfc.pfc_en = 0x18;
	pfc.mbc = 1;
	pfc.delay = 0xbeef;
	pfc.requests[0] = 0x0102030405060708ULL;
	pfc.indications[7] = 42;
	m.n = 0;
	nlh = dcbnl_msg_set(buf, 9, "veth0", &pfc, NULL);
	head(&m, 16 + 4 + 12 + 4 + 140, 79, 20, 9, "veth0");
	put16(&m, 4 + 140);
	put16(&m, 13 | 0x8000);	/* DCB_ATTR_IEEE | NLA_F_NESTED */
	pfc_img(&m, 8, 0x18, 1, 0xbeef, 0x0102030405060708ULL, 42);
	if (tap_ok(nlh != NULL, "SET PFC builds"))
		bytes_eq(nlh, nlh->nlmsg_len, &m, "SET PFC: the bytes");

	for (i = 0; i < 8; i++) {
		b.prio2buffer[i] = p2b[i];
		b.buffer_size[i] = sz[i];
	}
	b.total_size = 12345;
	m.n = 0;
	nlh = dcbnl_msg_set(buf, 10, "eth1", NULL, &b);
	head(&m, 16 + 4 + 12 + 4 + 48, 79, 20, 10, "eth1");
	put16(&m, 4 + 48);
	put16(&m, 13 | 0x8000);
	buf_img(&m, p2b, sz, 12345);
	if (tap_ok(nlh != NULL, "SET buffer builds"))
		bytes_eq(nlh, nlh->nlmsg_len, &m, "SET buffer: the bytes");

	m.n = 0;
	nlh = dcbnl_msg_set(buf, 11, "eth1", &pfc, &b);
	head(&m, 16 + 4 + 12 + 4 + 140 + 48, 79, 20, 11, "eth1");
	put16(&m, 4 + 140 + 48);
	put16(&m, 13 | 0x8000);
	pfc_img(&m, 8, 0x18, 1, 0xbeef, 0x0102030405060708ULL, 42);
	buf_img(&m, p2b, sz, 12345);
	if (tap_ok(nlh != NULL, "SET PFC + buffer builds"))
		bytes_eq(nlh, nlh->nlmsg_len, &m, "SET PFC + buffer: the bytes");
	tap_ok(dcbnl_msg_set(buf, 1, "eth0", NULL, NULL) == NULL,
	       "SET of nothing: NULL");
}

/* ---- crafted replies ------------------------------------------------------ */

/* A GET reply (seq 5, port 0) into @m: ETS (skipped), PFC, buffer. */
static void get_reply(struct img *m, bool pfc, bool buffer)
{
	static const uint8_t p2b[8] = { 0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint32_t sz[8] = { 262144, 131072 };
	size_t start = m->n, nest;
	int i;

	head(m, 0, 78, 21, 5, "eth0");
	nest = m->n;
	put16(m, 0);
	put16(m, 13);
	/* DCB_ATTR_IEEE_ETS (1), 59 bytes + padding: skipped */
	put16(m, 4 + 59);
	put16(m, 1);
	for (i = 0; i < 59; i++)
		put8(m, 0xee);
	pad(m);
	if (pfc)
		pfc_img(m, 8, 0x08, 0, 7, 1000, 2000);
	if (buffer)
		buf_img(m, p2b, sz, 1 << 20);
	m->b[nest] = (uint8_t)(m->n - nest);
	m->b[nest + 1] = (uint8_t)((m->n - nest) >> 8);
	/* DCB_ATTR_DCBX (14), u8 after the nest */
	put16(m, 5);
	put16(m, 14);
	put8(m, 8);
	pad(m);
	m->b[start] = (uint8_t)(m->n - start);
	m->b[start + 1] = (uint8_t)((m->n - start) >> 8);
}

/* An NLMSG_ERROR (seq 5) with @err, capped, with an extack @msg if any. */
static void error_msg(struct img *m, int err, const char *msg)
{
	size_t start = m->n, i, l;

	put32(m, 0);
	put16(m, NLMSG_ERROR);
	put16(m, NLM_F_CAPPED | (msg ? NLM_F_ACK_TLVS : 0));
	put32(m, 5);
	put32(m, 0);
	put32(m, (uint32_t)err);
	/* the request's header only */
	put32(m, 32);
	put16(m, 78);
	put16(m, 5);
	put32(m, 5);
	put32(m, 0);
	if (msg) {
		l = strlen(msg) + 1;
		put16(m, (uint16_t)(4 + l));
		put16(m, NLMSGERR_ATTR_MSG);
		for (i = 0; i < l; i++)
			put8(m, (uint8_t)msg[i]);
		pad(m);
	}
	m->b[start] = (uint8_t)(m->n - start);
	m->b[start + 1] = (uint8_t)((m->n - start) >> 8);
}

static int feed_get(const struct img *m, struct dcbnl_ieee *out,
		    struct dcbnl_answer *a)
{
	memset(a, 0, sizeof(*a));
	memset(out, 0, sizeof(*out));
	a->cmd = DCB_CMD_IEEE_GET;
	a->ieee = out;
	return dcbnl_feed(a, m->b, m->n, 5, 0);
}

static void test_get_reply(void)
{
	struct dcbnl_answer a;
	struct dcbnl_ieee d;
	struct img m = { .n = 0 };
	char msg[256];
	size_t cut;
	int ret, crashes = 0, errs = 0;

	get_reply(&m, true, true);
	error_msg(&m, 0, NULL);
	ret = feed_get(&m, &d, &a);
	tap_eq(ret, 0, "GET reply + ACK: complete");
	tap_eq(a.err, 0, "  no error");
	tap_ok(d.have_pfc && d.have_buffer, "  PFC and buffer present");
	tap_eq(d.pfc.pfc_cap, 8, "  pfc_cap");
	tap_eq(d.pfc.pfc_en, 0x08, "  pfc_en");
	tap_eq(d.pfc.delay, 7, "  delay");
	tap_eq(d.pfc.requests[0], 1000, "  requests[0]");
	tap_eq(d.pfc.indications[7], 2000, "  indications[7]");
	tap_eq(d.buf.prio2buffer[3], 1, "  prio2buffer[3]");
	tap_eq(d.buf.buffer_size[0], 262144, "  buffer_size[0]");
	tap_eq(d.buf.total_size, 1 << 20, "  total_size");

	/* the reply and the ACK in two receives */
	m.n = 0;
	get_reply(&m, true, false);
	ret = feed_get(&m, &d, &a);
	tap_eq(ret, 1, "GET reply alone: more to come");
	m.n = 0;
	error_msg(&m, 0, NULL);
	ret = dcbnl_feed(&a, m.b, m.n, 5, 0);
	tap_eq(ret, 0, "  then the ACK: complete");
	tap_eq(a.err, 0, "  no error");
	tap_ok(d.have_pfc && !d.have_buffer, "  PFC, no buffer");

	m.n = 0;
	get_reply(&m, false, false);
	error_msg(&m, 0, NULL);
	feed_get(&m, &d, &a);
	tap_ok(a.err == 0 && !d.have_pfc && !d.have_buffer,
	       "GET reply of a driver without PFC or buffers");

	/* errors */
	m.n = 0;
	error_msg(&m, -EOPNOTSUPP, NULL);
	ret = feed_get(&m, &d, &a);
	tap_ok(ret == 0 && a.err == -EOPNOTSUPP, "error -EOPNOTSUPP");
	tap_is_str(a.msg, "", "  without a message");
	m.n = 0;
	error_msg(&m, -EINVAL, "rocecc: bad priority");
	feed_get(&m, &d, &a);
	tap_eq(a.err, -EINVAL, "error -EINVAL with extack");
	tap_is_str(a.msg, "rocecc: bad priority", "  its message");
	m.n = 0;
	error_msg(&m, 0, NULL);
	feed_get(&m, &d, &a);
	tap_eq(a.err, -EBADMSG, "ACK without a reply: -EBADMSG");
	m.n = 0;
	get_reply(&m, true, true);
	get_reply(&m, true, true);
	ret = feed_get(&m, &d, &a);
	tap_ok(ret == -1 && a.err == -EBADMSG, "two replies: -EBADMSG");
	m.n = 0;
	get_reply(&m, true, true);
	memset(&a, 0, sizeof(a));
	a.cmd = DCB_CMD_IEEE_GET;
	a.ieee = &d;
	ret = dcbnl_feed(&a, m.b, m.n, 6, 0);
	tap_ok(ret == -1 && a.err, "reply to another sequence number: refused");

	/* malformed */
	m.n = 0;
	get_reply(&m, true, true);
	m.b[0] = 18;		/* nlmsg_len: header + 2 bytes of dcbmsg */
	m.b[1] = 0;
	m.n = 18;
	tap_eq(dcbnl_parse_get((const struct nlmsghdr *)m.b, &d, msg, sizeof(msg)),
	       -EBADMSG, "reply shorter than its dcbmsg: -EBADMSG");
	tap_is_str(msg, "reply too short for its DCB header", "  message");

	m.n = 0;
	get_reply(&m, true, true);
	m.b[17] = 20;		/* dcbmsg.cmd */
	tap_eq(dcbnl_parse_get((const struct nlmsghdr *)m.b, &d, msg, sizeof(msg)),
	       -EBADMSG, "reply with another command: -EBADMSG");
	tap_is_str(msg, "unexpected reply (type 78, command 20)", "  message");

	m.n = 0;
	get_reply(&m, true, true);
	/* PFC attribute claims 100 bytes: the rest no longer parses either */
	m.b[32 + 4 + 64] = 104;
	tap_eq(dcbnl_parse_get((const struct nlmsghdr *)m.b, &d, msg, sizeof(msg)),
	       -EBADMSG, "PFC of 100 bytes: -EBADMSG");
	tap_is_str(msg, "DCB_ATTR_IEEE_PFC of 100 bytes, expected 136", "  message");

	m.n = 0;
	get_reply(&m, true, true);
	m.b[32 + 4 + 64] = 0xff;	/* longer than the nest */
	m.b[32 + 4 + 64 + 1] = 0x7f;
	tap_eq(dcbnl_parse_get((const struct nlmsghdr *)m.b, &d, msg, sizeof(msg)),
	       -EBADMSG, "attribute longer than its nest: -EBADMSG");
	tap_is_str(msg, "malformed attribute inside DCB_ATTR_IEEE", "  message");

	m.n = 0;
	get_reply(&m, true, true);
	m.b[32 + 4 + 64] = 2;	/* nla_len below the header */
	m.b[32 + 4 + 64 + 1] = 0;
	tap_eq(dcbnl_parse_get((const struct nlmsghdr *)m.b, &d, msg, sizeof(msg)),
	       -EBADMSG, "attribute length 2: -EBADMSG");

	/* every truncation of a good reply, nlmsg_len adjusted: no crash */
	for (cut = 0; cut < 300; cut++) {
		struct img t = { .n = 0 };

		get_reply(&t, true, true);
		if (cut >= t.n)
			break;
		if (cut >= 16) {
			t.b[0] = (uint8_t)cut;
			t.b[1] = (uint8_t)(cut >> 8);
		}
		t.n = cut;
		memset(&a, 0, sizeof(a));
		a.cmd = DCB_CMD_IEEE_GET;
		a.ieee = &d;
		ret = dcbnl_feed(&a, t.b, t.n, 5, 0);
		if (ret == 0 && !a.err)
			crashes++;	/* a truncated reply must not pass */
		if (a.err)
			errs++;
	}
	tap_eq(crashes, 0, "GET reply truncated at every length (%zu): never accepted",
	       cut);
	tap_ok(errs > 0, "  (%d of them refused outright, the rest wait for more)",
	       errs);
}

/* struct dcb_app: selector, priority, protocol (host order) */
struct app_ent {
	uint8_t sel, prio;
	uint16_t proto;
};

/*
 * A GET reply (seq 5) with PFC and an APP table of @n entries, and the
 * ACK; @entlen is each entry's payload length (4 is struct dcb_app).
 */
static void app_reply(struct img *m, const struct app_ent *e, int n,
		      int entlen)
{
	size_t start = m->n, nest, tab;
	int i, j;

	head(m, 0, 78, 21, 5, "eth0");
	nest = m->n;
	put16(m, 0);
	put16(m, 13);		/* DCB_ATTR_IEEE */
	pfc_img(m, 8, 0x08, 0, 0, 0, 0);
	tab = m->n;
	put16(m, 0);
	put16(m, 3);		/* DCB_ATTR_IEEE_APP_TABLE */
	for (i = 0; i < n; i++) {
		put16(m, (uint16_t)(4 + entlen));
		put16(m, 1);	/* DCB_ATTR_IEEE_APP */
		put8(m, e[i].sel);
		put8(m, e[i].prio);
		put16(m, e[i].proto);
		for (j = 4; j < entlen; j++)
			put8(m, 0);
		pad(m);
	}
	m->b[tab] = (uint8_t)(m->n - tab);
	m->b[tab + 1] = (uint8_t)((m->n - tab) >> 8);
	m->b[nest] = (uint8_t)(m->n - nest);
	m->b[nest + 1] = (uint8_t)((m->n - nest) >> 8);
	m->b[start] = (uint8_t)(m->n - start);
	m->b[start + 1] = (uint8_t)((m->n - start) >> 8);
	error_msg(m, 0, NULL);
}

static void test_app_table(void)
{
	static const struct app_ent good[] = {
		{ 5, 3, 26 },		/* DSCP 26 -> 3 */
		{ 5, 6, 48 },		/* DSCP 48 -> 6 */
		{ 1, 3, 0x8915 },	/* ethertype RoCEv1: skipped */
		{ 5, 4, 26 },		/* DSCP 26 -> 4 as well */
		{ 5, 0, 63 },		/* DSCP 63 -> 0 */
	};
	static const struct app_ent bad_dscp[] = { { 5, 3, 64 } };
	static const struct app_ent bad_prio[] = { { 5, 8, 26 } };
	struct dcbnl_answer a;
	struct dcbnl_ieee d;
	struct img m = { .n = 0 };
	uint8_t map[64];

	app_reply(&m, good, 5, 4);
	feed_get(&m, &d, &a);
	tap_eq(a.err, 0, "GET reply with an APP table: parsed");
	tap_ok(d.have_pfc && d.pfc.pfc_en == 0x08, "  PFC beside it");
	tap_ok(d.dscp_app[3] == 1ULL << 26 && d.dscp_app[4] == 1ULL << 26 &&
	       d.dscp_app[6] == 1ULL << 48 && d.dscp_app[0] == 1ULL << 63,
	       "  DSCP entries by priority, the ethertype one skipped");
	rocecc_dscp_map(d.dscp_app, map);
	tap_eq(map[26], 4, "  map: DSCP 26 in two entries, the higher priority wins");
	tap_eq(map[48], 6, "  map: DSCP 48 -> 6");
	tap_eq(map[63], 0, "  map: DSCP 63 -> 0 (entry, not 63 >> 3)");
	tap_eq(map[10], 1, "  map: DSCP 10 without entry -> 10 >> 3");

	m.n = 0;
	app_reply(&m, bad_dscp, 1, 4);
	feed_get(&m, &d, &a);
	tap_eq(a.err, -EBADMSG, "APP entry for DSCP 64: -EBADMSG");
	tap_is_str(a.msg, "APP entry DSCP 64 -> priority 3 out of range", "  message");
	m.n = 0;
	app_reply(&m, bad_prio, 1, 4);
	feed_get(&m, &d, &a);
	tap_eq(a.err, -EBADMSG, "APP entry to priority 8: -EBADMSG");
	m.n = 0;
	app_reply(&m, good, 1, 2);
	feed_get(&m, &d, &a);
	tap_eq(a.err, -EBADMSG, "APP entry of 2 bytes: -EBADMSG");
	tap_is_str(a.msg, "DCB_ATTR_IEEE_APP of 2 bytes, expected 4", "  message");
}

static void set_reply(struct img *m, int status, int len)
{
	size_t start = m->n;

	head(m, 0, 79, 20, 5, "eth0");
	if (len >= 0) {
		put16(m, (uint16_t)(4 + len));
		put16(m, 13);
		if (len >= 1)
			put8(m, (uint8_t)status);
		while (len-- > 1)
			put8(m, 0);
		pad(m);
	}
	m->b[start] = (uint8_t)(m->n - start);
}

static void test_set_reply(void)
{
	struct dcbnl_answer a;
	struct img m = { .n = 0 };
	char msg[256];
	int ret;

	set_reply(&m, 0, 1);
	error_msg(&m, 0, NULL);
	memset(&a, 0, sizeof(a));
	a.cmd = DCB_CMD_IEEE_SET;
	ret = dcbnl_feed(&a, m.b, m.n, 5, 0);
	tap_ok(ret == 0 && a.err == 0 && a.replied, "SET reply status 0 + ACK: ok");

	m.n = 0;
	set_reply(&m, -EOPNOTSUPP, 1);
	tap_eq(dcbnl_parse_set((const struct nlmsghdr *)m.b, msg, sizeof(msg)),
	       -EOPNOTSUPP, "SET status 161 (-95 & 0xff): -EOPNOTSUPP");
	m.n = 0;
	set_reply(&m, -EINVAL, 1);
	tap_eq(dcbnl_parse_set((const struct nlmsghdr *)m.b, msg, sizeof(msg)),
	       -EINVAL, "SET status -EINVAL & 0xff: -EINVAL");
	m.n = 0;
	set_reply(&m, -ERANGE, 1);
	error_msg(&m, 0, NULL);
	memset(&a, 0, sizeof(a));
	a.cmd = DCB_CMD_IEEE_SET;
	ret = dcbnl_feed(&a, m.b, m.n, 5, 0);
	tap_ok(ret == 0 && a.err == -ERANGE, "SET status -ERANGE through feed");
	m.n = 0;
	set_reply(&m, 0, 4);
	tap_eq(dcbnl_parse_set((const struct nlmsghdr *)m.b, msg, sizeof(msg)),
	       -EBADMSG, "SET status of 4 bytes: -EBADMSG");
	tap_is_str(msg, "status of 4 bytes, expected 1", "  message");
	m.n = 0;
	set_reply(&m, 0, -1);
	tap_eq(dcbnl_parse_set((const struct nlmsghdr *)m.b, msg, sizeof(msg)),
	       -EBADMSG, "SET reply without a status: -EBADMSG");
	tap_is_str(msg, "reply without the driver's status", "  message");
	m.n = 0;
	get_reply(&m, true, true);
	tap_eq(dcbnl_parse_set((const struct nlmsghdr *)m.b, msg, sizeof(msg)),
	       -EBADMSG, "a GET reply to a SET: -EBADMSG");
}

/* ---- text ------------------------------------------------------------------- */

static void test_text(void)
{
	struct dcbnl_perr e;
	uint8_t en = 0, mask = 0, p2b[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	uint32_t sz[8] = { 0 }, v = 0;
	char buf[64];

	tap_ok(!dcbnl_parse_prio_onoff("3:on,4:off", &en, &mask, &e) &&
	       en == 0x08 && mask == 0x18, "prio-pfc 3:on,4:off");
	tap_ok(!dcbnl_parse_prio_onoff("all:on,0:off", &en, &mask, &e) &&
	       en == 0xfe && mask == 0xff, "prio-pfc all:on,0:off");
	tap_eq(dcbnl_parse_prio_onoff("9:on", &en, &mask, &e), -EINVAL,
	       "prio-pfc 9:on refused");
	tap_is_str(e.item, "9:on", "  item");
	tap_is_str(e.why, "priority must be 0..7", "  why");
	tap_eq(dcbnl_parse_prio_onoff("3:yes", &en, &mask, &e), -EINVAL,
	       "prio-pfc 3:yes refused");
	tap_is_str(e.why, "expected on or off after the priority", "  why");
	tap_eq(dcbnl_parse_prio_onoff("3", &en, &mask, &e), -EINVAL,
	       "prio-pfc 3 refused");
	tap_eq(dcbnl_parse_prio_onoff("3:on,", &en, &mask, &e), -EINVAL,
	       "prio-pfc '3:on,' refused");
	tap_eq(dcbnl_parse_prio_onoff("", &en, &mask, &e), -EINVAL,
	       "prio-pfc '' refused");
	tap_eq(dcbnl_parse_prio_onoff("10:on", &en, &mask, &e), -EINVAL,
	       "prio-pfc 10:on refused");

	tap_ok(!dcbnl_parse_prio_list("3", &mask, &e) && mask == 0x08,
	       "priorities 3");
	tap_ok(!dcbnl_parse_prio_list("3,4,0", &mask, &e) && mask == 0x19,
	       "priorities 3,4,0");
	tap_ok(!dcbnl_parse_prio_list("none", &mask, &e) && mask == 0,
	       "priorities none");
	tap_eq(dcbnl_parse_prio_list("3,8", &mask, &e), -EINVAL,
	       "priorities 3,8 refused");
	tap_is_str(e.item, "8", "  item");
	tap_eq(dcbnl_parse_prio_list("3 4", &mask, &e), -EINVAL,
	       "priorities '3 4' refused");

	tap_ok(!dcbnl_parse_prio2buffer("all:0,3:1", p2b, &mask, &e) &&
	       mask == 0xff && p2b[3] == 1 && p2b[0] == 0 && p2b[7] == 0,
	       "prio-buffer all:0,3:1");
	memset(p2b, 9, sizeof(p2b));
	tap_ok(!dcbnl_parse_prio2buffer("3:1", p2b, &mask, &e) &&
	       mask == 0x08 && p2b[3] == 1 && p2b[0] == 9,
	       "prio-buffer 3:1 leaves the others");
	tap_eq(dcbnl_parse_prio2buffer("3:8", p2b, &mask, &e), -EINVAL,
	       "prio-buffer 3:8 refused");
	tap_is_str(e.why, "buffer must be 0..7", "  why");

	tap_ok(!dcbnl_parse_buffer_sizes("0:64K,1:1M,2:1000", sz, &mask, &e) &&
	       mask == 0x07 && sz[0] == 65536 && sz[1] == 1048576 &&
	       sz[2] == 1000, "buffer-size 0:64K,1:1M,2:1000");
	tap_ok(!dcbnl_parse_buffer_sizes("all:0,7:4294967295", sz, &mask, &e) &&
	       mask == 0xff && sz[0] == 0 && sz[7] == 0xffffffffu,
	       "buffer-size all:0,7:4294967295");
	tap_eq(dcbnl_parse_buffer_sizes("0:4096M", sz, &mask, &e), -EINVAL,
	       "buffer-size 0:4096M refused");
	tap_is_str(e.why, "size must be at most 4294967295 bytes (4095M)", "  why");
	tap_eq(dcbnl_parse_buffer_sizes("0:12G", sz, &mask, &e), -EINVAL,
	       "buffer-size 0:12G refused");
	tap_is_str(e.why, "size must be bytes, or with K or M (1024-based)", "  why");
	tap_eq(dcbnl_parse_buffer_sizes("8:1K", sz, &mask, &e), -EINVAL,
	       "buffer-size 8:1K refused");

	tap_ok(!dcbnl_parse_size("64k", &v) && v == 65536, "size 64k");
	tap_eq(dcbnl_parse_size("-1", &v), -EINVAL, "size -1 refused");
	tap_eq(dcbnl_parse_size("99999999999", &v), -ERANGE, "size 99999999999 out of range");
	tap_eq(dcbnl_parse_size("1KK", &v), -EINVAL, "size 1KK refused");

	{
		unsigned int mbps = 0;
		double m = -1;

		tap_ok(!dcbnl_parse_speed("100G", &mbps) && mbps == 100000, "speed 100G");
		tap_ok(!dcbnl_parse_speed("25g", &mbps) && mbps == 25000, "speed 25g");
		tap_ok(!dcbnl_parse_speed("10000", &mbps) && mbps == 10000, "speed 10000 (Mb/s)");
		tap_ok(!dcbnl_parse_speed("400000M", &mbps) && mbps == 400000, "speed 400000M");
		tap_eq(dcbnl_parse_speed("1601G", &mbps), -EINVAL, "speed 1601G refused");
		tap_eq(dcbnl_parse_speed("0", &mbps), -EINVAL, "speed 0 refused");
		tap_eq(dcbnl_parse_speed("100T", &mbps), -EINVAL, "speed 100T refused");
		tap_eq(dcbnl_parse_speed("", &mbps), -EINVAL, "speed '' refused");
		tap_ok(!dcbnl_parse_length("5m", &m) && m == 5, "length 5m");
		tap_ok(!dcbnl_parse_length("2.5", &m) && m == 2.5, "length 2.5");
		tap_ok(!dcbnl_parse_length("0", &m) && m == 0, "length 0");
		tap_eq(dcbnl_parse_length("10001", &m), -EINVAL, "length 10001 refused");
		tap_eq(dcbnl_parse_length("-1", &m), -EINVAL, "length -1 refused");
		tap_eq(dcbnl_parse_length("m", &m), -EINVAL, "length m refused");
		tap_eq(dcbnl_parse_length("1e3", &m), -EINVAL, "length 1e3 refused");
		tap_eq(dcbnl_parse_length("nan", &m), -EINVAL, "length nan refused");
	}
	tap_is_str(dcbnl_prio_str(0x18, buf, sizeof(buf)), "3,4", "prio_str 3,4");
	tap_is_str(dcbnl_prio_str(0, buf, sizeof(buf)), "none", "prio_str none");
	tap_is_str(dcbnl_size_str(65536, buf, sizeof(buf)), "64K", "size_str 64K");
	tap_is_str(dcbnl_size_str(3 << 20, buf, sizeof(buf)), "3M", "size_str 3M");
	tap_is_str(dcbnl_size_str(1000, buf, sizeof(buf)), "1000", "size_str 1000");
	tap_is_str(dcbnl_size_str(0, buf, sizeof(buf)), "0", "size_str 0");
}

int main(void)
{
	test_abi();
	test_build();
	test_get_reply();
	test_app_table();
	test_set_reply();
	test_text();
	return tap_done();
}
