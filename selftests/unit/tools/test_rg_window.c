// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen's --window-ms: the option's value, which posts a window holds
 * (by post time, [from, to)), and the split of a run's latencies into the
 * whole run's histogram and the window's, against the percentiles of the
 * window's messages picked out by hand; and that the window's histogram is
 * allocated only when there is a window.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "rg_lib.h"

#define MS 1000000ull

static void window_ok(const char *s, uint64_t from, uint64_t to)
{
	struct rg_window w = { 1, 1 };
	int r = rg_parse_window(s, &w);

	if (tap_ok(r == 0 && w.from_ns == from && w.to_ns == to,
		   "window '%s' = %llu..%llu ns", s, (unsigned long long)from,
		   (unsigned long long)to) == 0)
		tap_diag("r=%d from=%llu to=%llu", r,
			 (unsigned long long)w.from_ns,
			 (unsigned long long)w.to_ns);
}

static void window_bad(const char *s)
{
	struct rg_window w;

	tap_ok(rg_parse_window(s, &w) == -1, "window '%s' rejected", s);
}

static void parse(void)
{
	window_ok("0", 0, UINT64_MAX);
	window_ok("3000", 3000 * MS, UINT64_MAX);
	window_ok("3000:17500", 3000 * MS, 17500 * MS);
	window_ok("2500.5:18000", 2500500000ull, 18000 * MS);
	window_ok("0.000001:1", 1, MS);
	window_bad("");
	window_bad(NULL);
	window_bad(":100");
	window_bad("100:");
	window_bad("100:100");
	window_bad("200:100");
	window_bad("1s");
	window_bad("100:200:300");
	window_bad("-5:100");
	window_bad("18446744073709551615");	/* ms overflow as ns */
}

static void holds(void)
{
	struct rg_window w = { 3000 * MS, 17000 * MS };
	struct rg_window open = { 3000 * MS, UINT64_MAX };
	uint64_t t0 = 5000 * MS;

	tap_ok(!rg_window_holds(&w, t0, t0 + 3000 * MS - 1),
	       "a post 1 ns before the window is out");
	tap_ok(rg_window_holds(&w, t0, t0 + 3000 * MS),
	       "a post at the window's start is in");
	tap_ok(rg_window_holds(&w, t0, t0 + 17000 * MS - 1),
	       "a post 1 ns before the window's end is in");
	tap_ok(!rg_window_holds(&w, t0, t0 + 17000 * MS),
	       "a post at the window's end is out");
	tap_ok(!rg_window_holds(&w, t0, t0 - 1),
	       "a post before the start counts as at the start (out)");
	tap_ok(rg_window_holds(&open, t0, UINT64_MAX),
	       "an open window holds every later post");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define N 2000

/*
 * A run of N messages, one every 10 ms from t0: those posted in the first
 * 2.5 s take 300-780 ms (start-up cuts), the others 60-140 ms; the window
 * is 3..15 s. The whole run's p99 is a start-up message, the window's is
 * one of its own.
 */
static void split(void)
{
	static struct rg_hist all, win;
	static uint64_t want[N];
	struct rg_window w = { 3000 * MS, 15000 * MS };
	uint64_t t0 = 123456789, lat, post, p, x = 1;
	unsigned int i, nw = 0;
	const uint32_t ppms[] = { 500000, 990000, 999000, 1000000 };

	rg_hist_init(&all);
	rg_hist_init(&win);
	for (i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		post = t0 + i * 10 * MS;
		if (i < 250)
			lat = 300 * MS + (x >> 33) % (480 * MS);
		else
			lat = 60 * MS + (x >> 33) % (80 * MS);
		rg_hist_add_split(&all, &win, &w, t0, post, lat);
		if (rg_window_holds(&w, t0, post))
			want[nw++] = lat;
	}
	tap_ok(all.count == N, "every message in the whole run's histogram");
	tap_ok(nw == 1200 && win.count == nw,
	       "the window's: the 1200 posted in 3..15 s (%llu)",
	       (unsigned long long)win.count);
	qsort(want, nw, sizeof(want[0]), cmp_u64);
	for (i = 0; i < sizeof(ppms) / sizeof(ppms[0]); i++) {
		uint64_t exact = want[rocecc_hist_rank(nw, ppms[i]) - 1];

		p = rg_hist_percentile(&win, ppms[i]);
		tap_ok(p <= exact + exact / (2 * RG_HIST_SUB) &&
		       p + exact / (2 * RG_HIST_SUB) >= exact,
		       "window ppm %u: %llu ns ~ %llu", ppms[i],
		       (unsigned long long)p, (unsigned long long)exact);
	}
	tap_ok(rg_hist_percentile(&all, 990000) >= 300 * MS &&
	       win.max < 140 * MS,
	       "whole run's p99 from the start-up, window's max %llu ms",
	       (unsigned long long)(win.max / MS));
	rg_hist_init(&win);
	rg_hist_add_split(&all, &win, NULL, t0, t0 + 5000 * MS, MS);
	tap_ok(all.count == N + 1 && win.count == 0,
	       "no window: only the whole run's histogram");
}

/*
 * A flow's window histogram exists only with a window: without
 * --window-ms a run must not carry ~30 KB per QP (30 MB at 1024 QPs) it
 * never fills, and the split then counts in the whole run's alone.
 */
static void alloc(void)
{
	static struct rg_hist all;
	struct rg_window w = { 3000 * MS, UINT64_MAX };
	struct rg_hist *win = (struct rg_hist *)&all;
	uint64_t t0 = 1000;

	tap_ok(rg_window_hist_alloc(NULL, &win) == 0 && !win,
	       "no window: no window histogram");
	rg_hist_init(&all);
	rg_hist_add_split(&all, win, NULL, t0, t0 + 5000 * MS, MS);
	tap_ok(all.count == 1, "no window, NULL histogram: the whole run counts");
	tap_ok(rg_window_hist_alloc(&w, &win) == 0 && win &&
	       win->count == 0 && win->min == UINT64_MAX,
	       "a window: an empty window histogram");
	if (!win)
		return;
	rg_hist_add_split(&all, win, &w, t0, t0 + 5000 * MS, MS);
	tap_ok(all.count == 2 && win->count == 1 && win->max == MS,
	       "... which counts the window's posts");
	free(win);
}

int main(void)
{
	parse();
	holds();
	split();
	alloc();
	return tap_done();
}
