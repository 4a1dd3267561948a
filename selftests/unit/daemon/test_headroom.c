// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PFC headroom calculator (daemon/policy/headroom.c): worked
 * examples of the 802.1Qbb model computed by hand below, the mlx5 and SONiC
 * formulas on the same cases, monotonicity, rounding to cells and refused
 * input.
 *
 * Conventions of the hand arithmetic: BT = bit times; at S Mb/s one ns is
 * S / 1000 BT (25G: 25 BT/ns, 100G: 100, 400G: 400); a frame of F bytes
 * takes (F + 20) * 8 BT with preamble, SFD and IFG. Default cell 128 B.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "policy/headroom.h"
#include "tap.h"

/* The three models side by side on one case, as a CLI would print them. */
struct trio {
	struct headroom_result q;	/* 802.1Qbb */
	struct headroom_mlx5 m;
	struct headroom_sonic s;
};

/*
 * SONiC parameters for the comparison: Spectrum-2/3 (cell 144 B,
 * mac_phy_delay 0.8 KB, pipeline_latency 18 KB, from sonic-buildimage's
 * Mellanox asic_table.j2), small_packet_percentage 50 (the current
 * default), port MTU = lossless MTU = the case's MTU.
 */
static int calc_trio(unsigned int speed, unsigned int cable, unsigned int mtu,
		     struct trio *t)
{
	struct headroom_params p = {
		.speed_mbps = speed, .mtu = mtu, .cable_m = cable,
	};
	struct headroom_sonic_params sp = {
		.speed_mbps = speed, .cable_m = cable, .port_mtu = mtu,
		.lossless_mtu = mtu, .small_packet_pct = 50, .cell = 144,
		.mac_phy_delay = 0.8 * 1024, .pipeline_latency = 18 * 1024,
	};

	return headroom_calc(&p, &t->q) ||
	       headroom_mlx5(speed, cable, mtu, 9216, 128, &t->m) ||
	       headroom_sonic(&sp, &t->s);
}

static void test_defaults(void)
{
	unsigned int resp = 0, intf = 0;

	tap_ok(!headroom_defaults(25000, &resp, &intf),
	       "defaults: 25G known");
	/* 80 quanta * 512 = 40960 BT */
	tap_eq(resp, 40960, "defaults: 25G peer response 80 quanta");
	tap_eq(intf, 6144, "defaults: 25G interface delay");
	headroom_defaults(100000, &resp, &intf);
	/* 394 * 512 = 201728 BT (the textbook's value too) */
	tap_eq(resp, 201728, "defaults: 100G peer response 394 quanta");
	tap_eq(intf, 122880, "defaults: 100G interface delay");
	headroom_defaults(400000, &resp, &intf);
	/* 905 * 512 = 463360 BT; intf estimate 1228.8 ns * 400 BT/ns */
	tap_eq(resp, 463360, "defaults: 400G peer response 905 quanta");
	tap_eq(intf, 491520, "defaults: 400G interface delay (estimate)");
	tap_eq(headroom_defaults(800000, &resp, NULL), -ENODATA,
	       "defaults: none for 800G");
	tap_eq(headroom_defaults(0, NULL, NULL), -ENODATA,
	       "defaults: none for speed 0");
}

