// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's events (daemon/roceccd/events.c) as
 * /events.json?since=N reads them: the value of since (a decimal u64,
 * nothing else), which events a reader gets (0, the newest, past the
 * newest, -1 as a u64, huge, a ring that wrapped, an empty ring), the
 * count of events it lost, and the JSON made of them: json-c's, valid
 * whatever the names in it hold, ascending, no duplicate.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "roceccd/roceccd.h"
#include "tap.h"

const char rd_prog[] = "test_events";

static struct rd *rd;
static struct rd_event out[RD_EVENTS];

/* A fresh ring with @n events, seq 1..n; event i carries "i": i. */
static void fill(uint64_t n)
{
	uint64_t i;

	rd_events_free(rd);
	memset(rd, 0, sizeof(*rd));
	for (i = 1; i <= n; i++)
		rd_event(rd, "test", "i", json_object_new_uint64(i),
			 "name", rd_json_str("q\"b\\"), NULL);
}

/* Member @key of event JSON @text as an integer; ~0 if not there. */
static uint64_t member_u64(const char *text, const char *key)
{
	json_object *o = text ? json_tokener_parse(text) : NULL, *v;
	uint64_t r = ~0ULL;

	if (o && json_object_object_get_ex(o, key, &v))
		r = json_object_get_uint64(v);
	json_object_put(o);
	return r;
}

/*
 * The events after @since in a ring of @total: want @want_n of them, seq
 * @want_first on, ascending and each the event of its seq, and @want_lost.
 */
static void after(uint64_t total, uint64_t since, size_t want_n,
		  uint64_t want_first, uint64_t want_lost, const char *what)
{
	uint64_t lost = ~0ULL;
	size_t n, i, bad = 0;

	fill(total);
	memset(out, 0xa5, sizeof(out));
	n = rd_events_after(rd->ev, rd->ev_seq, since, out, RD_EVENTS, &lost);
	tap_eq(n, want_n, "%s: %zu events", what, want_n);
	for (i = 0; i < n; i++)
		if (out[i].seq != want_first + i ||
		    member_u64(out[i].json, "i") != want_first + i ||
		    member_u64(out[i].json, "seq") != want_first + i)
			bad++;
	tap_ok(n == want_n && !bad, "%s: seq %" PRIu64 "..%" PRIu64
	       ", in order, each once, each its own event (%zu wrong)", what,
	       want_first, want_first + want_n - 1, bad);
	tap_eq(lost, want_lost, "%s: lost %" PRIu64, what, want_lost);
	rd_events_put(out, n);
}

static void test_after(void)
{
	uint64_t oldest = 1000 - RD_EVENTS + 1;	/* 745 */
	uint64_t lost;
	size_t n;

	after(0, 0, 0, 1, 0, "empty ring, since 0");
	after(0, 5, 0, 1, 0, "empty ring, since 5");
	after(10, 0, 10, 1, 0, "10 events, since 0");
	after(10, 4, 6, 5, 0, "10 events, since 4");
	after(10, 10, 0, 11, 0, "10 events, since the newest");
	after(10, 11, 0, 11, 0, "10 events, since newest + 1");
	after(10, UINT64_MAX, 0, 11, 0, "10 events, since 2^64-1 (-1)");
	after(10, 1000000000000000000ULL, 0, 11, 0, "10 events, since 10^18");
	after(RD_EVENTS, 0, RD_EVENTS, 1, 0, "a full ring, since 0");
	after(1000, 0, RD_EVENTS, oldest, oldest - 1,
	      "wrapped (1000 events), since 0");
	after(1000, oldest - 2, RD_EVENTS, oldest, 1,
	      "wrapped, since 2 before the oldest");
	after(1000, oldest - 1, RD_EVENTS, oldest, 0,
	      "wrapped, since just before the oldest");
	after(1000, 900, 100, 901, 0, "wrapped, since 900");
	after(1000, 999, 1, 1000, 0, "wrapped, since newest - 1");
	after(1000, 1000, 0, 1001, 0, "wrapped, since the newest");
	after(1000, 1001, 0, 1001, 0, "wrapped, since newest + 1");
	after(1000, UINT64_MAX, 0, 1001, 0, "wrapped, since 2^64-1 (-1)");
	after(1000, UINT64_MAX - 1, 0, 1001, 0, "wrapped, since 2^64-2");

	/* fewer slots than events: the oldest of them, nothing written past */
	fill(1000);
	memset(out, 0xa5, sizeof(out));
	n = rd_events_after(rd->ev, rd->ev_seq, 900, out, 10, &lost);
	tap_ok(n == 10 && out[0].seq == 901 && out[9].seq == 910 &&
	       out[10].seq == 0xa5a5a5a5a5a5a5a5ULL,
	       "room for 10: seq 901..910, nothing past the room");
	rd_events_put(out, n);

	/* a slot whose event could not be stored counts as lost */
	fill(10);
	free(rd->ev[5].json);
	rd->ev[5].json = NULL;
	n = rd_events_after(rd->ev, rd->ev_seq, 0, out, RD_EVENTS, &lost);
	tap_ok(n == 9 && lost == 1 && out[4].seq == 6,
	       "an event not stored: lost 1, the others in order");
	rd_events_put(out, n);
}

