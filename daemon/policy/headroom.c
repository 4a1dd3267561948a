// SPDX-License-Identifier: GPL-2.0
/*
 * PFC headroom calculator: the 802.1Qbb delay model and, for comparison,
 * the mlx5 driver's and SONiC's formulas (model, units and sources in
 * headroom.h).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "headroom.h"

/* Per-speed defaults, bit times (sources in headroom.h). */
static const struct {
	unsigned int speed_mbps;
	unsigned int peer_resp_quanta;	/* IEEE 802.3 31B.3.7, via SONiC */
	unsigned int intf_delay_bits;	/* one end, tx + rx */
} defaults[] = {
	{  10000,  67,   8192 },
	{  25000,  80,   6144 },
	{  40000, 118,  24576 },
	{  50000, 147,  61440 },	/* intf: estimate, 1228.8 ns */
	{ 100000, 394, 122880 },
	{ 200000, 453, 245760 },	/* intf: estimate, 1228.8 ns */
	{ 400000, 905, 491520 },	/* intf: estimate, 1228.8 ns */
};

/* SONiC's pause_quanta_per_speed (buffer_headroom_mellanox.lua). */
static const struct {
	unsigned int speed_mbps;
	unsigned int quanta;
} sonic_quanta[] = {
	{ 400000, 905 }, { 200000, 453 }, { 100000, 394 }, { 50000, 147 },
	{ 40000, 118 }, { 25000, 80 }, { 10000, 67 }, { 1000, 2 }, { 100, 1 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static uint64_t roundup_u64(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* ceil() of a finite x >= 0 that fits in 64 bits, without libm. */
static uint64_t ceil_u64(double x)
{
	uint64_t t = (uint64_t)x;

	return t + ((double)t < x);
}

static const char *const term_names[HEADROOM_NTERMS] = {
	"own_frame", "pfc_frame", "intf_delay", "cable", "peer_resp",
	"peer_frame",
};

const char *headroom_term_name(unsigned int i)
{
	return i < HEADROOM_NTERMS ? term_names[i] : NULL;
}

uint64_t headroom_term_bits(const struct headroom_result *r, unsigned int i)
{
	const uint64_t terms[HEADROOM_NTERMS] = {
		r->own_frame, r->pfc_frame, r->intf_delay, r->cable,
		r->peer_resp, r->peer_frame,
	};

	return i < HEADROOM_NTERMS ? terms[i] : 0;
}

int headroom_defaults(unsigned int speed_mbps, unsigned int *peer_resp_bits,
		      unsigned int *intf_delay_bits)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		if (defaults[i].speed_mbps != speed_mbps)
			continue;
		if (peer_resp_bits)
			*peer_resp_bits = defaults[i].peer_resp_quanta *
					  HEADROOM_PAUSE_QUANTUM;
		if (intf_delay_bits)
			*intf_delay_bits = defaults[i].intf_delay_bits;
		return 0;
	}
	return -ENODATA;
}

static int frame_ok(unsigned int bytes)
{
	return bytes >= HEADROOM_MTU_MIN && bytes <= HEADROOM_MTU_MAX;
}

static int cable_ok(double m)
{
	return isfinite(m) && m >= 0 && m <= HEADROOM_CABLE_MAX;
}

int headroom_calc(const struct headroom_params *p, struct headroom_result *r)
{
	unsigned int resp = p->peer_resp_bits, intf = p->intf_delay_bits;
	unsigned int tx_frame = p->tx_max_frame ? p->tx_max_frame : p->mtu;
	unsigned int pfc = p->pfc_frame ? p->pfc_frame : HEADROOM_PFC_FRAME;
	unsigned int cell = p->cell ? p->cell : HEADROOM_CELL;
	double ns_per_m = p->ns_per_m != 0 ? p->ns_per_m : HEADROOM_NS_PER_M;
	struct headroom_result res = { 0 };

	if (!p->speed_mbps || p->speed_mbps > HEADROOM_SPEED_MAX ||
	    !frame_ok(p->mtu) || !frame_ok(tx_frame) || !cable_ok(p->cable_m) ||
	    !isfinite(ns_per_m) || ns_per_m < HEADROOM_NS_PER_M_MIN ||
	    ns_per_m > HEADROOM_NS_PER_M_MAX || cell > HEADROOM_CELL_MAX ||
	    !frame_ok(pfc) || p->xon_gap > HEADROOM_XON_GAP_MAX)
		return -EINVAL;
	if (!resp || !intf) {
		unsigned int d_resp, d_intf;

		if (headroom_defaults(p->speed_mbps, &d_resp, &d_intf))
			return -ENODATA;
		if (!resp)
			resp = d_resp;
		if (!intf)
			intf = d_intf;
	}

	res.own_frame = (uint64_t)(tx_frame + HEADROOM_WIRE_OVERHEAD) * 8;
	res.pfc_frame = (uint64_t)(pfc + HEADROOM_WIRE_OVERHEAD) * 8;
	res.intf_delay = 2 * (uint64_t)intf;
	/* ns * (Mb/s) / 1000 = bits; at most 2e4 m * 10 ns * 1.6e6 / 1e3 */
	res.cable = ceil_u64(2 * p->cable_m * ns_per_m * p->speed_mbps / 1000);
	res.peer_resp = resp;
	res.peer_frame = (uint64_t)(p->mtu + HEADROOM_WIRE_OVERHEAD) * 8;
	res.total_bits = res.own_frame + res.pfc_frame + res.intf_delay +
			 res.cable + res.peer_resp + res.peer_frame;
	res.total_bytes = (res.total_bits + 7) / 8;

	res.cell = cell;
	res.xoff = roundup_u64(res.total_bytes, cell);
	res.xon_gap = p->xon_gap ? roundup_u64(p->xon_gap, cell) :
				   roundup_u64(p->mtu, cell);
	res.reserve = roundup_u64(p->mtu, cell);
	res.size = res.xoff + res.xon_gap + res.reserve;
	res.xoff_thresh = res.size - res.xoff;
	res.xon_thresh = res.xoff_thresh - res.xon_gap;
	*r = res;
	return 0;
}

int headroom_mlx5(unsigned int speed_mbps, unsigned int cable_m,
		  unsigned int mtu, unsigned int max_mtu, unsigned int cell,
		  struct headroom_mlx5 *r)
{
	uint64_t speed;

	if (!speed_mbps || speed_mbps > HEADROOM_SPEED_MAX ||
	    cable_m >= HEADROOM_MLX5_MAX_CABLE || !frame_ok(mtu) ||
	    max_mtu > HEADROOM_MTU_MAX || cell > HEADROOM_CELL_MAX)
		return -EINVAL;
	if (!cell)
		cell = HEADROOM_CELL;
	if (max_mtu < HEADROOM_MLX5_MIN_MAX_MTU)
		max_mtu = HEADROOM_MLX5_MIN_MAX_MTU;
	speed = speed_mbps < HEADROOM_MLX5_MIN_SPEED ?
		HEADROOM_MLX5_MIN_SPEED : speed_mbps;

	r->speed_mbps = speed;
	/* the driver's order of integer operations (each division truncates) */
	r->xoff = (301 + 216 * (uint64_t)cable_m / 100) * speed / 1000 +
		  272 * (uint64_t)mtu / 100;
	r->xon_gap = max_mtu;
	r->min_size = r->xoff + max_mtu + cell;
	return 0;
}

int headroom_sonic(const struct headroom_sonic_params *p,
		   struct headroom_sonic *r)
{
	struct headroom_sonic res = { 0 };
	double cell = p->cell, resp = p->peer_response, xoff;
	size_t i;

	if (!p->speed_mbps || p->speed_mbps > HEADROOM_SPEED_MAX ||
	    !cable_ok(p->cable_m) || !frame_ok(p->port_mtu) ||
	    !frame_ok(p->lossless_mtu) || p->small_packet_pct > 100 ||
	    !p->cell || p->cell > HEADROOM_CELL_MAX ||
	    !isfinite(p->mac_phy_delay) || p->mac_phy_delay < 0 ||
	    !isfinite(p->pipeline_latency) || p->pipeline_latency < 0 ||
	    !isfinite(resp) || resp < 0)
		return -EINVAL;
	if (resp == 0) {
		for (i = 0; i < ARRAY_SIZE(sonic_quanta); i++)
			if (sonic_quanta[i].speed_mbps == p->speed_mbps)
				break;
		if (i == ARRAY_SIZE(sonic_quanta))
			return -ENODATA;
		resp = sonic_quanta[i].quanta * 512.0 / 8;
	}
	/* the plugin doubles it at 400G, also when taken from ASIC_TABLE */
	if (p->speed_mbps == 400000)
		resp *= 2;

	if (p->cell > 2 * 64)
		res.worst_case_factor = cell / 64;
	else
		res.worst_case_factor = 2 * cell / (1 + cell);
	res.cell_occupancy = (100 - p->small_packet_pct +
			      p->small_packet_pct * res.worst_case_factor) / 100;
	/* the plugin's expression, including its / (8 * 1024) */
	res.bytes_on_cable = 2 * p->cable_m * p->speed_mbps * 1e9 /
			     198000000 / (8 * 1024);
	res.peer_response = resp;
	res.propagation = p->port_mtu + res.bytes_on_cable + p->mac_phy_delay +
			  resp;	/* + 2 * bytes_on_gearbox, taken as 0 */
	xoff = p->lossless_mtu + res.propagation * res.cell_occupancy;
	res.xoff = ceil_u64(xoff / 1024) * 1024;
	res.xon = ceil_u64(p->pipeline_latency / 1024) * 1024;
	res.size = res.xon + res.xoff;
	*r = res;
	return 0;
}