/* 25G, 1500 B, 3 m: every term. */
static void test_25g(void)
{
	struct headroom_params p = {
		.speed_mbps = 25000, .mtu = 1500, .cable_m = 3,
	};
	struct headroom_result r;

	tap_ok(!headroom_calc(&p, &r), "25G/1500/3m: computed");
	/* own frame: (1500 + 20) * 8 = 12160 BT */
	tap_eq(r.own_frame, 12160, "25G/1500/3m: own frame");
	/* PFC frame: (64 + 20) * 8 = 672 BT */
	tap_eq(r.pfc_frame, 672, "25G/1500/3m: PFC frame");
	/* interface: 2 ends * 6144 = 12288 BT */
	tap_eq(r.intf_delay, 12288, "25G/1500/3m: interface delay");
	/* cable: 2 * 3 m * 5 ns/m = 30 ns * 25 BT/ns = 750 BT */
	tap_eq(r.cable, 750, "25G/1500/3m: cable");
	/* peer response: 80 quanta * 512 = 40960 BT */
	tap_eq(r.peer_resp, 40960, "25G/1500/3m: peer response");
	/* peer's frame: (1500 + 20) * 8 = 12160 BT */
	tap_eq(r.peer_frame, 12160, "25G/1500/3m: peer frame");
	/* 12160 + 672 + 12288 + 750 + 40960 + 12160 = 78990 BT */
	tap_eq(r.total_bits, 78990, "25G/1500/3m: total bits");
	/* 78990 / 8 = 9873.75 -> 9874 B */
	tap_eq(r.total_bytes, 9874, "25G/1500/3m: total bytes rounded up");
	/* 9874 / 128 = 77.1 -> 78 cells * 128 = 9984 B */
	tap_eq(r.xoff, 9984, "25G/1500/3m: xoff (headroom)");
	/* xon gap and reserve: roundup(1500, 128) = 12 * 128 = 1536 B */
	tap_eq(r.xon_gap, 1536, "25G/1500/3m: xon gap one MTU");
	tap_eq(r.reserve, 1536, "25G/1500/3m: reserve one MTU");
	/* size 9984 + 1536 + 1536 = 13056; xoff_thresh 3072, xon 1536 */
	tap_eq(r.size, 13056, "25G/1500/3m: buffer size");
	tap_eq(r.xoff_thresh, 3072, "25G/1500/3m: xoff threshold");
	tap_eq(r.xon_thresh, 1536, "25G/1500/3m: xon threshold");
}

/* The term accessors a CLI prints the breakdown with. */
static void test_terms(void)
{
	struct headroom_params p = {
		.speed_mbps = 25000, .mtu = 1500, .cable_m = 3,
	};
	struct headroom_result r;
	uint64_t sum = 0;
	unsigned int i;

	headroom_calc(&p, &r);
	for (i = 0; i < HEADROOM_NTERMS; i++)
		sum += headroom_term_bits(&r, i);
	tap_eq(sum, r.total_bits, "terms: sum to total_bits");
	tap_ok(!strcmp(headroom_term_name(0), "own_frame") &&
	       !strcmp(headroom_term_name(3), "cable") &&
	       !strcmp(headroom_term_name(5), "peer_frame"),
	       "terms: names");
	tap_eq(headroom_term_bits(&r, 3), 750, "terms: term 3 is the cable");
	tap_ok(!headroom_term_name(HEADROOM_NTERMS) &&
	       !headroom_term_bits(&r, HEADROOM_NTERMS),
	       "terms: out of range");
}

/* 100G, 4096 B, 5 m. */
static void test_100g_4096(void)
{
	struct headroom_params p = {
		.speed_mbps = 100000, .mtu = 4096, .cable_m = 5,
	};
	struct headroom_result r;

	tap_ok(!headroom_calc(&p, &r), "100G/4096/5m: computed");
	/* frames: (4096 + 20) * 8 = 32928 BT each */
	tap_eq(r.own_frame, 32928, "100G/4096/5m: own frame");
	/* interface: 2 * 122880 = 245760 BT */
	tap_eq(r.intf_delay, 245760, "100G/4096/5m: interface delay");
	/* cable: 2 * 5 * 5 = 50 ns * 100 BT/ns = 5000 BT */
	tap_eq(r.cable, 5000, "100G/4096/5m: cable");
	/*
	 * 32928 + 672 + 245760 + 5000 + 201728 + 32928 = 519016 BT
	 * = 64877 B exactly; 64877 / 128 = 506.9 -> 507 * 128 = 64896 B
	 */
	tap_eq(r.total_bits, 519016, "100G/4096/5m: total bits");
	tap_eq(r.xoff, 64896, "100G/4096/5m: xoff");
	/* size 64896 + 4096 + 4096 = 73088 */
	tap_eq(r.size, 73088, "100G/4096/5m: buffer size");
	tap_eq(r.xon_thresh, 4096, "100G/4096/5m: xon threshold");
}

