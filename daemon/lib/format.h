/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roceccd's data as text, pure logic (no netlink, no BPF, no sockets):
 * flow names, Prometheus label escaping, percentiles of the flowmon
 * histograms and the Prometheus histogram format. Unit-tested by
 * selftests/unit/daemon/test_format.c.
 */
#ifndef _ROCECC_LIB_FORMAT_H
#define _ROCECC_LIB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * A flow key's peer address (IPv6, or IPv4-mapped ::ffff:a.b.c.d) as text:
 * "10.0.0.2" or "fd00::2". @n >= 46 (INET6_ADDRSTRLEN).
 */
void rd_peer_str(const uint8_t peer[16], char *buf, size_t n);

/*
 * The name of a flow: "comm[pid] lqpn -> peer:rqpn", an IPv6 peer in
 * brackets ("[fd00::2]:18"); a kernel QP (pid 0) is "comm lqpn -> ...";
 * an unknown owner "?". Returns what snprintf() returns.
 */
int rd_flow_name(char *buf, size_t n, const char *comm, uint32_t pid,
		 uint32_t lqpn, const char *peer, uint32_t rqpn);

/*
 * A Prometheus label value, escaped (backslash, double quote, newline), into
 * @out (truncated to @n - 1 characters, never in the middle of an escape).
 */
void rd_prom_escape(const char *in, char *out, size_t n);

/*
 * Percentile @ppm (p99.9 = 999000) of a flowmon histogram (FLOWMON_HIST_
 * layout, FLOWMON_HIST_BUCKETS counts) in nanoseconds; false if it is empty.
 */
bool rd_hist_percentile(const __u64 *buckets, uint32_t ppm, uint64_t *ns);

/* The number of samples of a flowmon histogram. */
uint64_t rd_hist_count(const __u64 *buckets);

/*
 * One Prometheus histogram in text format: @name_bucket{@labels,le="..."}
 * cumulative, @per_octave buckets per power of two from 1 us (the first le
 * counts everything below it) to the histogram's range (2^34 ns), then
 * le="+Inf", @name_sum (seconds) and @name_count. le is the largest value
 * in nanoseconds a bucket holds (the samples are integer nanoseconds, so
 * "<= le" is exact), written in seconds. @labels is the escaped label list
 * without braces ("" for none: _sum and _count then have no braces).
 * Returns the number of _bucket lines.
 */
unsigned int rd_prom_hist(FILE *f, const char *name, const char *labels,
			  const __u64 *buckets, uint64_t sum_ns,
			  unsigned int per_octave);

#endif /* _ROCECC_LIB_FORMAT_H */
