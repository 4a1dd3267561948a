/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the flowmon test and benchmark share: building RoCEv2 frames and
 * running them through the programs with BPF_PROG_TEST_RUN.
 *
 * Frames are built here byte by byte from the wire format of
 * docs/dcqcn.md §4 (Ethernet, IPv4 or IPv6, UDP to 4791, BTH, the
 * extension headers the opcode carries, payload, ICRC), not with the
 * parser under test. The ICRC is left zero: nothing on this path checks it.
 */
#ifndef _FLOWMON_LIB_H
#define _FLOWMON_LIB_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>

#include <rocecc/roce.h>

#define FRAME_MAX	2048

struct pkt {
	int v6;
	const uint8_t *src, *dst;	/* 4 or 16 bytes */
	uint8_t ecn;
	uint8_t op;
	uint32_t qpn;			/* BTH DestQP */
	uint32_t psn;
	int ackreq;
	uint8_t syndrome;		/* AETH, for opcodes that carry one */
	uint32_t payload;		/* bytes, a multiple of 4 */
};

/* Extension header bytes after the BTH, as IBTA lays them out */
static inline uint32_t ext_len(uint8_t op)
{
	switch (op) {
	case ROCECC_OP_RC_WRITE_FIRST:
	case ROCECC_OP_RC_WRITE_ONLY:
	case ROCECC_OP_RC_READ_REQUEST:
	case ROCECC_OP_RC_ATOMIC_WRITE:
		return 16;			/* RETH */
	case ROCECC_OP_RC_FLUSH:
		return 20;			/* FETH + RETH */
	case ROCECC_OP_RC_WRITE_ONLY_IMM:
		return 20;			/* RETH + ImmDt */
	case ROCECC_OP_RC_SEND_LAST_IMM:
	case ROCECC_OP_RC_SEND_ONLY_IMM:
	case ROCECC_OP_RC_WRITE_LAST_IMM:
	case ROCECC_OP_RC_SEND_LAST_INV:
	case ROCECC_OP_RC_SEND_ONLY_INV:
		return 4;			/* ImmDt, IETH */
	case ROCECC_OP_RC_READ_RESP_FIRST:
	case ROCECC_OP_RC_READ_RESP_LAST:
	case ROCECC_OP_RC_READ_RESP_ONLY:
	case ROCECC_OP_RC_ACK:
		return 4;			/* AETH */
	case ROCECC_OP_RC_ATOMIC_ACK:
		return 12;			/* AETH + AtomicAckETH */
	case ROCECC_OP_RC_CMP_SWAP:
	case ROCECC_OP_RC_FETCH_ADD:
		return 28;			/* AtomicETH */
	default:
		return 0;
	}
}

static inline int has_aeth(uint8_t op)
{
	return op == ROCECC_OP_RC_READ_RESP_FIRST ||
	       op == ROCECC_OP_RC_READ_RESP_LAST ||
	       op == ROCECC_OP_RC_READ_RESP_ONLY ||
	       op == ROCECC_OP_RC_ACK || op == ROCECC_OP_RC_ATOMIC_ACK;
}

/* Length of the IP packet (IP header to ICRC) build() makes for @k */
static inline uint32_t ip_len(const struct pkt *k)
{
	return (k->v6 ? 40 : 20) + 8 + 12 + ext_len(k->op) + k->payload + 4;
}

/* Build the frame for @k into @f (FRAME_MAX bytes); returns its length. */
static inline size_t build(uint8_t *f, const struct pkt *k)
{
	uint32_t ipl = ip_len(k), udpl = ipl - (k->v6 ? 40 : 20);
	uint8_t *h;
	size_t l3 = 14;

	if (l3 + ipl > FRAME_MAX)
		return 0;		/* the run fails and is counted */
	memset(f, 0, l3 + ipl);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (k->v6) {
		f[12] = 0x86;
		f[13] = 0xdd;
		h = f + l3;
		h[0] = 0x60 | (26 >> 2);	/* DSCP 26 ... */
		h[1] = (uint8_t)((26 & 3) << 6 | k->ecn << 4);
		h[4] = (uint8_t)(udpl >> 8);
		h[5] = (uint8_t)udpl;
		h[6] = 17;
		h[7] = 64;
		memcpy(h + 8, k->src, 16);
		memcpy(h + 24, k->dst, 16);
		h += 40;
	} else {
		f[12] = 0x08;
		f[13] = 0x00;
		h = f + l3;
		h[0] = 0x45;
		h[1] = (uint8_t)(26 << 2 | k->ecn);
		h[2] = (uint8_t)(ipl >> 8);
		h[3] = (uint8_t)ipl;
		h[6] = 0x40;			/* DF */
		h[8] = 64;
		h[9] = 17;
		memcpy(h + 12, k->src, 4);
		memcpy(h + 16, k->dst, 4);
		h += 20;
	}
	h[0] = 0xc0;				/* UDP sport 0xc0de */
	h[1] = 0xde;
	h[2] = 4791 >> 8;
	h[3] = 4791 & 0xff;
	h[4] = (uint8_t)(udpl >> 8);
	h[5] = (uint8_t)udpl;
	h += 8;
	h[0] = k->op;				/* BTH */
	h[2] = 0xff;
	h[3] = 0xff;
	h[5] = (uint8_t)(k->qpn >> 16);
	h[6] = (uint8_t)(k->qpn >> 8);
	h[7] = (uint8_t)k->qpn;
	h[8] = k->ackreq ? 0x80 : 0;
	h[9] = (uint8_t)(k->psn >> 16);
	h[10] = (uint8_t)(k->psn >> 8);
	h[11] = (uint8_t)k->psn;
	h += 12;
	if (has_aeth(k->op))
		h[0] = k->syndrome;
	return l3 + ipl;
}

/*
 * Run one frame through program @prog_fd as if it passed the netdev
 * @ifindex (1, loopback, the test run's default, or any other that
 * exists). Returns 0, or -errno if the kernel refused to run it; the
 * program's verdict and output frame go to *@retval and @out.
 */
static inline int run_frame(int prog_fd, uint32_t ifindex, const uint8_t *f,
			    size_t len, uint32_t *retval, uint8_t *out,
			    uint32_t *out_len, uint32_t *duration)
{
	struct __sk_buff ctx = { .ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = f,
		.data_size_in = (uint32_t)len,
		.data_out = out,
		.data_size_out = out ? FRAME_MAX : 0,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = 1,
	);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	*retval = o.retval;
	if (out_len)
		*out_len = o.data_size_out;
	if (duration)
		*duration = o.duration;
	return 0;
}

#endif /* _FLOWMON_LIB_H */
