// SPDX-License-Identifier: GPL-2.0
/*
 * PFC frames, pause time and buffer thresholds (include/rocecc/pfc.h)
 * against hand-computed vectors: the exact 60 bytes of an XOFF, the parser
 * on PFC, PAUSE, other opcodes and truncated frames, the reserved high byte
 * of the class-enable vector, quanta <-> ns at 10/25/100 Gb/s (rounded up,
 * saturated at 0xffff), the xoff/xon thresholds and DSCP -> priority;
 * then the XOFF/refresh/XON decision (rocecc_pfc_gen()) run by run: XOFF
 * at xoff and not below, nothing while nothing changes, the refresh at
 * half the pause while above xon, XON at and only at xon, the latch of a
 * burst drained before the run (XOFF, then XON in the next), priorities
 * that leave or join a paused buffer, a priority moving between paused
 * buffers, several buffers' refreshes, and the release at detach; the
 * destination a received PFC frame must have, and the pause watchdog's
 * bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rocecc/pfc.h>

#include "tap.h"

static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x04 };

/* enable 0x08 (priority 3), quanta[3] = 0xffff: written out by hand */
static const uint8_t xoff3[ROCECC_PFC_FRAME_LEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,	/* 01:80:c2:00:00:01 */
	0x02, 0x00, 0x00, 0x00, 0x01, 0x04,	/* source */
	0x88, 0x08,				/* MAC control */
	0x01, 0x01,				/* opcode PFC */
	0x00, 0x08,				/* class-enable: prio 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* time[0..2] */
	0xff, 0xff,				/* time[3] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* time[4..7] */
	/* 26 bytes of padding, 34..59 */
};

static void dump_diff(const uint8_t *got, const uint8_t *want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			tap_diag("byte %u: got 0x%02x, want 0x%02x", i, got[i],
				 want[i]);
}

static void test_build(void)
{
	struct rocecc_pfc_msg m = { .enable = 0x08 };
	uint8_t buf[64];
	uint32_t len;

	m.quanta[3] = 0xffff;
	memset(buf, 0xaa, sizeof(buf));
	len = rocecc_pfc_build(buf, smac, &m);
	tap_eq(len, 60, "build: 60 bytes (no FCS)");
	if (!tap_ok(!memcmp(buf, xoff3, sizeof(xoff3)),
		    "build: XOFF prio 3 quanta 0xffff is exactly the hand-written frame"))
		dump_diff(buf, xoff3, sizeof(xoff3));
	tap_eq(buf[60], 0xaa, "build: nothing written past byte 59");

	/* XON: the same priority with 0 quanta */
	m.quanta[3] = 0;
	rocecc_pfc_build(buf, smac, &m);
	tap_eq(buf[17], 0x08, "build XON: enable bit 3 still set");
	tap_eq(buf[24] << 8 | buf[25], 0, "build XON: time[3] 0");

	/* a time of a priority whose enable bit is clear is not sent */
	memset(&m, 0, sizeof(m));
	m.enable = 0x81;
	m.quanta[0] = 0x1234;
	m.quanta[3] = 0xffff;	/* not enabled */
	m.quanta[7] = 0x0102;
	rocecc_pfc_build(buf, smac, &m);
	tap_eq(buf[17], 0x81, "build: enable 0x81");
	tap_eq(buf[18] << 8 | buf[19], 0x1234, "build: time[0] 0x1234 at bytes 18-19");
	tap_eq(buf[24] << 8 | buf[25], 0, "build: time[3] of a disabled priority is 0");
	tap_eq(buf[32] << 8 | buf[33], 0x0102, "build: time[7] 0x0102 at bytes 32-33");
	tap_eq(buf[16], 0, "build: reserved high byte of the vector 0");
}

