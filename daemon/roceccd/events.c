// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's messages: log lines (stderr, or syslog once daemonized) and
 * the events of /events.json.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Now, UTC, ISO 8601 with milliseconds, into @ts. */
static void rd_event_time(char *ts, size_t n)
{
	struct timespec now;
	struct tm tm;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	len = strftime(ts, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + len, n - len, ".%03ldZ", now.tv_nsec / 1000000);
}

void rd_event(struct rd *rd, const char *type, ...)
{
	struct rd_event *slot = &rd->ev[++rd->ev_seq & (RD_EVENTS - 1)];
	json_object *e = json_object_new_object();
	const char *key;
	char ts[48];
	va_list ap;

	rd_event_time(ts, sizeof(ts));
	json_object_object_add(e, "seq", json_object_new_uint64(rd->ev_seq));
	json_object_object_add(e, "time", json_object_new_string(ts));
	json_object_object_add(e, "type", json_object_new_string(type));
	va_start(ap, type);
	while ((key = va_arg(ap, const char *)))
		json_object_object_add(e, key, va_arg(ap, json_object *));
	va_end(ap);
	free(slot->json);	/* the oldest event goes */
	slot->seq = rd->ev_seq;
	slot->json = strdup(json_object_to_json_string_ext(e,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(e);
}

void rd_events_free(struct rd *rd)
{
	rd_events_put(rd->ev, RD_EVENTS);
}

json_object *rd_jfixed(double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
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

/*
 * Copies of the events (strdup: the ring's own may be freed by the next
 * rd_event once the lock is dropped); one that cannot be copied counts as
 * lost, like one the ring no longer holds.
 */
size_t rd_events_after(const struct rd_event *ring, uint64_t newest,
		       uint64_t since, struct rd_event *out, size_t max,
		       uint64_t *lost)
{
	uint64_t oldest = newest > RD_EVENTS ? newest - RD_EVENTS + 1 : 1;
	const struct rd_event *e;
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
	for (; q <= newest && n < max; q++) {
		e = &ring[q & (RD_EVENTS - 1)];
		out[n].json = e->json ? strdup(e->json) : NULL;
		if (!out[n].json) {
			(*lost)++;
			continue;
		}
		out[n++].seq = e->seq;
	}
	return n;
}

void rd_events_put(struct rd_event *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(e[i].json);
		e[i].json = NULL;
	}
}

void rd_events_json(FILE *f, uint64_t newest, uint64_t lost,
		    const struct rd_event *e, size_t n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	json_object *ev;
	size_t i;

	for (i = 0; i < n; i++) {
		/* json-c wrote it: it parses back (else it counts as lost) */
		ev = json_tokener_parse(e[i].json);
		if (ev)
			json_object_array_add(a, ev);
		else
			lost++;
	}
	json_object_object_add(o, "last", json_object_new_uint64(newest));
	json_object_object_add(o, "lost", json_object_new_uint64(lost));
	json_object_object_add(o, "events", a);
	fprintf(f, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}
