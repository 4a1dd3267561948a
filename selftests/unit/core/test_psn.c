// SPDX-License-Identifier: GPL-2.0
/*
 * include/rocecc/psn.h: 24-bit PSN serial arithmetic and the 64-bit
 * extension. Expected values are worked out by hand from IBTA 9.7.1's rule
 * (b follows a when b - a mod 2^24 is in [1, 2^23)); the sweeps compare
 * with plain 64-bit arithmetic on unwrapped sequence numbers.
 */
#include <stdint.h>
#include <rocecc/psn.h>
#include "tap.h"

int main(void)
{
	static const uint32_t bases[] = { 0, 1, 0x7fffff, 0x800000, 0xfffff0,
					  0xffffff, 0x123456 };
	unsigned int bad = 0, n;
	uint64_t ref;
	int32_t d;

	tap_eq(rocecc_psn_diff(5, 3), 2, "diff 5 - 3 = 2");
	tap_eq((int64_t)rocecc_psn_diff(3, 5), (uint64_t)-2, "diff 3 - 5 = -2");
	tap_eq(rocecc_psn_diff(0, 0xffffff), 1, "diff 0 - 0xffffff = 1 (wrap)");
	tap_eq((int64_t)rocecc_psn_diff(0xffffff, 0), (uint64_t)-1,
	       "diff 0xffffff - 0 = -1 (wrap)");
	tap_eq(rocecc_psn_diff(0x7fffff, 0), 0x7fffff, "diff 2^23 - 1 is positive");
	tap_eq((int64_t)rocecc_psn_diff(0x800000, 0), (uint64_t)-0x800000,
	       "diff 2^23 is -2^23");
	tap_ok(rocecc_psn_before(0, 0x800000) && rocecc_psn_before(0x800000, 0),
	       "PSNs 2^23 apart: each is before the other (ambiguous)");
	tap_ok(rocecc_psn_before(0xfffffe, 1) && !rocecc_psn_before(1, 0xfffffe),
	       "0xfffffe is before 1");
	tap_ok(!rocecc_psn_before(7, 7), "a PSN is not before itself");
	tap_eq(rocecc_psn_diff(0x1000005, 5), 0, "bits above 24 are ignored");
	tap_eq(rocecc_psn_add(0xffffff, 1), 0, "0xffffff + 1 = 0");
	tap_eq(rocecc_psn_add(0, -1), 0xffffff, "0 - 1 = 0xffffff");
	tap_eq(rocecc_psn_add(0xfffff0, 0x20), 0x10, "0xfffff0 + 0x20 = 0x10");

	/* extend: the nearest 64-bit value with those low 24 bits */
	ref = (5ull << 24) | 0xfffff0;
	tap_eq(rocecc_psn_extend(ref, 5), (6ull << 24) | 5,
	       "extend across the wrap, forwards");
	tap_eq(rocecc_psn_extend(ref, 0xffffe0), (5ull << 24) | 0xffffe0,
	       "extend backwards, same epoch");
	ref = (5ull << 24) | 0x10;
	tap_eq(rocecc_psn_extend(ref, 0xfffff0), (4ull << 24) | 0xfffff0,
	       "extend across the wrap, backwards");
	tap_eq(rocecc_psn_extend(ref, 0x10), ref, "extend of the same PSN");

	/* Sweeps over distances in (-2^23, 2^23) */
	for (n = 0; n < sizeof(bases) / sizeof(bases[0]); n++) {
		uint32_t a = bases[n];

		ref = (7ull << 24) | a;
		for (d = -0x7fffff; d < 0x800000; d += n ? 97 : 1) {
			uint32_t b = rocecc_psn_add(a, d);

			bad += rocecc_psn_diff(b, a) != d;
			bad += rocecc_psn_before(a, b) != (d > 0);
			bad += rocecc_psn_before(b, a) != (d < 0);
			bad += rocecc_psn_extend(ref, b) != ref + (int64_t)d;
		}
	}
	tap_eq(bad, 0, "diff, before, extend agree with unwrapped arithmetic: every distance from 0, every 97th from 6 more bases");
	return tap_done();
}
