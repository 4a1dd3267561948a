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

/* A string as a JSON string literal (quotes included) into @buf. */
const char *rd_jstr(const char *s, char *buf, size_t n)
{
	json_object *o = json_object_new_string(s);

	snprintf(buf, n, "%s", json_object_to_json_string_ext(o,
		 JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return buf;
}
