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
 * Names from outside (process names, netdev and RDMA device names, file
 * names) may hold any byte but NUL. What roceccd and rocecc write of them
 * is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points
 * above U+10FFFF): every byte that is not part of such a character is
 * written as U+FFFD, the replacement character. On top of that:
 *
 *  - a Prometheus label value (rd_prom_escape()) has backslash, double
 *    quote and newline escaped as the text exposition format says (\\, \",
 *    \n), and every other control character (U+0000..U+001F, U+007F..
 *    U+009F) written as U+FFFD too, so that a line of /metrics is one
 *    line of printable text;
 *  - a JSON string (rd_json_str()) keeps control characters, which json-c
 *    escapes (\u0001), as it does quotes and backslashes;
 *  - a name in a line of text for people (rd_text_line(): /flows, the
 *    tables of rocecc latency and top, every device name and doctor
 *    finding rocecc prints as text) has every control character,
 *    newline included, written as U+FFFD: an escape sequence in a netdev
 *    name (the kernel refuses only '/', ':' and whitespace) is not
 *    written to a terminal.
 *
 * Worst case, one byte becomes three: RD_TEXT_MAX(n) holds any name of n
 * bytes.
 */
#define RD_TEXT_MAX(n)	(3 * (n) + 1)

/*
 * @in as valid UTF-8 into @out (at most @n - 1 bytes, never a character
 * cut). Returns @out.
 */
char *rd_utf8_repair(const char *in, char *out, size_t n);

/*
 * A Prometheus label value into @out, as above (at most @n - 1 bytes, never
 * a character or an escape cut).
 */
void rd_prom_escape(const char *in, char *out, size_t n);

/* A name for a line of text, as above; returns @out. */
char *rd_text_line(const char *in, char *out, size_t n);

/* A new json-c string of @in as valid UTF-8 (NULL: JSON null). */
struct json_object;
struct json_object *rd_json_str(const char *in);

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