static void test_parse(void)
{
	struct rocecc_pfc_msg m;
	uint8_t f[ROCECC_PFC_FRAME_LEN];
	const uint8_t *p = xoff3 + 14;
	int i, ok;

	memset(&m, 0x55, sizeof(m));
	tap_eq(rocecc_pfc_parse(p, 46, &m), ROCECC_PFC_PARSE_PFC,
	       "parse: the XOFF frame is PFC");
	tap_eq(m.enable, 0x08, "parse: enable 0x08");
	tap_eq(m.quanta[3], 0xffff, "parse: quanta[3] 0xffff");
	ok = 1;
	for (i = 0; i < 8; i++)
		if (i != 3 && m.quanta[i])
			ok = 0;
	tap_ok(ok, "parse: the other quanta 0");

	tap_eq(rocecc_pfc_parse(p, 20, &m), ROCECC_PFC_PARSE_PFC,
	       "parse: 20 bytes (opcode + vector + 8 times) are enough");
	tap_eq((uint32_t)rocecc_pfc_parse(p, 19, &m), (uint32_t)ROCECC_PFC_PARSE_SHORT,
	       "parse: PFC truncated to 19 bytes is short");
	tap_eq((uint32_t)rocecc_pfc_parse(p, 1, &m), (uint32_t)ROCECC_PFC_PARSE_SHORT,
	       "parse: 1 byte is short");
	tap_eq((uint32_t)rocecc_pfc_parse(p, 0, &m), (uint32_t)ROCECC_PFC_PARSE_SHORT,
	       "parse: 0 bytes are short");

	/* reserved high byte set: ignored */
	memcpy(f, xoff3, sizeof(f));
	f[16] = 0xff;
	memset(&m, 0, sizeof(m));
	tap_eq(rocecc_pfc_parse(f + 14, 46, &m), ROCECC_PFC_PARSE_PFC,
	       "parse: reserved byte 0xff still PFC");
	tap_eq(m.enable, 0x08, "parse: reserved high byte of the vector ignored");

	/* 802.3x PAUSE: opcode 0x0001, one time */
	{
		const uint8_t pause[4] = { 0x00, 0x01, 0x12, 0x34 };

		memset(&m, 0, sizeof(m));
		tap_eq(rocecc_pfc_parse(pause, 4, &m), ROCECC_PFC_PARSE_PAUSE,
		       "parse: opcode 0x0001 is PAUSE");
		tap_eq(m.enable, 0xff, "parse PAUSE: every priority");
		ok = 1;
		for (i = 0; i < 8; i++)
			if (m.quanta[i] != 0x1234)
				ok = 0;
		tap_ok(ok, "parse PAUSE: every quanta 0x1234");
		tap_eq((uint32_t)rocecc_pfc_parse(pause, 3, &m),
		       (uint32_t)ROCECC_PFC_PARSE_SHORT, "parse: PAUSE truncated to 3 bytes is short");
	}

	/* other MAC control opcodes */
	{
		const uint8_t gate[20] = { 0x00, 0x02 };
		const uint8_t swapped[20] = { 0x01, 0x00, 0x00, 0x08 };
		const uint8_t ext[2] = { 0xff, 0xfe };

		tap_eq(rocecc_pfc_parse(gate, 20, &m), ROCECC_PFC_PARSE_OTHER,
		       "parse: opcode 0x0002 is another opcode");
		tap_eq(rocecc_pfc_parse(swapped, 20, &m), ROCECC_PFC_PARSE_OTHER,
		       "parse: opcode 0x0100 (byte-swapped PFC) is another opcode");
		tap_eq(rocecc_pfc_parse(ext, 2, &m), ROCECC_PFC_PARSE_OTHER,
		       "parse: another opcode needs only its 2 bytes");
	}

	/* round trip of a full vector */
	{
		struct rocecc_pfc_msg in = { .enable = 0xff }, out;

		for (i = 0; i < 8; i++)
			in.quanta[i] = (uint16_t)(0x1111 * i + 1);
		rocecc_pfc_build(f, smac, &in);
		memset(&out, 0, sizeof(out));
		rocecc_pfc_parse(f + 14, 46, &out);
		tap_ok(!memcmp(&in, &out, sizeof(in)), "build/parse round trip, all 8 priorities");
	}
}