/* 100G, 9216 B, 100 m. */
static void test_100g_9216(void)
{
	struct headroom_params p = {
		.speed_mbps = 100000, .mtu = 9216, .cable_m = 100,
	};
	struct headroom_result r;

	tap_ok(!headroom_calc(&p, &r), "100G/9216/100m: computed");
	/* frames: (9216 + 20) * 8 = 73888 BT each (the textbook's value) */
	tap_eq(r.peer_frame, 73888, "100G/9216/100m: peer frame");
	/* cable: 2 * 100 * 5 = 1000 ns * 100 BT/ns = 100000 BT */
	tap_eq(r.cable, 100000, "100G/9216/100m: cable");
	/*
	 * 73888 + 672 + 245760 + 100000 + 201728 + 73888 = 695936 BT
	 * = 86992 B; 86992 / 128 = 679.6 -> 680 * 128 = 87040 B
	 */
	tap_eq(r.total_bits, 695936, "100G/9216/100m: total bits");
	tap_eq(r.xoff, 87040, "100G/9216/100m: xoff");
	/* 9216 = 72 cells: size 87040 + 9216 + 9216 = 105472 */
	tap_eq(r.size, 105472, "100G/9216/100m: buffer size");
}

/* 400G, 9216 B, 300 m. */
static void test_400g(void)
{
	struct headroom_params p = {
		.speed_mbps = 400000, .mtu = 9216, .cable_m = 300,
	};
	struct headroom_result r;

	tap_ok(!headroom_calc(&p, &r), "400G/9216/300m: computed");
	/* interface: 2 * 491520 = 983040 BT (estimate, see headroom.h) */
	tap_eq(r.intf_delay, 983040, "400G/9216/300m: interface delay");
	/* cable: 2 * 300 * 5 = 3000 ns * 400 BT/ns = 1200000 BT */
	tap_eq(r.cable, 1200000, "400G/9216/300m: cable");
	/* peer response: 905 * 512 = 463360 BT */
	tap_eq(r.peer_resp, 463360, "400G/9216/300m: peer response");
	/*
	 * 73888 + 672 + 983040 + 1200000 + 463360 + 73888 = 2794848 BT
	 * = 349356 B; / 128 = 2729.3 -> 2730 * 128 = 349440 B
	 */
	tap_eq(r.total_bits, 2794848, "400G/9216/300m: total bits");
	tap_eq(r.xoff, 349440, "400G/9216/300m: xoff");
	/* size 349440 + 9216 + 9216 = 367872 */
	tap_eq(r.size, 367872, "400G/9216/300m: buffer size");
}

/* The mlx5 formula on the four cases, in the driver's integer steps. */
static void test_mlx5(void)
{
	struct headroom_mlx5 m;

	/*
	 * 25G is floored to 40G: 216 * 3 / 100 = 6 (6.48 truncated);
	 * (301 + 6) * 40000 / 1000 = 12280; 272 * 1500 / 100 = 4080;
	 * xoff = 16360 (exact reals would give 16379.2)
	 */
	tap_ok(!headroom_mlx5(25000, 3, 1500, 0, 0, &m), "mlx5 25G: computed");
	tap_eq(m.speed_mbps, 40000, "mlx5 25G: speed floored at 40G");
	tap_eq(m.xoff, 16360, "mlx5 25G/1500/3m: xoff");
	/* max_mtu 0 -> 9216; min size 16360 + 9216 + 128 = 25704 */
	tap_eq(m.min_size, 25704, "mlx5 25G/1500/3m: minimum buffer size");
	/* 216 * 5 / 100 = 10; 311 * 100 = 31100; 272 * 4096 / 100 = 11141 */
	headroom_mlx5(100000, 5, 4096, 9216, 128, &m);
	tap_eq(m.xoff, 42241, "mlx5 100G/4096/5m: xoff");
	/* 216; 517 * 100 = 51700; 272 * 9216 / 100 = 25067 */
	headroom_mlx5(100000, 100, 9216, 9216, 128, &m);
	tap_eq(m.xoff, 76767, "mlx5 100G/9216/100m: xoff");
	tap_eq(m.min_size, 86111, "mlx5 100G/9216/100m: min size +9216+128");
	/* 648; 949 * 400 = 379600; + 25067 = 404667 */
	headroom_mlx5(400000, 300, 9216, 9978, 128, &m);
	tap_eq(m.xoff, 404667, "mlx5 400G/9216/300m: xoff");
	/* a larger netdev max_mtu (9978) is the xon gap */
	tap_eq(m.xon_gap, 9978, "mlx5: xon gap is max_mtu");
	tap_eq(m.min_size, 404667 + 9978 + 128, "mlx5: min size");
}