static void since_ok(const char *s, uint64_t want)
{
	uint64_t v = 12345;
	int err = rd_event_since(s, &v);

	tap_ok(!err && v == want, "since '%s' is %" PRIu64, s, want);
}

static void since_bad(const char *s)
{
	uint64_t v = 12345;
	int err = rd_event_since(s, &v);

	tap_ok(err < 0, "since '%s' is refused (%d)", s, err);
}

static void test_since(void)
{
	since_ok("0", 0);
	since_ok("42", 42);
	since_ok("007", 7);
	since_ok("18446744073709551615", UINT64_MAX);
	since_bad("18446744073709551616");
	since_bad("99999999999999999999999");
	since_bad("-1");
	since_bad("-0");
	since_bad("+1");
	since_bad(" 1");
	since_bad("1 ");
	since_bad("0x10");
	since_bad("1e3");
	since_bad("12abc");
	since_bad("abc");
	since_bad("");
}

/* /events.json of the ring as it is, since @since, parsed back by json-c. */
static json_object *served(uint64_t since, uint64_t *lost, size_t *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *o;

	*n = rd_events_after(rd->ev, rd->ev_seq, since, out, RD_EVENTS, lost);
	rd_events_json(f, rd->ev_seq, *lost, out, *n);
	rd_events_put(out, *n);
	fclose(f);
	o = json_tokener_parse(buf);
	if (!o)
		tap_diag("%.200s", buf);
	free(buf);
	return o;
}

/* The JSON of @total events read since @since: parsed back and checked. */
static void json_of(uint64_t total, uint64_t since, const char *what)
{
	uint64_t lost, prev = 0;
	json_object *o, *ev, *last, *jl;
	bool ordered = true;
	size_t n, i;

	fill(total);
	o = served(since, &lost, &n);
	tap_ok(o != NULL, "%s: valid JSON", what);
	if (!o)
		return;
	tap_ok(json_object_object_get_ex(o, "last", &last) &&
	       (uint64_t)json_object_get_int64(last) == total,
	       "%s: \"last\" is the newest seq, %" PRIu64, what, total);
	tap_ok(json_object_object_get_ex(o, "lost", &jl) &&
	       (uint64_t)json_object_get_int64(jl) == lost,
	       "%s: \"lost\" is %" PRIu64, what, lost);
	tap_ok(json_object_object_get_ex(o, "events", &ev) &&
	       json_object_array_length(ev) == n,
	       "%s: %zu events", what, n);
	for (i = 0; ev && i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i), *s, *nm;
		uint64_t seq;

		if (!json_object_object_get_ex(e, "seq", &s) ||
		    !json_object_object_get_ex(e, "name", &nm) ||
		    strcmp(json_object_get_string(nm), "q\"b\\")) {
			ordered = false;
			break;
		}
		seq = (uint64_t)json_object_get_int64(s);
		if (seq <= prev)
			ordered = false;
		prev = seq;
	}
	tap_ok(ordered, "%s: seq ascending, no duplicate, members intact",
	       what);
	json_object_put(o);
}

static const char *member(json_object *e, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(e, key, &v);
	return json_object_get_string(v);
}

/* Names that are not valid JSON as they are, and one of 4 KB. */
static void test_hostile(void)
{
	static const char hostile[] = "q\"b\\n\nl\x01" "c\xff" "e\xc3";
	json_object *o, *a, *e;
	char big[4096];
	uint64_t lost;
	size_t n;

	fill(0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rd_event(rd, "netdev_attached", "netdev", rd_json_str(hostile),
		 "dev", rd_json_str(big), "n", json_object_new_int64(7),
		 "p99_us", rd_jfixed(12.345, "%.1f"), NULL);
	o = served(0, &lost, &n);
	a = NULL;
	if (o)
		json_object_object_get_ex(o, "events", &a);
	tap_ok(o && a && json_object_array_length(a) == 1,
	       "a hostile name and a 4 KB one: the JSON parses");
	e = a ? json_object_array_get_idx(a, 0) : NULL;
	tap_is_str(member(e, "type"), "netdev_attached", "  type");
	tap_is_str(member(e, "netdev"), "q\"b\\n\nl\x01" "c\xef\xbf\xbd" "e\xef\xbf\xbd",
		   "  the name: quotes, backslash, newline, control kept, bad bytes U+FFFD");
	tap_ok(member(e, "dev") && strlen(member(e, "dev")) == sizeof(big) - 1,
	       "  the long name whole");
	tap_is_str(member(e, "p99_us"), "12.3", "  a number as its format says");
	tap_ok(json_object_get_int64(json_object_object_get(e, "seq")) == 1 &&
	       member(e, "time") && strlen(member(e, "time")) == 24,
	       "  seq 1, an ISO 8601 time");
	json_object_put(o);
}

int main(void)
{
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return 1;
	test_since();
	test_after();
	json_of(0, 0, "empty ring");
	json_of(10, 3, "10 events since 3");
	json_of(1000, 0, "wrapped ring since 0");
	json_of(1000, 1001, "wrapped ring since newest + 1");
	test_hostile();
	rd_events_free(rd);
	free(rd);
	return tap_done();
}
