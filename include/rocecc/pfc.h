/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc shared code: IEEE 802.1Qbb priority-based flow control (PFC)
 * frames, pause time, the xoff/xon thresholds of a priority buffer, and
 * when to send XOFF and XON (below, "Generating PFC").
 *
 * A PFC frame is a MAC control frame (IEEE 802.3 Annex 31D):
 *
 *   0  destination   01:80:c2:00:00:01 (MAC control, never forwarded)
 *   6  source        the sender's MAC address
 *  12  EtherType     0x8808 (MAC control)
 *  14  opcode        0x0101 (PFC); 0x0001 is the 802.3x PAUSE of the whole
 *                    link, which has one quanta field instead of the vector
 *  16  class-enable  2 bytes; bit p of the low byte (byte 17) set: the time
 *                    field of priority p is valid; the high byte is 0
 *  18  time[0..7]    2 bytes each, pause quanta of priorities 0..7
 *  34  padding       zero, to the 60-byte minimum frame (FCS not counted)
 *
 * One quantum is 512 bit times at the speed of the link that carries the
 * frame; 0 quanta for an enabled priority means "resume now" (XON), any
 * other value "pause that long unless told otherwise" (XOFF).
 */
#ifndef _ROCECC_PFC_H
#define _ROCECC_PFC_H

#include <rocecc/compat.h>

#define ROCECC_PFC_ETHERTYPE	0x8808
#define ROCECC_PFC_OPCODE	0x0101
#define ROCECC_PAUSE_OPCODE	0x0001
#define ROCECC_PFC_PRIOS	8
#define ROCECC_PFC_FRAME_LEN	60	/* without FCS */
#define ROCECC_PFC_PAYLOAD_LEN	20	/* opcode + vector + 8 times */
#define ROCECC_PFC_QUANTUM_BITS	512
#define ROCECC_PFC_QUANTA_MAX	0xffff

/* What a received MAC control frame asks for. */
struct rocecc_pfc_msg {
	__u8	enable;				/* bit p: quanta[p] is valid */
	__u16	quanta[ROCECC_PFC_PRIOS];	/* 0 = XON */
};

