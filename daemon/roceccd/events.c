// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's messages: log lines (stderr, or syslog once daemonized) and
 * the events of /events.json.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

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

void rd_event(struct rd *rd, const char *type, ...)
{
	json_object **slot = &rd->ev[++rd->ev_seq & (RD_EVENTS - 1)];
	json_object *e = json_object_new_object();
	struct timespec now;
	const char *key;
	char ts[48];
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + strlen(ts), sizeof(ts) - strlen(ts), ".%03ldZ",
		 now.tv_nsec / 1000000);
	json_object_object_add(e, "seq", json_object_new_uint64(rd->ev_seq));
	json_object_object_add(e, "time", json_object_new_string(ts));
	json_object_object_add(e, "type", json_object_new_string(type));
	va_start(ap, type);
	while ((key = va_arg(ap, const char *)))
		json_object_object_add(e, key, va_arg(ap, json_object *));
	va_end(ap);
	json_object_put(*slot);	/* the oldest event goes */
	*slot = e;
}

json_object *rd_events_json(const struct rd *rd, uint64_t since)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	uint64_t q;

	json_object_object_add(o, "last", json_object_new_uint64(rd->ev_seq));
	q = rd->ev_seq > RD_EVENTS ? rd->ev_seq - RD_EVENTS + 1 : 1;
	if (q <= since)
		q = since + 1;
	for (; q <= rd->ev_seq; q++)
		json_object_array_add(a, json_object_get(rd->ev[q & (RD_EVENTS - 1)]));
	json_object_object_add(o, "events", a);
	return o;
}

void rd_events_free(struct rd *rd)
{
	unsigned int i;

	for (i = 0; i < RD_EVENTS; i++) {
		json_object_put(rd->ev[i]);
		rd->ev[i] = NULL;
	}
}

json_object *rd_jfixed(double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}
