/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc shared code: the few things the kernel, BPF and userspace spell
 * differently. Everything under include/rocecc/ includes this first and uses
 * only the __u8/__u16/__u32/__u64 types, bool, and the helpers below.
 *
 * The shared code never allocates, never locks, never sleeps, uses no
 * floating point and reads multi-byte wire fields byte by byte, so it is
 * independent of host byte order.
 */
#ifndef _ROCECC_COMPAT_H
#define _ROCECC_COMPAT_H

#if defined(__KERNEL__)
#include <linux/types.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/crc32.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#endif

/*
 * In a copy loop whose length is not a constant: keeps clang from turning
 * the loop into a memcpy() call, which a BPF program cannot make.
 */
static inline void rocecc_loop_barrier(void)
{
#if defined(__bpf__)
	__asm__ __volatile__("" : : : "memory");
#endif
}

/*
 * @v, with what clang knows of its range forgotten (BPF only). A table
 * index masked to the table's size then keeps its mask, which is what
 * the verifier bounds the access by: clang drops a mask that the
 * caller's checks make redundant, and the verifier does not always
 * follow those checks (bpf_helpers.h's barrier_var()).
 */
static inline __u32 rocecc_opaque_u32(__u32 v)
{
#if defined(__bpf__)
	__asm__ __volatile__("" : "+r"(v));
#endif
	return v;
}

/* 64-by-32 division, only ever used outside the per-packet path. */
static inline __u64 rocecc_div_u64(__u64 n, __u32 d)
{
#if defined(__KERNEL__)
	return div_u64(n, d);
#else
	return n / d;
#endif
}

#endif /* _ROCECC_COMPAT_H */