static void test_time(void)
{
	/* 65535 * 512 bits = 33,553,920 bits */
	tap_eq(rocecc_pfc_quanta_ns(0xffff, 10000), 3355392,
	       "quanta_ns: 65535 at 10 Gb/s = 3,355,392 ns exactly");
	tap_eq(rocecc_pfc_quanta_ns(0xffff, 25000), 1342157,
	       "quanta_ns: 65535 at 25 Gb/s = 1,342,156.8 -> 1,342,157 ns");
	tap_eq(rocecc_pfc_quanta_ns(0xffff, 100000), 335540,
	       "quanta_ns: 65535 at 100 Gb/s = 335,539.2 -> 335,540 ns");
	tap_eq(rocecc_pfc_quanta_ns(1, 10000), 52, "quanta_ns: 1 at 10 Gb/s = 51.2 -> 52 ns");
	tap_eq(rocecc_pfc_quanta_ns(1, 100000), 6, "quanta_ns: 1 at 100 Gb/s = 5.12 -> 6 ns");
	tap_eq(rocecc_pfc_quanta_ns(0, 10000), 0, "quanta_ns: 0 quanta (XON) = 0 ns");
	tap_eq(rocecc_pfc_quanta_ns(10, 1000), 5120, "quanta_ns: 10 at 1 Gb/s = 5120 ns");

	tap_eq(rocecc_pfc_ns_quanta(3355392, 10000), 0xffff,
	       "ns_quanta: 3,355,392 ns at 10 Gb/s = 65535 (inverse)");
	tap_eq(rocecc_pfc_ns_quanta(3355391, 10000), 0xffff,
	       "ns_quanta: 1 ns less still needs 65535 (rounded up)");
	tap_eq(rocecc_pfc_ns_quanta(3355340, 10000), 65534,
	       "ns_quanta: 3,355,340 ns at 10 Gb/s = 65533.98 -> 65534");
	tap_eq(rocecc_pfc_ns_quanta(1, 10000), 1, "ns_quanta: 1 ns rounds up to 1 quantum");
	tap_eq(rocecc_pfc_ns_quanta(0, 10000), 0, "ns_quanta: 0 ns = 0");
	tap_eq(rocecc_pfc_ns_quanta(100000, 100000), 19532,
	       "ns_quanta: 100 us at 100 Gb/s = 19531.25 -> 19532");
	tap_eq(rocecc_pfc_ns_quanta(3355393, 10000), 0xffff,
	       "ns_quanta: just above the maximum saturates at 0xffff");
	tap_eq(rocecc_pfc_ns_quanta(10000000, 10000), 0xffff,
	       "ns_quanta: 10 ms at 10 Gb/s (195,313) saturates at 0xffff");
	tap_eq(rocecc_pfc_ns_quanta(1000000000ULL, 400000), 0xffff,
	       "ns_quanta: 1 s at 400 Gb/s saturates (no overflow)");
	tap_eq(rocecc_pfc_ns_quanta(rocecc_pfc_quanta_ns(1000, 25000), 25000), 1000,
	       "ns_quanta(quanta_ns(1000)) = 1000 at 25 Gb/s");
}

