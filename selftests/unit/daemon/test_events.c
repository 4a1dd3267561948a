// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's events (daemon/roceccd/events.c): /events.json
 * is json-c's, whatever the names in it hold, and "since" and the ring's
 * bounds pick the right events.
 */
#include <stdlib.h>
#include <string.h>

#include "roceccd/roceccd.h"
#include "tap.h"

const char rd_prog[] = "test_events";

/* /events.json as the daemon writes it, parsed back by json-c. */
static json_object *served(const struct rd *rd, uint64_t since)
{
	json_object *o = rd_events_json(rd, since), *back;

	back = json_tokener_parse(json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return back;
}

static json_object *events_of(json_object *o)
{
	json_object *a = NULL;

	json_object_object_get_ex(o, "events", &a);
	return a;
}

static const char *member(json_object *e, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(e, key, &v);
	return json_object_get_string(v);
}

int main(void)
{
	static const char hostile[] = "q\"b\\n\nl\x01" "c\xff" "e\xc3";
	struct rd *rd = calloc(1, sizeof(*rd));
	json_object *o, *a, *e;
	char big[4096];
	unsigned int i;

	o = served(rd, 0);
	tap_ok(o && json_object_get_int64(json_object_object_get(o, "last")) == 0 &&
	       json_object_array_length(events_of(o)) == 0, "no events yet");
	json_object_put(o);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rd_event(rd, "netdev_attached", "netdev", rd_json_str(hostile),
		 "dev", rd_json_str(big), "n", json_object_new_int64(7),
		 "p99_us", rd_jfixed(12.345, "%.1f"), NULL);
	o = served(rd, 0);
	a = events_of(o);
	tap_ok(o && a && json_object_array_length(a) == 1,
	       "a hostile name and a 4 KB one: the JSON parses");
	e = json_object_array_get_idx(a, 0);
	tap_is_str(member(e, "type"), "netdev_attached", "  type");
	tap_is_str(member(e, "netdev"), "q\"b\\n\nl\x01" "c\xef\xbf\xbd" "e\xef\xbf\xbd",
		   "  the name: quotes, backslash, newline, control kept, bad bytes U+FFFD");
	tap_ok(strlen(member(e, "dev")) == sizeof(big) - 1, "  the long name whole");
	tap_is_str(member(e, "p99_us"), "12.3", "  a number as its format says");
	tap_ok(json_object_get_int64(json_object_object_get(e, "seq")) == 1 &&
	       strlen(member(e, "time")) == 24, "  seq 1, an ISO 8601 time");
	json_object_put(o);

	for (i = 0; i < RD_EVENTS + 10; i++)
		rd_event(rd, "tick", "i", json_object_new_int64(i), NULL);
	o = served(rd, 0);
	a = events_of(o);
	tap_eq(json_object_array_length(a), RD_EVENTS, "the ring keeps the newest %u",
	       RD_EVENTS);
	tap_eq(json_object_get_int64(json_object_object_get(json_object_array_get_idx(a, 0), "seq")),
	       RD_EVENTS + 11 - RD_EVENTS + 1, "  oldest first");
	json_object_put(o);
	o = served(rd, RD_EVENTS + 9);
	tap_eq(json_object_array_length(events_of(o)), 2, "since: only the later ones");
	json_object_put(o);
	o = served(rd, RD_EVENTS + 11);
	tap_eq(json_object_array_length(events_of(o)), 0, "since the newest: none");
	json_object_put(o);
	rd_events_free(rd);
	free(rd);
	return tap_done();
}