/* SONiC's Mellanox plugin on the four cases (parameters at calc_trio()). */
static void test_sonic(void)
{
	struct headroom_sonic_params sp = {
		.speed_mbps = 25000, .cable_m = 3, .port_mtu = 1500,
		.lossless_mtu = 1500, .small_packet_pct = 50, .cell = 144,
		.mac_phy_delay = 819.2, .pipeline_latency = 18432,
	};
	struct headroom_sonic s;

	tap_ok(!headroom_sonic(&sp, &s), "sonic 25G: computed");
	/* cell 144 > 128: factor 144 / 64 = 2.25; (50 + 50 * 2.25) / 100 */
	tap_ok(s.cell_occupancy == 1.625, "sonic: occupancy 1.625 (cell 144)");
	/* 80 quanta * 512 / 8 = 5120 B */
	tap_ok(s.peer_response == 5120, "sonic 25G: peer response 5120 B");
	/* 2 * 3 * 25000 * 1e9 / 1.98e8 / 8192 = 92.48 B */
	tap_ok(fabs(s.bytes_on_cable - 92.4775) < 0.001,
	       "sonic 25G/3m: bytes on cable 92.48");
	/*
	 * propagation 1500 + 92.48 + 819.2 + 5120 = 7531.68;
	 * xoff 1500 + 7531.68 * 1.625 = 13738.98 -> 14 KB = 14336
	 */
	tap_eq(s.xoff, 14336, "sonic 25G/1500/3m: xoff");
	/* xon 18 KB; size 18432 + 14336 = 32768 */
	tap_eq(s.xon, 18432, "sonic: xon = pipeline latency");
	tap_eq(s.size, 32768, "sonic 25G/1500/3m: size");

	/*
	 * 100G/4096/5m: cable 2 * 5 * 1e5 * 1e9 / 1.98e8 / 8192 = 616.52;
	 * 394 * 64 = 25216; prop 4096 + 616.52 + 819.2 + 25216 = 30747.72;
	 * 4096 + 30747.72 * 1.625 = 54061.04 -> 53 KB = 54272
	 */
	sp.speed_mbps = 100000;
	sp.cable_m = 5;
	sp.port_mtu = sp.lossless_mtu = 4096;
	headroom_sonic(&sp, &s);
	tap_eq(s.xoff, 54272, "sonic 100G/4096/5m: xoff");
	/*
	 * 100G/9216/100m: cable 12330.33; prop 9216 + 12330.33 + 819.2 +
	 * 25216 = 47581.53; 9216 + 47581.53 * 1.625 = 86535.99 -> 85 KB
	 */
	sp.cable_m = 100;
	sp.port_mtu = sp.lossless_mtu = 9216;
	headroom_sonic(&sp, &s);
	tap_eq(s.xoff, 87040, "sonic 100G/9216/100m: xoff");
	/*
	 * 400G/9216/300m: response doubled 2 * 905 * 64 = 115840; cable
	 * 2 * 300 * 4e5 * 1e9 / 1.98e8 / 8192 = 147964.02; prop 9216 +
	 * 147964.02 + 819.2 + 115840 = 273839.22; 9216 + 273839.22 * 1.625
	 * = 454204.72 -> 444 KB = 454656
	 */
	sp.speed_mbps = 400000;
	sp.cable_m = 300;
	headroom_sonic(&sp, &s);
	tap_ok(s.peer_response == 115840, "sonic 400G: response doubled");
	tap_eq(s.xoff, 454656, "sonic 400G/9216/300m: xoff");

	/* Spectrum-1, cell 96 <= 128: factor 2 * 96 / 97 = 1.9794 */
	sp.cell = 96;
	sp.small_packet_pct = 100;
	headroom_sonic(&sp, &s);
	tap_ok(fabs(s.worst_case_factor - 192.0 / 97) < 1e-12,
	       "sonic: worst-case factor 2 * 96 / 97 for cell 96");
	/* pct 0: occupancy 1, i.e. plain bytes */
	sp.small_packet_pct = 0;
	headroom_sonic(&sp, &s);
	tap_ok(s.cell_occupancy == 1, "sonic: occupancy 1 without small packets");
}