static void test_dmac_bound(void)
{
	static const uint8_t good[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	uint8_t a[6];
	unsigned int i;

	tap_ok(rocecc_pfc_dmac_ok(good), "dmac: 01:80:c2:00:00:01 is obeyed");
	for (i = 0; i < 6; i++) {
		memcpy(a, good, 6);
		a[i] ^= i == 0 ? 0x01 : 0x02;
		if (!tap_ok(!rocecc_pfc_dmac_ok(a), "dmac: a one-bit change in byte %u is not", i))
			tap_diag("byte %u", i);
	}
	memcpy(a, smac, 6);
	tap_ok(!rocecc_pfc_dmac_ok(a), "dmac: a station's unicast address is not");
	/* pause until from + 335 ms, bound 5 s: unchanged; bound 100 ms: cut */
	tap_eq(rocecc_pfc_pause_end(1000, 1000 + 335000000ULL, 5000000000ULL),
	       1000 + 335000000ULL, "bound: a pause shorter than the bound is kept");
	tap_eq(rocecc_pfc_pause_end(1000, 1000 + 335000000ULL, 100000000ULL),
	       1000 + 100000000ULL, "bound: a longer one ends at from + bound");
	tap_eq(rocecc_pfc_pause_end(1000, 1000 + 100000000ULL, 100000000ULL),
	       1000 + 100000000ULL, "bound: exactly the bound is kept");
	/* a refresh 4.9 s into a pause that began at 0: cut at 5 s */
	tap_eq(rocecc_pfc_pause_end(0, 4900000000ULL + 335000000ULL, 5000000000ULL),
	       5000000000ULL, "bound: a refresh cannot carry a pause past from + bound");
	/* 0xffff quanta at 1 Mb/s (33.6 s) against the 60 s maximum bound */
	tap_eq(rocecc_pfc_pause_end(7, 7 + rocecc_pfc_quanta_ns(0xffff, 1), 60000000000ULL),
	       7 + rocecc_pfc_quanta_ns(0xffff, 1), "bound: 33.6 s under a 60 s bound is kept");
}

static void test_thresholds(void)
{
	__u32 xoff = 1, xon = 1;

	/* headroom = ceil(1000 / 8) + 2 * 1500 = 125 + 3000 = 3125 */
	rocecc_pfc_thresholds(100000, 1500, 1000, &xoff, &xon);
	tap_eq(xoff, 96875, "thresholds: 100000 B, MTU 1500, 1000 bits: xoff 96875");
	tap_eq(xon, 95375, "thresholds: ... xon = xoff - MTU = 95375");

	/* delay rounded up to whole bytes: 1001 bits -> 126 B */
	rocecc_pfc_thresholds(100000, 1500, 1001, &xoff, &xon);
	tap_eq(xoff, 96874, "thresholds: 1001 bits of delay are 126 bytes");

	rocecc_pfc_thresholds(3000, 1500, 1000, &xoff, &xon);
	tap_eq(xoff, 0, "thresholds: buffer below its headroom: xoff 0");
	tap_eq(xon, 0, "thresholds: ... xon 0");
	rocecc_pfc_thresholds(3125, 1500, 1000, &xoff, &xon);
	tap_eq(xoff, 0, "thresholds: buffer equal to its headroom: xoff 0");

	/* xoff 1000 <= MTU: xon floors at 0 */
	rocecc_pfc_thresholds(4000, 1500, 0, &xoff, &xon);
	tap_eq(xoff, 1000, "thresholds: 4000 B, MTU 1500, no delay: xoff 1000");
	tap_eq(xon, 0, "thresholds: xoff below one MTU: xon floors at 0");
	rocecc_pfc_thresholds(4500, 1500, 0, &xoff, &xon);
	tap_eq(xoff, 1500, "thresholds: xoff exactly one MTU");
	tap_eq(xon, 0, "thresholds: ... xon 0");
	rocecc_pfc_thresholds(4501, 1500, 0, &xoff, &xon);
	tap_eq(xon, 1, "thresholds: xoff one byte above the MTU: xon 1");

	/* no 32-bit overflow of the headroom */
	rocecc_pfc_thresholds(0xffffffffU, 9000, 0xffffffffU, &xoff, &xon);
	tap_eq(xoff, 0xffffffffULL - 536870912 - 18000,
	       "thresholds: 4 GB buffer, 2^32-1 bits of delay: no overflow");
}

static void test_dscp(void)
{
	tap_eq(rocecc_dscp_prio_default(26), 3, "DSCP 26 (RoCE) -> priority 3");
	tap_eq(rocecc_dscp_prio_default(46), 5, "DSCP 46 (EF) -> priority 5");
	tap_eq(rocecc_dscp_prio_default(48), 6, "DSCP 48 (CNP) -> priority 6");
	tap_eq(rocecc_dscp_prio_default(0), 0, "DSCP 0 -> priority 0");
	tap_eq(rocecc_dscp_prio_default(63), 7, "DSCP 63 -> priority 7");
	tap_eq(rocecc_dscp_prio_default(104 >> 2), 3,
	       "traffic class 104 (DSCP 26, Not-ECT) -> priority 3");
}

/* --- XOFF/XON generation ---------------------------------------------------- */

#define NS_MS		1000000ULL
#define XOFF0		10000U
#define XON0		9000U

struct gen {
	struct rocecc_pfc_gen_buf s[ROCECC_PFC_BUFS];
	struct rocecc_pfc_gen_in in;
	struct rocecc_pfc_gen_out out;
};

/* Buffer 0 holds priority 3 (PFC on), xoff 10000, xon 9000; 10 Gb/s. */
static void gen_init(struct gen *g)
{
	int b;

	memset(g, 0, sizeof(*g));
	for (b = 0; b < ROCECC_PFC_BUFS; b++) {
		g->in.xoff[b] = XOFF0;
		g->in.xon[b] = XON0;
	}
	g->in.prios[0] = 0x08;
	g->in.now = 1000 * NS_MS;
	g->in.pause_ns = rocecc_pfc_quanta_ns(ROCECC_PFC_QUANTA_MAX, 10000);
}

/* One run at @now with buffer 0 at @occ. */
static void gen_run(struct gen *g, uint64_t now, uint32_t occ)
{
	g->in.now = now;
	g->in.occ[0] = occ;
	rocecc_pfc_gen(g->s, &g->in, &g->out);
	g->in.crossed = 0;	/* the caller takes the latch */
}

/* The frame and timer of the last run, in one line for the assertion. */
static int gen_is(const struct gen *g, uint8_t xoff, uint8_t xon,
		  uint8_t mask, bool again, uint64_t next)
{
	const struct rocecc_pfc_gen_out *o = &g->out;

	if (o->xoff == xoff && o->xon == xon && o->paused_mask == mask &&
	    o->again == again && o->next == next)
		return 1;
	tap_diag("got xoff 0x%02x xon 0x%02x mask 0x%02x again %d next %llu",
		 o->xoff, o->xon, o->paused_mask, o->again,
		 (unsigned long long)o->next);
	tap_diag("want xoff 0x%02x xon 0x%02x mask 0x%02x again %d next %llu",
		 xoff, xon, mask, again, (unsigned long long)next);
	return 0;
}

static void test_gen_hysteresis(void)
{
	struct gen g;
	uint64_t t = 1000 * NS_MS, half;

	gen_init(&g);
	half = g.in.pause_ns / 2;
	tap_eq(half, 1677696, "a 65535-quanta pause at 10 Gb/s: refresh every 1.68 ms");

	gen_run(&g, t, 0);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0), "empty: no frame, no timer");
	gen_run(&g, t, XOFF0 - 1);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0), "one byte below xoff: no frame");
	gen_run(&g, t, XOFF0);
	tap_ok(gen_is(&g, 0x08, 0, 0x01, false, t + half),
	       "at xoff: XOFF for priority 3, refresh at half the pause");
	tap_eq(g.s[0].paused, 0x08, "buffer 0 records priority 3 paused");

	gen_run(&g, t + 1000, XOFF0 + 5000);
	tap_ok(gen_is(&g, 0, 0, 0x01, false, t + half),
	       "still above xoff before the refresh: no frame, same timer");
	gen_run(&g, t + half - 1, XON0 + 1);
	tap_ok(gen_is(&g, 0, 0, 0x01, false, t + half),
	       "between xon and xoff, 1 ns before the refresh: no frame");
	gen_run(&g, t + half, XON0 + 1);
	tap_ok(gen_is(&g, 0x08, 0, 0x01, false, t + 2 * half),
	       "at the refresh, above xon: XOFF again, next refresh half a pause on");
	gen_run(&g, t + half + 10, XON0);
	tap_ok(gen_is(&g, 0, 0x08, 0, false, 0), "at xon: XON, no timer");
	tap_eq(g.s[0].paused, 0, "buffer 0 no longer paused");
	gen_run(&g, t + half + 20, XON0);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0), "at xon again: no second XON");
	gen_run(&g, t + half + 30, XOFF0 - 1);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0),
	       "back above xon but below xoff: no XOFF (hysteresis)");
}