static const __u8 rocecc_pfc_dmac[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/*
 * Write a whole PFC frame (ROCECC_PFC_FRAME_LEN bytes, from the destination
 * MAC, no FCS) into @buf. Returns the frame length.
 */
static inline __u32 rocecc_pfc_build(__u8 *buf, const __u8 smac[6],
				     const struct rocecc_pfc_msg *m)
{
	__u32 i;

	for (i = 0; i < ROCECC_PFC_FRAME_LEN; i++)
		buf[i] = 0;
	for (i = 0; i < 6; i++) {
		buf[i] = rocecc_pfc_dmac[i];
		buf[6 + i] = smac[i];
	}
	buf[12] = ROCECC_PFC_ETHERTYPE >> 8;
	buf[13] = ROCECC_PFC_ETHERTYPE & 0xff;
	buf[14] = ROCECC_PFC_OPCODE >> 8;
	buf[15] = ROCECC_PFC_OPCODE & 0xff;
	buf[17] = m->enable;
	for (i = 0; i < ROCECC_PFC_PRIOS; i++) {
		__u16 q = (m->enable & (1u << i)) ? m->quanta[i] : 0;

		buf[18 + 2 * i] = q >> 8;
		buf[19 + 2 * i] = q & 0xff;
	}
	return ROCECC_PFC_FRAME_LEN;
}

#define ROCECC_PFC_PARSE_PFC	0	/* a PFC frame */
#define ROCECC_PFC_PARSE_PAUSE	1	/* 802.3x PAUSE: every priority */
#define ROCECC_PFC_PARSE_OTHER	2	/* another MAC control opcode */
#define ROCECC_PFC_PARSE_SHORT	(-1)	/* truncated */

/*
 * Parse a MAC control frame from its opcode on (@p points just after the
 * EtherType, @len bytes are readable). Fills @m for PFC and PAUSE (a
 * PAUSE is returned as all eight priorities with its one time value).
 * Reserved bits of the class-enable vector are ignored, as 802.1Qbb
 * says a receiver shall.
 */
static inline int rocecc_pfc_parse(const __u8 *p, __u32 len,
				   struct rocecc_pfc_msg *m)
{
	__u16 op;
	__u32 i;

	if (len < 2)
		return ROCECC_PFC_PARSE_SHORT;
	op = (__u16)(p[0] << 8 | p[1]);
	if (op == ROCECC_PAUSE_OPCODE) {
		if (len < 4)
			return ROCECC_PFC_PARSE_SHORT;
		m->enable = 0xff;
		for (i = 0; i < ROCECC_PFC_PRIOS; i++)
			m->quanta[i] = (__u16)(p[2] << 8 | p[3]);
		return ROCECC_PFC_PARSE_PAUSE;
	}
	if (op != ROCECC_PFC_OPCODE)
		return ROCECC_PFC_PARSE_OTHER;
	if (len < ROCECC_PFC_PAYLOAD_LEN)
		return ROCECC_PFC_PARSE_SHORT;
	m->enable = p[3];
	for (i = 0; i < ROCECC_PFC_PRIOS; i++)
		m->quanta[i] = (__u16)(p[4 + 2 * i] << 8 | p[5 + 2 * i]);
	return ROCECC_PFC_PARSE_PFC;
}

/*
 * Is @dmac the address a PFC (or PAUSE) frame a port obeys is sent to,
 * 01:80:c2:00:00:01? 802.1Qbb names it as the only destination of PFC
 * frames; a MAC control frame to another address (a station's unicast
 * address, another reserved group) is not one this port was sent.
 */
static inline int rocecc_pfc_dmac_ok(const __u8 dmac[6])
{
	__u32 i;

	for (i = 0; i < 6; i++)
		if (dmac[i] != rocecc_pfc_dmac[i])
			return 0;
	return 1;
}

/*
 * The pause watchdog's bound: a priority whose continuous pause began at
 * @from and that a frame asks to pause until @until (both ns, @until >
 * @from) stays paused until the returned time, at most @max_ns after
 * @from, whatever the quanta and the link speed. A later XOFF continues
 * the same pause (same @from) if it comes before the pause ended.
 */
static inline __u64 rocecc_pfc_pause_end(__u64 from, __u64 until,
					 __u64 max_ns)
{
	return until - from > max_ns ? from + max_ns : until;
}

/*
 * Pause time of @quanta at @speed_mbps (Mb/s), in ns, rounded up:
 * quanta * 512 bits / speed. 65535 quanta are 3.36 ms at 10 Gb/s and
 * 335 us at 100 Gb/s. @speed_mbps must not be 0.
 */
static inline __u64 rocecc_pfc_quanta_ns(__u16 quanta, __u32 speed_mbps)
{
	__u64 bits = (__u64)quanta * ROCECC_PFC_QUANTUM_BITS;

	return rocecc_div_u64(bits * 1000 + speed_mbps - 1, speed_mbps);
}

/*
 * Quanta that last at least @ns at @speed_mbps, at most ROCECC_PFC_QUANTA_MAX.
 */
static inline __u16 rocecc_pfc_ns_quanta(__u64 ns, __u32 speed_mbps)
{
	__u64 q = rocecc_div_u64(ns * speed_mbps + 512 * 1000 - 1, 512 * 1000);

	return q > ROCECC_PFC_QUANTA_MAX ? ROCECC_PFC_QUANTA_MAX : (__u16)q;
}

/*
 * The thresholds of a priority buffer of @size bytes, in the mlx5 shape
 * (xoff = size - headroom, xon = xoff - MTU):
 *
 *   headroom = ceil(@delay_bits / 8) + 2 * @mtu
 *
 * @delay_bits is the DCB "delay" of the link (struct ieee_pfc: the
 * allowance for the round-trip propagation delay, in bit times); 2 MTU are
 * the frame the peer is sending when our XOFF reaches it and the frame we
 * are receiving when we decide to send the XOFF. Once the buffer holds xoff
 * bytes, the priority is paused; that leaves headroom bytes for what is
 * still in flight. Below xon it is resumed. A buffer smaller than its
 * headroom gets xoff = xon = 0: it pauses as soon as anything is queued.
 */
static inline void rocecc_pfc_thresholds(__u32 size, __u32 mtu,
					 __u32 delay_bits, __u32 *xoff,
					 __u32 *xon)
{
	__u64 headroom = ((__u64)delay_bits + 7) / 8 + 2 * (__u64)mtu;

	*xoff = size > headroom ? (__u32)(size - headroom) : 0;
	*xon = *xoff > mtu ? *xoff - mtu : 0;
}

/*
 * Generating PFC from receive-buffer occupancy (XOFF/XON hysteresis)
 * ------------------------------------------------------------------
 * A port has ROCECC_PFC_BUFS receive buffers; each PFC-enabled priority is
 * mapped to one (DCB prio2buffer), and a buffer's occupancy is the sum over
 * its priorities. When the occupancy reaches the buffer's xoff
 * (rocecc_pfc_thresholds()) the port sends an XOFF of ROCECC_PFC_QUANTA_MAX
 * for the PFC priorities of that buffer, sends it again at half its
 * duration while the buffer stays above xon (the refresh), and sends an
 * XON (0 quanta) once it falls to xon. A priority that leaves a paused
 * buffer (PFC turned off, or mapped elsewhere) is resumed, one that joins
 * it is paused with the refresh. All priorities go into one frame.
 *
 * The decision runs apart from the packets (in the kernel: a work item the
 * packet paths kick), so a burst may come and go before it runs. The
 * packet path therefore latches the crossing of xoff (@crossed, a bit per
 * buffer): a latched buffer gets its XOFF although it has drained already,
 * and its XON in the next run (ROCECC_PFC_GEN_AGAIN), as a NIC whose
 * buffer crossed xoff would send both.
 *
 * rocecc_pfc_gen() is that decision, without a clock, a lock or I/O: the
 * caller samples the occupancy, supplies the time, sends the frame and arms
 * a timer for the next refresh.
 */
#define ROCECC_PFC_BUFS		8	/* receive buffers of a port (DCB) */

/* The XOFF state of one receive buffer. */
struct rocecc_pfc_gen_buf {
	__u8	paused;		/* priorities with an XOFF out, 0 = none */
	__u64	refresh_at;	/* when that XOFF is sent again, ns */
};

/* What one run sees of the port. */
struct rocecc_pfc_gen_in {
	__u8	prios[ROCECC_PFC_BUFS];	/* PFC priorities of each buffer */
	__u32	occ[ROCECC_PFC_BUFS];	/* bytes */
	__u32	xoff[ROCECC_PFC_BUFS];
	__u32	xon[ROCECC_PFC_BUFS];
	__u8	crossed;	/* bit b: buffer b reached xoff (the latch) */
	__u64	now;		/* ns */
	__u64	pause_ns;	/* what ROCECC_PFC_QUANTA_MAX lasts */
};

/* What one run decided: the frame, and when to run again. */
struct rocecc_pfc_gen_out {
	__u8	xoff;		/* priorities to pause, 0 = none */
	__u8	xon;		/* priorities to resume, 0 = none */
	__u8	paused_mask;	/* bit b: buffer b has an XOFF out */
	bool	again;		/* run again now: a drained burst's XON */
	__u64	next;		/* earliest refresh, ns; 0 = none */
};

/*
 * Has a buffer holding @occ bytes reached @xoff? Never while empty (xoff 0,
 * a buffer smaller than its headroom, pauses at the first byte).
 */
static inline bool rocecc_pfc_at_xoff(__u32 occ, __u32 xoff)
{
	return occ && occ >= xoff;
}

/* Has a buffer holding @occ bytes fallen to @xon? */
static inline bool rocecc_pfc_at_xon(__u32 occ, __u32 xon)
{
	return occ <= xon;
}

/*
 * One buffer, @b of @in: update @s and add its priorities to @out->xoff
 * and @out->xon.
 */
static inline void rocecc_pfc_gen_buf(struct rocecc_pfc_gen_buf *s,
				      const struct rocecc_pfc_gen_in *in,
				      __u32 b, struct rocecc_pfc_gen_out *out)
{
	__u8 prios = in->prios[b];
	__u32 occ = in->occ[b];
	__u64 refresh = in->now + in->pause_ns / 2;

	if (!s->paused) {
		if (prios && ((in->crossed & (1u << b)) ||
			      rocecc_pfc_at_xoff(occ, in->xoff[b]))) {
			out->xoff |= prios;
			s->paused = prios;
			s->refresh_at = refresh;
			/* Drained already: XON in the next run. */
			if (rocecc_pfc_at_xon(occ, in->xon[b]))
				out->again = true;
		}
	} else if (!prios || rocecc_pfc_at_xon(occ, in->xon[b])) {
		out->xon |= s->paused;
		s->paused = 0;
	} else {
		/* Still above xon: resume what left, refresh the rest. */
		out->xon |= s->paused & ~prios;
		if (in->now >= s->refresh_at || (prios & ~s->paused)) {
			out->xoff |= prios;
			s->refresh_at = refresh;
		}
		s->paused = prios;
	}
}

/*
 * One run over the port's buffers @s (ROCECC_PFC_BUFS of them). @out gets
 * the one frame to send (XOFF for @out->xoff, XON for @out->xon; nothing
 * if both are 0), the buffers left paused and the earliest refresh.
 */
static inline void rocecc_pfc_gen(struct rocecc_pfc_gen_buf *s,
				  const struct rocecc_pfc_gen_in *in,
				  struct rocecc_pfc_gen_out *out)
{
	__u32 b;

	out->xoff = 0;
	out->xon = 0;
	out->paused_mask = 0;
	out->again = false;
	out->next = 0;
	for (b = 0; b < ROCECC_PFC_BUFS; b++) {
		rocecc_pfc_gen_buf(&s[b], in, b, out);
		if (!s[b].paused)
			continue;
		out->paused_mask |= 1u << b;
		if (!out->next || s[b].refresh_at < out->next)
			out->next = s[b].refresh_at;
	}
	/* A priority that moved to a paused buffer stays paused. */
	out->xon &= ~out->xoff;
}

/*
 * Stop generating (the port goes away): the priorities still paused, to
 * be resumed with one XON; every buffer's state is cleared.
 */
static inline __u8 rocecc_pfc_gen_release(struct rocecc_pfc_gen_buf *s)
{
	__u8 paused = 0;
	__u32 b;

	for (b = 0; b < ROCECC_PFC_BUFS; b++) {
		paused |= s[b].paused;
		s[b].paused = 0;
	}
	return paused;
}

/*
 * The 802.1p priority of an IP packet with DSCP @dscp when no DCB APP
 * entry maps it: the class selector, DSCP >> 3 (RoCE's usual DSCP 26 is
 * priority 3), as NICs that trust DSCP do by default.
 */
static inline __u8 rocecc_dscp_prio_default(__u8 dscp)
{
	return (dscp >> 3) & 7;
}

/*
 * A device's DSCP -> priority map into @map[64]: its DCB APP DSCP entries,
 * given as @app[p] = the DSCPs (bit d for DSCP d) that entries map to
 * priority p (the kernel's struct dcb_ieee_app_prio_map), and
 * rocecc_dscp_prio_default() for a DSCP no entry names. Several entries
 * for one DSCP: the highest priority wins.
 */
static inline void rocecc_dscp_map(const __u64 app[8], __u8 map[64])
{
	__u32 d, p;

	for (d = 0; d < 64; d++) {
		map[d] = rocecc_dscp_prio_default((__u8)d);
		for (p = 0; p < 8; p++)
			if (app[p] & (1ULL << d))
				map[d] = (__u8)p;
	}
}

#endif /* _ROCECC_PFC_H */