/*
 * 100G, 9216 B, 100 m under the three models:
 *
 *	802.1Qbb (ours)	 fixed 245760 + 201728 + 672 = 448160 BT = 56020 B
 *			 cable 100000 BT = 12500 B, frames 2 * 9236 = 18472 B
 *			 = 86992 B -> xoff 87040
 *	mlx5		 fixed 301 * 100 = 30100 B, cable 216 * 100 = 21600 B,
 *			 MTU 2.72 * 9216 = 25067 B = 76767
 *	SONiC		 (9216 + 47581.53 * 1.625) -> 87040
 *
 * mlx5 / ours = 76767 / 87040 = 0.88: mlx5's fixed delay (2.41 us) is
 * about half of 802.3's allowances at 100G (4.48 us) but its cable term
 * is 1.73 times ours (17.28 vs 10 ns/m) and its MTU term 1.36 times our
 * two frames. SONiC comes out equal here by coincidence: its raw bytes
 * (9216 + 47581.53 = 56797.53, i.e. 57344 at pct 0) are 0.66 of ours,
 * because its MAC/PHY delay (819 B) is far below 802.3's 2 * 122880 BT
 * (30720 B); the small-packet factor 1.625 brings it back up (86536).
 */
static void test_side_by_side(void)
{
	struct headroom_sonic_params sp = {
		.speed_mbps = 100000, .cable_m = 100, .port_mtu = 9216,
		.lossless_mtu = 9216, .small_packet_pct = 0, .cell = 144,
		.mac_phy_delay = 819.2, .pipeline_latency = 18432,
	};
	struct headroom_sonic s0;
	struct trio t;
	double ratio;

	tap_ok(!calc_trio(100000, 100, 9216, &t), "trio 100G/9216/100m");
	tap_eq((t.q.intf_delay + t.q.peer_resp + t.q.pfc_frame) / 8, 56020,
	       "trio: our fixed delays 56020 B");
	tap_eq(t.q.cable / 8, 12500, "trio: our cable 12500 B");
	tap_eq((t.q.own_frame + t.q.peer_frame) / 8, 18472,
	       "trio: our two frames 18472 B");
	tap_eq(t.m.xoff, 30100 + 21600 + 25067, "trio: mlx5 = 30100+21600+25067");
	ratio = (double)t.m.xoff / t.q.xoff;
	tap_ok(ratio > 0.88 && ratio < 0.89, "trio: mlx5 / 802.1Qbb = %.3f",
	       ratio);
	tap_eq(t.s.xoff, t.q.xoff, "trio: SONiC (pct 50) = 802.1Qbb here");
	headroom_sonic(&sp, &s0);
	tap_eq(s0.xoff, 57344, "trio: SONiC without small-packet factor");
	ratio = (double)s0.xoff / t.q.xoff;
	tap_ok(ratio > 0.65 && ratio < 0.67, "trio: SONiC pct 0 / 802.1Qbb = %.3f",
	       ratio);
	tap_diag("100G/9216/100m xoff: 802.1Qbb %llu, mlx5 %llu, SONiC %llu",
		 (unsigned long long)t.q.xoff, (unsigned long long)t.m.xoff,
		 (unsigned long long)t.s.xoff);
}

static void test_monotonic(void)
{
	static const unsigned int speeds[] = {
		10000, 25000, 40000, 50000, 100000, 200000, 400000,
	};
	struct headroom_params p = { .mtu = 4096 };
	struct headroom_result r;
	uint64_t prev = 0, first = 0;
	int ok = 1, ok_m = 1, ok_s = 1;
	unsigned int i, m;
	struct headroom_mlx5 mx;
	struct headroom_sonic s;
	uint64_t prev_m = 0, prev_s = 0;
	struct headroom_sonic_params sp = {
		.speed_mbps = 100000, .port_mtu = 4096, .lossless_mtu = 4096,
		.small_packet_pct = 50, .cell = 144, .mac_phy_delay = 819.2,
		.pipeline_latency = 18432,
	};

	p.speed_mbps = 100000;
	for (m = 0; m <= 999; m++) {
		p.cable_m = m;
		sp.cable_m = m;
		headroom_calc(&p, &r);
		headroom_mlx5(100000, m, 4096, 0, 0, &mx);
		headroom_sonic(&sp, &s);
		if (!m)
			first = r.xoff;
		ok &= r.xoff >= prev;
		ok_m &= mx.xoff >= prev_m;
		ok_s &= s.xoff >= prev_s;
		prev = r.xoff;
		prev_m = mx.xoff;
		prev_s = s.xoff;
	}
	tap_ok(ok, "monotonic: more cable, never less headroom (0..999 m)");
	/* 999 m adds 2 * 999 * 5 * 100 = 999000 BT = 124875 B */
	tap_ok(prev - first >= 124875 && prev - first < 124875 + 128,
	       "monotonic: 999 m add 124875 B (+ rounding)");
	tap_ok(ok_m, "monotonic: mlx5 in cable length");
	tap_ok(ok_s, "monotonic: SONiC in cable length");

	prev = 0;
	ok = 1;
	p.cable_m = 30;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		p.speed_mbps = speeds[i];
		if (headroom_calc(&p, &r) || r.xoff <= prev)
			ok = 0;
		prev = r.xoff;
	}
	tap_ok(ok, "monotonic: faster link, more headroom (10G..400G)");
}

