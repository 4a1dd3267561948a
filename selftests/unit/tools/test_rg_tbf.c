// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen's token bucket on a simulated clock: long-run rate is exact, the
 * burst cap holds, and the wait it announces is the earliest possible post.
 */
#include <stdint.h>

#include "tap.h"
#include "rg_lib.h"

#define NS 1000000000ull

/*
 * Post @size-byte messages for @secs simulated seconds, waking exactly when
 * the bucket says (plus @late ns of oversleep every time). Returns bytes.
 */
static uint64_t run(uint64_t rate, uint64_t size, uint64_t burst,
		    uint64_t secs, uint64_t late, unsigned int *early_fail)
{
	struct rg_tbf tb;
	uint64_t now = 1000, end = now + secs * NS, bytes = 0, w;

	rg_tbf_init(&tb, rate, burst, size, now);
	*early_fail = 0;
	while (now < end) {
		w = rg_tbf_wait_ns(&tb, now, size);
		if (w) {
			/* one ns earlier must not be enough */
			struct rg_tbf copy = tb;

			if (w > 1 && rg_tbf_take(&copy, now + w - 1, size))
				(*early_fail)++;
			now += w + late;
			continue;
		}
		if (!rg_tbf_take(&tb, now, size)) {
			(*early_fail)++;
			break;
		}
		bytes += size;
	}
	return bytes;
}

int main(void)
{
	unsigned int early;
	uint64_t b, want;
	struct rg_tbf tb;
	int i, n;

	/* 20 Mbit/s, 16 KiB messages, 10 s: 20e6*10/8 bytes + first message */
	b = run(20000000, 16384, 32768, 10, 0, &early);
	want = 20000000ull * 10 / 8;
	tap_ok(b >= want && b <= want + 2 * 16384,
	       "20 Mbit/s x 10 s: %llu bytes (want %llu..+2 msgs)",
	       (unsigned long long)b, (unsigned long long)want);
	tap_eq(early, 0, "announced waits are exact (not 1 ns too long)");
	{
		struct rg_tbf t2;

		/* a poster that keeps up loses nothing */
		rg_tbf_init(&t2, 20000000, 32768, 16384, 0);
		for (i = 0, n = 0; i < 1000; i++) {
			uint64_t at = (uint64_t)i * 6553600;	/* 16 KiB @ 20M */

			n += rg_tbf_take(&t2, at, 16384);
		}
		tap_eq(n, 1000, "posting on time: every message passes");
		tap_eq(rg_tbf_lost_bytes(&t2), 0, "posting on time: nothing lost");
	}

	/* odd rate that does not divide evenly */
	b = run(7777777, 1000, 2000, 30, 0, &early);
	want = 7777777ull * 30 / 8;
	tap_ok(b >= want && b <= want + 2000, "7.777777 Mbit/s x 30 s exact");
	tap_eq(early, 0, "odd rate: waits exact");

	/* oversleeping by 100 us each time is absorbed by a 4-message burst */
	b = run(20000000, 16384, 4 * 16384, 10, 100000, &early);
	want = 20000000ull * 10 / 8;
	tap_ok(b >= want && b <= want + 4 * 16384,
	       "late wakeups absorbed by the burst: %llu bytes",
	       (unsigned long long)b);

	/* ... but with a one-message bucket they cost rate */
	b = run(20000000, 16384, 16384, 10, 1000000, &early);
	tap_ok(b < want * 90 / 100,
	       "one-message bucket loses rate to 1 ms late wakeups (%llu)",
	       (unsigned long long)b);

	/* burst cap: after 1 s idle, only burst bytes at once */
	rg_tbf_init(&tb, 1000000, 10000, 0, 0);
	for (n = 0, i = 0; i < 100; i++)
		n += rg_tbf_take(&tb, NS, 1000);
	tap_eq(n, 10, "after idle, burst of 10 x 1000 B allowed, no more");
	tap_eq(rg_tbf_lost_bytes(&tb), 125000 - 10000,
	       "1 s idle at 1 Mbit/s with a 10000 B bucket lost 115000 B");
	tap_eq(rg_tbf_wait_ns(&tb, NS, 1000), 8000000,
	       "then 1000 B at 1 Mbit/s needs 8 ms");

	/* message larger than burst still passes once the bucket is full */
	rg_tbf_init(&tb, 8000, 100, 0, 0);
	tap_eq(rg_tbf_wait_ns(&tb, 0, 1000), NS, "1000 B at 8 kbit/s: 1 s");
	tap_ok(rg_tbf_take(&tb, NS, 1000), "message > burst passes after 1 s");

	/* unlimited */
	rg_tbf_init(&tb, 0, 0, 0, 0);
	tap_ok(rg_tbf_take(&tb, 0, 1 << 30), "rate 0 is unlimited");
	tap_eq(rg_tbf_wait_ns(&tb, 0, 1 << 30), 0, "rate 0 never waits");

	/* clock going backwards does not mint tokens */
	rg_tbf_init(&tb, 1000000, 1000, 0, 5 * NS);
	tap_ok(!rg_tbf_take(&tb, 4 * NS, 1000), "no tokens from a past time");

	/* 100 Gbit/s, huge idle: no overflow */
	rg_tbf_init(&tb, 100000000000ull, 1 << 20, 0, 0);
	tap_ok(rg_tbf_take(&tb, UINT64_MAX / 2, 1 << 20),
	       "100 Gbit/s after ~292 years idle: no overflow");
	tap_ok(!rg_tbf_take(&tb, UINT64_MAX / 2, 1),
	       "and the bucket is empty again");
	return tap_done();
}