static void test_gen_latch(void)
{
	struct gen g;
	uint64_t t = 1000 * NS_MS, half;

	gen_init(&g);
	half = g.in.pause_ns / 2;
	/* The burst reached xoff and rxe drained it before the run. */
	g.in.crossed = 0x01;
	gen_run(&g, t, 0);
	tap_ok(gen_is(&g, 0x08, 0, 0x01, true, t + half),
	       "latched, drained: XOFF now, and run again");
	gen_run(&g, t + 1, 0);
	tap_ok(gen_is(&g, 0, 0x08, 0, false, 0), "the next run: the XON");

	/* Latched but drained only to above xon: XOFF, no early rerun. */
	g.in.crossed = 0x01;
	gen_run(&g, t + 2, XON0 + 1);
	tap_ok(gen_is(&g, 0x08, 0, 0x01, false, t + 2 + half),
	       "latched, still above xon: XOFF without a rerun");

	/* A latch on a buffer without PFC priorities sends nothing. */
	gen_init(&g);
	g.in.crossed = 0x02;
	gen_run(&g, t, 0);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0), "latch on a buffer without PFC: nothing");

	/* A latch on a paused buffer changes nothing. */
	gen_init(&g);
	gen_run(&g, t, XOFF0);
	g.in.crossed = 0x01;
	gen_run(&g, t + 10, XOFF0);
	tap_ok(gen_is(&g, 0, 0, 0x01, false, t + half),
	       "latch on a paused buffer before its refresh: no frame");
}

