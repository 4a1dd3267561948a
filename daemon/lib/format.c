// SPDX-License-Identifier: GPL-2.0
/*
 * Text of roceccd's and rocecc's data. See format.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include <rocecc/hist.h>
#include "flowmon.h"

#include "format.h"
#include "parse.h"

/* 1 us: the first exported le covers everything below */
#define RD_PROM_MIN_NS	1024

void rd_peer_str(const uint8_t peer[16], char *buf, size_t n)
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	if (!memcmp(peer, v4mapped, sizeof(v4mapped))) {
		if (!inet_ntop(AF_INET, peer + 12, buf, n))
			snprintf(buf, n, "?");
	} else if (!inet_ntop(AF_INET6, peer, buf, n)) {
		snprintf(buf, n, "?");
	}
}

int rd_flow_name(char *buf, size_t n, const char *comm, uint32_t pid,
		 uint32_t lqpn, const char *peer, uint32_t rqpn)
{
	const char *lb = strchr(peer, ':') ? "[" : "";
	const char *rb = *lb ? "]" : "";
	char owner[96];

	if (!comm || !*comm)
		comm = "?";
	if (pid)
		snprintf(owner, sizeof(owner), "%s[%" PRIu32 "]", comm, pid);
	else
		snprintf(owner, sizeof(owner), "%s", comm);
	return snprintf(buf, n, "%s %" PRIu32 " -> %s%s%s:%" PRIu32,
			owner, lqpn, lb, peer, rb, rqpn);
}

/* U+FFFD REPLACEMENT CHARACTER in UTF-8 */
#define U_FFFD	"\xef\xbf\xbd"

/* The length of the valid UTF-8 character at @s, or 0 (@s ends in NUL). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int i, n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;	/* a continuation byte, an overlong lead */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also at the NUL */
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||	/* overlong */
	    (s[0] == 0xed && s[1] >= 0xa0) ||	/* a surrogate */
	    (s[0] == 0xf0 && s[1] < 0x90) ||	/* overlong */
	    (s[0] == 0xf4 && s[1] >= 0x90))	/* above U+10FFFF */
		return 0;
	return n;
}

/* A control character: C0, DEL or C1 (U+0080..U+009F). */
static bool is_control(const unsigned char *s, size_t len)
{
	return (len == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	       (len == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

enum text_kind {
	TEXT_UTF8,	/* valid UTF-8, nothing else changed */
	TEXT_PROM,	/* a Prometheus label value */
	TEXT_LINE,	/* no control character at all */
};

/*
 * @in into @out as valid UTF-8, as @kind says. At most @n - 1 bytes, whole
 * characters and escapes only.
 */
static void text_out(const char *in, char *out, size_t n, enum text_kind kind)
{
	bool prom = kind == TEXT_PROM;
	const unsigned char *s = (const unsigned char *)in;
	const char *rep;
	size_t o = 0, len, w;

	if (!n)
		return;
	for (; *s; s += len ? len : 1) {
		len = utf8_len(s);
		rep = (const char *)s;
		w = len;
		if (!len || (kind != TEXT_UTF8 && is_control(s, len) &&
			     !(prom && *s == '\n'))) {
			rep = U_FFFD;
			w = 3;
		} else if (prom && (*s == '\\' || *s == '"' || *s == '\n')) {
			rep = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n";
			w = 2;
		}
		if (o + w > n - 1)
			break;
		memcpy(out + o, rep, w);
		o += w;
	}
	out[o] = '\0';
}

char *rd_utf8_repair(const char *in, char *out, size_t n)
{
	text_out(in, out, n, TEXT_UTF8);
	return out;
}

void rd_prom_escape(const char *in, char *out, size_t n)
{
	text_out(in, out, n, TEXT_PROM);
}

char *rd_text_line(const char *in, char *out, size_t n)
{
	text_out(in, out, n, TEXT_LINE);
	return out;
}

struct json_object *rd_json_str(const char *in)
{
	size_t n;
	char *s;
	json_object *o;

	if (!in)
		return NULL;
	n = RD_TEXT_MAX(strlen(in));
	s = malloc(n);
	if (!s)
		return NULL;
	o = json_object_new_string(rd_utf8_repair(in, s, n));
	free(s);
	return o;
}

bool rd_hist_percentile(const __u64 *buckets, uint32_t ppm, uint64_t *ns)
{
	__u64 v;

	if (!rocecc_hist_percentile(buckets,
				    FLOWMON_HIST_SUB_BITS,
				    FLOWMON_HIST_RANGE_BITS, ppm, &v))
		return false;
	*ns = v;
	return true;
}

uint64_t rd_hist_count(const __u64 *buckets)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < FLOWMON_HIST_BUCKETS; i++)
		n += buckets[i];
	return n;
}

/*
 * Is regular bucket @i the last of its group, with @per_octave groups per
 * power of two? Bucket i >= 2S (S = 2^k) holds values with v >> s = i - (s
 * << k) in [S, 2S): sub-bucket j = i & (S - 1) of its octave. The exact
 * buckets below 2S end a group only at 2S - 1.
 */
static bool rd_group_end(unsigned int i, unsigned int per_octave)
{
	unsigned int S = 1u << FLOWMON_HIST_SUB_BITS;

	if (i < 2 * S)
		return i == 2 * S - 1;
	return ((i & (S - 1)) + 1) % (S / per_octave) == 0;
}

unsigned int rd_prom_hist(FILE *f, const char *name, const char *labels,
			  const __u64 *buckets, uint64_t sum_ns,
			  unsigned int per_octave)
{
	const char *sep = *labels ? "," : "";
	unsigned int i, lines = 0;
	unsigned int over = rocecc_hist_overflow(FLOWMON_HIST_SUB_BITS,
						 FLOWMON_HIST_RANGE_BITS);
	uint64_t cum = 0, upper;

	if (!rd_valid_per_octave(per_octave))
		per_octave = 4;
	for (i = 0; i < over; i++) {
		cum += buckets[i];
		upper = rocecc_hist_upper(i, FLOWMON_HIST_SUB_BITS,
					  FLOWMON_HIST_RANGE_BITS);
		if (upper + 1 < RD_PROM_MIN_NS || !rd_group_end(i, per_octave))
			continue;
		fprintf(f, "%s_bucket{%s%sle=\"%.12g\"} %" PRIu64 "\n",
			name, labels, sep, (double)upper / 1e9, cum);
		lines++;
	}
	cum += buckets[over];
	fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels,
		sep, cum);
	fprintf(f, "%s_sum%s%s%s %.9f\n", name, *labels ? "{" : "", labels,
		*labels ? "}" : "", (double)sum_ns / 1e9);
	fprintf(f, "%s_count%s%s%s %" PRIu64 "\n", name, *labels ? "{" : "",
		labels, *labels ? "}" : "", cum);
	return lines + 1;
}
