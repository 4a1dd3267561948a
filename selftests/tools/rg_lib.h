/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocegen's pure logic, free of verbs and I/O so that it is unit-tested on
 * the host (selftests/unit/tools/test_rg_*.c): option value parsing, the
 * latency histogram (on include/rocecc/hist.h), the window of the run whose
 * messages get a second histogram, and the token bucket that paces posts.
 */
#ifndef _ROCEGEN_LIB_H
#define _ROCEGEN_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include <rocecc/hist.h>

/* ---------------------------------------------------------------- parsing */

/*
 * A byte count: decimal digits with an optional binary suffix K, M or G
 * (case-insensitive, x1024 each), optionally followed by "B" or "iB":
 * "16384", "16K", "16KiB", "1m". Returns 0 on success, -1 if @s is not a
 * size or does not fit in 64 bits.
 */
int rg_parse_size(const char *s, uint64_t *out);

/*
 * A rate in Mbit/s: a decimal number with up to 9 fractional digits
 * ("20", "0.5", "2.5") and an optional unit suffix that overrides the
 * default Mbit/s: k/K (kbit/s), m/M (Mbit/s), g/G (Gbit/s), optionally
 * followed by "bit" ("500kbit", "1.5G"). Units are decimal (1k = 1000 bit/s).
 * Stores bit/s, exactly where representable (fractions of a bit/s are
 * truncated). Returns 0 on success, -1 if @s is not a rate or overflows.
 */
int rg_parse_rate(const char *s, uint64_t *bps);

/*
 * A duration, in seconds by default: "10", "0.5", "1.5s", "250ms", "100us"
 * (up to 9 fractional digits). Stores nanoseconds. 0 on success, -1 if @s
 * is not a duration or overflows.
 */
int rg_parse_seconds(const char *s, uint64_t *ns);

/*
 * An unsigned decimal integer in [min, max]. Returns 0 on success, -1 if @s
 * is not a number, -2 if it is out of range.
 */
int rg_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* -------------------------------------------------------------- histogram */

/*
 * Latencies in nanoseconds on the project's log-linear histogram
 * (include/rocecc/hist.h): 64 linear sub-buckets per power of two, exact
 * below 128, values of 2^63 ns and more in one overflow bucket. A
 * percentile is reported as the middle of the bucket that holds its rank
 * (lower + (upper - lower) / 2, rounded down), clamped to the observed
 * [min, max], so its relative error is below 1 / (2 * RG_HIST_SUB) = 1/128
 * (0.78 %). Percentiles use the nearest-rank definition: the value of rank
 * ceil(q * n) (1-based) in the sorted sample, rocecc_hist_rank().
 */
#define RG_HIST_SUB_BITS	6
#define RG_HIST_RANGE_BITS	63
#define RG_HIST_SUB		(1u << RG_HIST_SUB_BITS)
#define RG_HIST_BUCKETS		ROCECC_HIST_NBUCKETS(RG_HIST)

struct rg_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	unsigned __int128 sum;
	__u64 bucket[RG_HIST_BUCKETS];
};

void rg_hist_init(struct rg_hist *h);
void rg_hist_add(struct rg_hist *h, uint64_t v);
void rg_hist_merge(struct rg_hist *dst, const struct rg_hist *src);
/* Nearest-rank percentile, @ppm in parts per million (p99.9 = 999000). */
uint64_t rg_hist_percentile(const struct rg_hist *h, uint32_t ppm);
double rg_hist_mean(const struct rg_hist *h);

/* ----------------------------------------------------------------- window */

/*
 * A span of the run, in nanoseconds since its start (rocegen's first
 * post): [from_ns, to_ns), to_ns = UINT64_MAX for "until the end". A
 * message belongs to it when it was posted inside it, whenever it
 * completes: its latency is then that of the conditions it was sent into,
 * and a message posted before the span (a start-up's slow one completing
 * inside it) is not counted.
 */
struct rg_window {
	uint64_t from_ns;
	uint64_t to_ns;
};

/*
 * "START[:END]": milliseconds since the start, decimal numbers with up to
 * 9 fractional digits ("3000", "2500.5:18000"); without END the window
 * lasts until the end. 0 on success, -1 if @s is not one or END <= START.
 */
int rg_parse_window(const char *s, struct rg_window *w);

/* Was a message posted at @post_ns, in a run started at @start_ns, in @w? */
bool rg_window_holds(const struct rg_window *w, uint64_t start_ns,
		     uint64_t post_ns);

/*
 * The window's histogram of one flow: *@out is a new, empty histogram if
 * there is a window (@w), NULL if there is none (@w NULL), so that a run
 * without --window-ms does not carry a second histogram per QP (~30 KB,
 * ~30 MB at 1024 QPs). 0 on success, -1 if out of memory. free() it.
 */
int rg_window_hist_alloc(const struct rg_window *w, struct rg_hist **out);

/*
 * Count a latency @lat_ns of a message posted at @post_ns in @all, and in
 * @win too if @w (NULL: no window) holds the post. @win is not used
 * (may be NULL) when @w is NULL.
 */
void rg_hist_add_split(struct rg_hist *all, struct rg_hist *win,
		       const struct rg_window *w, uint64_t start_ns,
		       uint64_t post_ns, uint64_t lat_ns);

/* ----------------------------------------------------------- token bucket */

/*
 * Token bucket in exact integer arithmetic: tokens are kept in bit-seconds
 * scaled by 1e9 (bit * ns / s), so that elapsed nanoseconds times the rate
 * in bit/s adds without rounding. A message of B bytes may be posted when
 * the bucket holds B * 8 bits; the bucket never holds more than burst bits
 * (but at least one message's worth is always attainable, see
 * rg_tbf_take()).
 */
struct rg_tbf {
	uint64_t rate_bps;		/* 0: unlimited */
	unsigned __int128 tokens;	/* bits * 1e9 */
	unsigned __int128 cap;		/* bits * 1e9 */
	unsigned __int128 lost;		/* bits * 1e9 spilled over the cap */
	uint64_t last_ns;
};

void rg_tbf_init(struct rg_tbf *tb, uint64_t rate_bps, uint64_t burst_bytes,
		 uint64_t initial_bytes, uint64_t now_ns);
/* Take @bytes if the bucket holds them at @now_ns; true if taken. */
bool rg_tbf_take(struct rg_tbf *tb, uint64_t now_ns, uint64_t bytes);
/* Nanoseconds from @now_ns until @bytes are available (0: now). */
uint64_t rg_tbf_wait_ns(struct rg_tbf *tb, uint64_t now_ns, uint64_t bytes);
/*
 * Bytes of offered load lost so far because the bucket was full when more
 * tokens arrived (the poster woke too late or was blocked by --depth).
 */
uint64_t rg_tbf_lost_bytes(const struct rg_tbf *tb);

#endif /* _ROCEGEN_LIB_H */
