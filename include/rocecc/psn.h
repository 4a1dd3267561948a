/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: 24-bit packet sequence numbers (BTH PSN), shared by the kernel
 * module, the BPF programs and userspace.
 *
 * PSNs count modulo 2^24 and are compared in serial-number arithmetic
 * (IBTA 9.7.1, the same rule as rdma_rxe's psn_compare()): a is before b
 * when b - a, taken modulo 2^24, lies in [1, 2^23]. Two PSNs exactly 2^23
 * apart are ambiguous and each counts as before the other; a requester
 * never has 2^23 PSNs outstanding (IBTA 9.7.1), so this does not arise on a
 * real QP.
 *
 * Code that keeps PSNs for long (latency probes, pending messages) extends
 * them to 64 bits instead: rocecc_psn_extend() places a wire PSN next to a
 * 64-bit reference (e.g. the next PSN to send), after which plain integer
 * comparison is wrap-free. The wrap is handled there, and only there.
 */
#ifndef _ROCECC_PSN_H
#define _ROCECC_PSN_H

#include "compat.h"

#define ROCECC_PSN_MOD		0x1000000u	/* 2^24 */
#define ROCECC_PSN_MASK		0x0ffffffu
#define ROCECC_PSN_HALF		0x0800000u	/* 2^23 */

/* a - b in serial arithmetic: in [-2^23, 2^23) */
static inline __s32 rocecc_psn_diff(__u32 a, __u32 b)
{
	__u32 d = (a - b) & ROCECC_PSN_MASK;

	return d >= ROCECC_PSN_HALF ? (__s32)d - (__s32)ROCECC_PSN_MOD :
				      (__s32)d;
}

/* a comes before b */
static inline bool rocecc_psn_before(__u32 a, __u32 b)
{
	return rocecc_psn_diff(a, b) < 0;
}

/* psn + n, modulo 2^24 */
static inline __u32 rocecc_psn_add(__u32 psn, __s32 n)
{
	return (psn + (__u32)n) & ROCECC_PSN_MASK;
}

/*
 * The 64-bit extended PSN of wire PSN @psn that is nearest to @ref (an
 * extended PSN whose low 24 bits are a PSN): within [ref - 2^23,
 * ref + 2^23). The caller keeps @ref at least 2^23 so that the result
 * cannot go below zero.
 */
static inline __u64 rocecc_psn_extend(__u64 ref, __u32 psn)
{
	return ref + (__s64)rocecc_psn_diff(psn, (__u32)(ref & ROCECC_PSN_MASK));
}

#endif /* _ROCECC_PSN_H */