static void test_rounding(void)
{
	struct headroom_params p = {
		.speed_mbps = 25000, .mtu = 1500, .cable_m = 3,
	};
	struct headroom_result r;

	/* 25G/1500/3m is 9874 B (78990 BT); cell 1: no rounding */
	p.cell = 1;
	headroom_calc(&p, &r);
	tap_eq(r.xoff, 9874, "rounding: cell 1 keeps 9874 B");
	tap_eq(r.size, 9874 + 1500 + 1500, "rounding: cell 1 size");
	/* cell 96: 9874 / 96 = 102.9 -> 103 * 96 = 9888 */
	p.cell = 96;
	headroom_calc(&p, &r);
	tap_eq(r.xoff, 9888, "rounding: cell 96 -> 9888");
	/* 1500 / 96 = 15.6 -> 16 * 96 = 1536 */
	tap_eq(r.reserve, 1536, "rounding: reserve to cells");
	/* cell 256: 38.6 -> 39 * 256 = 9984 */
	p.cell = 256;
	headroom_calc(&p, &r);
	tap_eq(r.xoff, 9984, "rounding: cell 256 -> 9984");
	/* explicit xon gap 3000 B -> 12 cells = 3072; thresholds follow */
	p.xon_gap = 3000;
	headroom_calc(&p, &r);
	tap_eq(r.xon_gap, 3072, "rounding: xon gap to cells");
	tap_eq(r.xoff_thresh - r.xon_thresh, 3072, "thresholds: hysteresis");
	tap_eq(r.size - r.xoff_thresh, r.xoff, "thresholds: headroom above xoff");
	/* cable of 0.1 m: 2 * 0.1 * 5 * 25 = 25 BT */
	p.cell = 0;
	p.xon_gap = 0;
	p.cable_m = 0.1;
	headroom_calc(&p, &r);
	tap_eq(r.cable, 25, "fractional cable 0.1 m = 25 BT");
}

static void test_overrides(void)
{
	struct headroom_params p = {
		.speed_mbps = 800000, .mtu = 4096, .cable_m = 10,
	};
	struct headroom_result r;

	tap_eq(headroom_calc(&p, &r), -ENODATA,
	       "800G without delays: -ENODATA");
	p.peer_resp_bits = 1000000;
	tap_eq(headroom_calc(&p, &r), -ENODATA,
	       "800G with only peer response: -ENODATA");
	p.intf_delay_bits = 900000;
	tap_ok(!headroom_calc(&p, &r), "800G with both delays: computed");
	/* 32928 + 672 + 1800000 + 2*10*5*800 = 80000 + 1000000 + 32928 */
	tap_eq(r.total_bits, 32928 + 672 + 1800000 + 80000 + 1000000 + 32928,
	       "800G: total from given delays");
	/* a 9216 B jumbo of another priority ahead of our PFC frame */
	p.tx_max_frame = 9216;
	headroom_calc(&p, &r);
	tap_eq(r.own_frame, 73888, "tx_max_frame: own frame 9216 B");
	tap_eq(r.peer_frame, 32928, "tx_max_frame: peer frame stays 4096 B");
	/* slower medium: 10 ns/m doubles the cable term */
	p.ns_per_m = 10;
	headroom_calc(&p, &r);
	tap_eq(r.cable, 160000, "ns_per_m 10: 2 * 10 * 10 * 800 BT");
}