static void test_gen_edges(void)
{
	struct gen g;
	uint64_t t = 1000 * NS_MS, half;

	/* A buffer smaller than its headroom: xoff = xon = 0. */
	gen_init(&g);
	half = g.in.pause_ns / 2;
	g.in.xoff[0] = 0;
	g.in.xon[0] = 0;
	gen_run(&g, t, 0);
	tap_ok(gen_is(&g, 0, 0, 0, false, 0), "xoff 0, empty: nothing");
	gen_run(&g, t, 1);
	tap_ok(gen_is(&g, 0x08, 0, 0x01, false, t + half), "xoff 0, one byte: XOFF");
	gen_run(&g, t + 1, 0);
	tap_ok(gen_is(&g, 0, 0x08, 0, false, 0), "xoff 0, drained: XON");

	tap_ok(!rocecc_pfc_at_xoff(0, 0), "at_xoff: never while empty");
	tap_ok(rocecc_pfc_at_xoff(XOFF0, XOFF0), "at_xoff: at xoff");
	tap_ok(!rocecc_pfc_at_xoff(XOFF0 - 1, XOFF0), "at_xoff: not below");
	tap_ok(rocecc_pfc_at_xon(XON0, XON0), "at_xon: at xon");
	tap_ok(!rocecc_pfc_at_xon(XON0 + 1, XON0), "at_xon: not above");
}

static void test_gen_prios(void)
{
	struct gen g;
	uint64_t t = 1000 * NS_MS, half;

	gen_init(&g);
	half = g.in.pause_ns / 2;
	gen_run(&g, t, XOFF0);

	/* Priority 4 joins the paused buffer: paused at once. */
	g.in.prios[0] = 0x18;
	gen_run(&g, t + 10, XOFF0);
	tap_ok(gen_is(&g, 0x18, 0, 0x01, false, t + 10 + half),
	       "a priority joins a paused buffer: XOFF for both, refresh restarts");
	/* Priority 4 leaves again: resumed, the rest not refreshed early. */
	g.in.prios[0] = 0x08;
	gen_run(&g, t + 20, XOFF0);
	tap_ok(gen_is(&g, 0, 0x10, 0x01, false, t + 10 + half),
	       "a priority leaves a paused buffer: XON for it alone");
	/* PFC off for the last one: XON although the buffer is full. */
	g.in.prios[0] = 0;
	gen_run(&g, t + 30, XOFF0);
	tap_ok(gen_is(&g, 0, 0x08, 0, false, 0),
	       "PFC off on a full paused buffer: XON");

	/* Two buffers: the earlier refresh wins; one frame for both. */
	gen_init(&g);
	g.in.prios[1] = 0x10;
	g.in.occ[1] = XOFF0;
	gen_run(&g, t, 0);
	tap_ok(gen_is(&g, 0x10, 0, 0x02, false, t + half),
	       "buffer 1 at xoff, buffer 0 empty: XOFF for priority 4 only");
	gen_run(&g, t + 100, XOFF0);
	tap_ok(gen_is(&g, 0x08, 0, 0x03, false, t + half),
	       "buffer 0 follows: XOFF for priority 3 alone, the earlier refresh first");
	gen_run(&g, t + half, XOFF0);
	tap_ok(gen_is(&g, 0x10, 0, 0x03, false, t + 100 + half),
	       "buffer 1's refresh: XOFF priority 4, then buffer 0's timer");

	/* Priority 3 moves from paused buffer 0 to paused buffer 1. */
	g.in.prios[0] = 0;
	g.in.prios[1] = 0x18;
	gen_run(&g, t + half + 1, XOFF0);
	tap_ok(gen_is(&g, 0x18, 0, 0x02, false, t + half + 1 + half),
	       "a priority moves between paused buffers: stays paused, no XON");
	tap_eq(rocecc_pfc_gen_release(g.s), 0x18,
	       "release: the priorities still paused");
	tap_eq(g.s[1].paused | g.s[0].paused, 0, "release clears every buffer");
	tap_eq(rocecc_pfc_gen_release(g.s), 0, "release twice: nothing left");
}

int main(void)
{
	test_build();
	test_parse();
	test_time();
	test_dmac_bound();
	test_thresholds();
	test_dscp();
	test_gen_hysteresis();
	test_gen_latch();
	test_gen_edges();
	test_gen_prios();
	return tap_done();
}
