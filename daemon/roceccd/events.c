// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's messages: log lines (stderr, or syslog once daemonized) and
 * the events of /events.json.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include <json-c/json.h>

#include "roceccd.h"

int rd_log_max = LOG_INFO_;
bool rd_log_to_syslog;

void rd_log(int level, const char *fmt, ...)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	va_list ap;

	if (level > rd_log_max)
		return;
	va_start(ap, fmt);
	if (rd_log_to_syslog) {
		vsyslog(prio[level], fmt, ap);
	} else {
		fprintf(stderr, "%s: ", rd_prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

/*
 * Record an event for /events.json: @type and JSON object members @fmt
 * (already encoded, without braces). Under rd->lock.
 */
void rd_event(struct rd *rd, const char *type, const char *fmt, ...)
{
	struct rd_event *e = &rd->ev[++rd->ev_seq & (RD_EVENTS - 1)];
	va_list ap;

	e->seq = rd->ev_seq;
	clock_gettime(CLOCK_REALTIME, &e->when);
	snprintf(e->type, sizeof(e->type), "%s", type);
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

int rd_event_since(const char *s, uint64_t *since)
{
	uint64_t v = 0;
	const char *p;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*since = v;
	return 0;
}

size_t rd_events_after(const struct rd_event *ring, uint64_t newest,
		       uint64_t since, struct rd_event *out, size_t max,
		       uint64_t *lost)
{
	uint64_t oldest = newest > RD_EVENTS ? newest - RD_EVENTS + 1 : 1;
	uint64_t q;
	size_t n = 0;

	*lost = 0;
	if (since >= newest)
		return 0;
	q = since + 1;
	if (q < oldest) {
		*lost = oldest - q;
		q = oldest;
	}
	for (; q <= newest && n < max; q++)
		out[n++] = ring[q & (RD_EVENTS - 1)];
	return n;
}

void rd_events_json(FILE *f, uint64_t newest, uint64_t lost,
		    const struct rd_event *e, size_t n)
{
	size_t i;

	fprintf(f, "{\"last\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"events\":[",
		newest, lost);
	for (i = 0; i < n; i++) {
		struct tm tm;
		char ts[40];

		gmtime_r(&e[i].when.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(f, "%s\n{\"seq\":%" PRIu64 ",\"time\":\"%s.%03ldZ\",\"type\":\"%s\",%s}",
			i ? "," : "", e[i].seq, ts, e[i].when.tv_nsec / 1000000,
			e[i].type, e[i].text);
	}
	fprintf(f, "\n]}\n");
}

/* A string as a JSON string literal (quotes included) into @buf. */
const char *rd_jstr(const char *s, char *buf, size_t n)
{
	json_object *o = json_object_new_string(s);

	snprintf(buf, n, "%s", json_object_to_json_string_ext(o,
		 JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return buf;
}