static void test_invalid(void)
{
	struct headroom_params ok = {
		.speed_mbps = 100000, .mtu = 4096, .cable_m = 5,
	}, p;
	struct headroom_sonic_params sp = {
		.speed_mbps = 100000, .cable_m = 5, .port_mtu = 4096,
		.lossless_mtu = 4096, .small_packet_pct = 50, .cell = 144,
	};
	struct headroom_result r;
	struct headroom_mlx5 m;
	struct headroom_sonic s;

	memset(&r, 0xa5, sizeof(r));
	p = ok;
	p.speed_mbps = 0;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: speed 0");
	tap_eq(r.xoff, 0xa5a5a5a5a5a5a5a5ULL, "invalid: result untouched");
	p = ok;
	p.speed_mbps = HEADROOM_SPEED_MAX + 1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: speed above 1.6T");
	p = ok;
	p.mtu = 63;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: MTU 63");
	p.mtu = 0;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: MTU 0");
	p.mtu = HEADROOM_MTU_MAX + 1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: MTU 16385");
	p.mtu = 64;
	tap_ok(!headroom_calc(&p, &r), "valid: MTU 64");
	p.mtu = 9216;
	tap_ok(!headroom_calc(&p, &r), "valid: MTU 9216");
	p = ok;
	p.tx_max_frame = 20000;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: tx_max_frame 20000");
	p = ok;
	p.cable_m = -1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: cable -1 m");
	p.cable_m = 10000.5;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: cable > 10 km");
	p.cable_m = NAN;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: cable NaN");
	p.cable_m = 10000;
	tap_ok(!headroom_calc(&p, &r), "valid: cable 10 km");
	p = ok;
	p.ns_per_m = 1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: faster than light");
	p = ok;
	p.cell = HEADROOM_CELL_MAX + 1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: cell too large");
	p = ok;
	p.pfc_frame = 32;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: PFC frame 32 B");
	p = ok;
	p.xon_gap = HEADROOM_XON_GAP_MAX + 1;
	tap_eq(headroom_calc(&p, &r), -EINVAL, "invalid: xon gap too large");

	tap_eq(headroom_mlx5(0, 5, 4096, 0, 0, &m), -EINVAL,
	       "mlx5 invalid: speed 0");
	tap_eq(headroom_mlx5(100000, 1000, 4096, 0, 0, &m), -EINVAL,
	       "mlx5 invalid: cable 1000 m (driver ignores it)");
	tap_eq(headroom_mlx5(100000, 5, 10, 0, 0, &m), -EINVAL,
	       "mlx5 invalid: MTU 10");

	tap_ok(!headroom_sonic(&sp, &s), "sonic valid base case");
	sp.small_packet_pct = 101;
	tap_eq(headroom_sonic(&sp, &s), -EINVAL, "sonic invalid: pct 101");
	sp.small_packet_pct = 50;
	sp.cell = 0;
	tap_eq(headroom_sonic(&sp, &s), -EINVAL, "sonic invalid: cell 0");
	sp.cell = 144;
	sp.speed_mbps = 800000;
	tap_eq(headroom_sonic(&sp, &s), -ENODATA,
	       "sonic: 800G not in its quanta table");
	sp.peer_response = 60000;
	tap_ok(!headroom_sonic(&sp, &s), "sonic: 800G with peer response");
	sp.speed_mbps = 0;
	tap_eq(headroom_sonic(&sp, &s), -EINVAL, "sonic invalid: speed 0");
}

int main(void)
{
	static const unsigned int cases[4][3] = {
		{ 25000, 3, 1500 }, { 100000, 5, 4096 },
		{ 100000, 100, 9216 }, { 400000, 300, 9216 },
	};
	struct trio t;
	unsigned int i;

	test_defaults();
	test_25g();
	test_terms();
	test_100g_4096();
	test_100g_9216();
	test_400g();
	test_mlx5();
	test_sonic();
	test_side_by_side();
	test_monotonic();
	test_rounding();
	test_overrides();
	test_invalid();

	for (i = 0; i < 4; i++) {
		if (calc_trio(cases[i][0], cases[i][1], cases[i][2], &t))
			continue;
		tap_diag("%3uG %4u B %3u m: xoff 802.1Qbb %6llu (size %6llu)  mlx5 %6llu (min size %6llu)  SONiC %6llu (size %6llu)",
			 cases[i][0] / 1000, cases[i][2], cases[i][1],
			 (unsigned long long)t.q.xoff,
			 (unsigned long long)t.q.size,
			 (unsigned long long)t.m.xoff,
			 (unsigned long long)t.m.min_size,
			 (unsigned long long)t.s.xoff,
			 (unsigned long long)t.s.size);
	}
	return tap_done();
}
