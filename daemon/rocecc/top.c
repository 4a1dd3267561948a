// SPDX-License-Identifier: GPL-2.0
/*
 * "rocecc top": a live view of roceccd's flows. See top.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "flows.h"
#include "lib/http_get.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "top.h"

#define TOP_DEFAULT_ADDR	"127.0.0.1"
#define TOP_DEFAULT_PORT	"9468"	/* roceccd's default */
#define TOP_DELAY_MIN		0.1
#define TOP_DELAY_MAX		3600.0
#define TOP_COUNT_MAX		1000000000ul

/* --- rates ------------------------------------------------------------------ */

static const struct top_rate {
	const char *name;	/* in the flow's "rates" */
	const char *counter;	/* in the flow's "counters" */
	double scale;		/* per second, times this */
} top_rates[] = {
	{ "tx_mbps",      "tx_bytes",             8e-6 },
	{ "rx_mbps",      "rx_bytes",             8e-6 },
	{ "msgs_per_s",   "tx_messages",          1.0 },
	{ "tx_cnp_per_s", "tx_cnp",               1.0 },
	{ "rx_cnp_per_s", "rx_cnp",               1.0 },
	{ "ce_per_s",     "rx_ce_marked_packets", 1.0 },
};
#define TOP_NRATES (sizeof(top_rates) / sizeof(top_rates[0]))

static int64_t int_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

/* counters.@name of @flow; false if it has none. */
static bool counter(json_object *flow, const char *name, uint64_t *out)
{
	json_object *c, *v;

	if (!json_object_object_get_ex(flow, "counters", &c) ||
	    !json_object_object_get_ex(c, name, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

/* A flow's identity across fetches. */
struct top_key {
	const char *dev, *peer;
	int64_t lqpn, rqpn;
	json_object *flow;
};

static void key_of(json_object *flow, struct top_key *k)
{
	k->dev = cli_flow_str(flow, "dev");
	k->peer = cli_flow_str(flow, "peer");
	k->lqpn = int_of(flow, "lqpn");
	k->rqpn = int_of(flow, "rqpn");
	k->flow = flow;
}

static int key_cmp(const void *a, const void *b)
{
	const struct top_key *x = a, *y = b;
	int c;

	if (x->lqpn != y->lqpn)
		return x->lqpn < y->lqpn ? -1 : 1;
	if (x->rqpn != y->rqpn)
		return x->rqpn < y->rqpn ? -1 : 1;
	c = strcmp(x->dev, y->dev);
	return c ? c : strcmp(x->peer, y->peer);
}

/* Did any counter of @cur go below its value in @old? */
static bool counters_reset(json_object *old, json_object *cur)
{
	json_object *c;

	if (!json_object_object_get_ex(cur, "counters", &c) ||
	    !json_object_is_type(c, json_type_object))
		return false;
	json_object_object_foreach(c, name, v) {
		uint64_t was;

		if (json_object_is_type(v, json_type_int) &&
		    counter(old, name, &was) && json_object_get_uint64(v) < was)
			return true;
	}
	return false;
}

/* Sets @flow's "rates" from @old (NULL: all null); true if it has rates. */
static bool flow_rates(json_object *flow, json_object *old, double interval)
{
	json_object *r = json_object_new_object();
	bool any = false, ok;
	size_t i;

	ok = old && interval > 0 && !counters_reset(old, flow);
	for (i = 0; i < TOP_NRATES; i++) {
		uint64_t a, b;

		if (ok && counter(old, top_rates[i].counter, &a) &&
		    counter(flow, top_rates[i].counter, &b)) {
			json_object_object_add(r, top_rates[i].name,
				json_object_new_double((double)(b - a) *
						       top_rates[i].scale / interval));
			any = true;
		} else {
			json_object_object_add(r, top_rates[i].name, NULL);
		}
	}
	json_object_object_add(flow, "rates", r);
	return any;
}

size_t cli_top_rates(json_object *prev, json_object *cur, double interval)
{
	size_t i, np = prev ? json_object_array_length(prev) : 0;
	size_t n = json_object_array_length(cur), with = 0;
	struct top_key *keys = NULL;

	if (np) {
		keys = calloc(np, sizeof(*keys));
		if (!keys)
			np = 0;		/* no memory: no rates this frame */
	}
	for (i = 0; i < np; i++)
		key_of(json_object_array_get_idx(prev, i), &keys[i]);
	if (np)
		qsort(keys, np, sizeof(*keys), key_cmp);
	for (i = 0; i < n; i++) {
		json_object *fl = json_object_array_get_idx(cur, i);
		struct top_key k, *old = NULL;

		key_of(fl, &k);
		if (np)
			old = bsearch(&k, keys, np, sizeof(*keys), key_cmp);
		with += flow_rates(fl, old ? old->flow : NULL, interval);
	}
	free(keys);
	return with;
}

/* --- sorting ---------------------------------------------------------------- */

static const struct cli_flow_sort top_sorts[] = {
	{ "p50",  "message_completion", "p50_us" },
	{ "p99",  "message_completion", "p99_us" },
	{ "p999", "message_completion", "p999_us" },
	{ "rtt",  "rtt",                "p99_us" },
	{ "tx",   "rates",              "tx_mbps" },
	{ "msgs", "rates",              "msgs_per_s" },
	{ "flow", NULL,                 NULL },
};

int cli_top_sort(json_object *flows, const char *key)
{
	return cli_flows_sort(flows, key, top_sorts,
			      sizeof(top_sorts) / sizeof(top_sorts[0]));
}

/* --- frames ----------------------------------------------------------------- */

size_t cli_top_stragglers(json_object *flows)
{
	size_t i, n = json_object_array_length(flows), s = 0;

	for (i = 0; i < n; i++) {
		json_object *v;

		if (json_object_object_get_ex(json_object_array_get_idx(flows, i),
					      "straggler", &v) &&
		    json_object_is_type(v, json_type_boolean) &&
		    json_object_get_boolean(v))
			s++;
	}
	return s;
}

/* Sum of rate @i over the flows that have it; false if none has. */
static bool rate_sum(json_object *flows, size_t i, double *sum)
{
	size_t j, n = json_object_array_length(flows);
	bool any = false;

	*sum = 0;
	for (j = 0; j < n; j++) {
		double v = cli_flow_num(json_object_array_get_idx(flows, j),
					"rates", top_rates[i].name);

		if (v >= 0) {
			*sum += v;
			any = true;
		}
	}
	return any;
}

/* A rate or a microsecond value in @w columns; '-' if negative (none). */
static void put_num(FILE *f, int w, double v)
{
	if (v < 0)
		fprintf(f, " %*s", w, "-");
	else if (v < 1e6)
		fprintf(f, " %*.1f", w, v);
	else if (v < 1e9)
		fprintf(f, " %*.0f", w, v);
	else
		fprintf(f, " %*.3g", w, v);
}

static void put_groups(FILE *f, json_object *flow)
{
	json_object *g;
	size_t i, n;
	bool any = false;

	if (json_object_object_get_ex(flow, "groups", &g) &&
	    json_object_is_type(g, json_type_array)) {
		n = json_object_array_length(g);
		for (i = 0; i < n; i++) {
			const char *s = json_object_get_string(json_object_array_get_idx(g, i));
			char t[512];

			if (!s || !*s)
				continue;
			fprintf(f, "%s%s", any ? "," : "", rd_text_line(s, t, sizeof(t)));
			any = true;
		}
	}
	if (!any)
		fputc('-', f);
}

void cli_top_print(FILE *f, const struct cli_top_view *v, json_object *flows)
{
	static const char *const sum_fmt[TOP_NRATES] = {
		"  tx %s Mbit/s", "  rx %s Mbit/s", "  msgs %s/s",
		"  cnp tx %s/s", "  cnp rx %s/s", "  ce %s/s",
	};
	size_t i, n = json_object_array_length(flows);
	char clock[16] = "?";
	time_t t = (time_t)v->now;
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	fprintf(f, "rocecc top - %s  %s  sort %s", clock, v->url,
		v->sort ? v->sort : "p99");
	if (v->interval > 0)
		fprintf(f, "  interval %.2f s", v->interval);
	fprintf(f, "\nflows %zu  stragglers %zu", n, cli_top_stragglers(flows));
	for (i = 0; i < TOP_NRATES; i++) {
		char buf[32] = "-";
		double s;

		if (rate_sum(flows, i, &s))
			snprintf(buf, sizeof(buf), "%.1f", s);
		fprintf(f, sum_fmt[i], buf);
	}
	fputc('\n', f);
	if (v->error)
		fprintf(f, "error: %s\n", v->error);
	fprintf(f, "\nS %-40s %-8s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %s\n",
		"FLOW", "DEV", "TX_MBPS", "RX_MBPS", "MSGS/S", "TXCNP/S",
		"RXCNP/S", "CE/S", "MCT_P50", "MCT_P99", "MCT_P999", "RTT_P99",
		"GROUPS");
	for (i = 0; i < n; i++) {
		json_object *fl = json_object_array_get_idx(flows, i), *s;
		bool slow = json_object_object_get_ex(fl, "straggler", &s) &&
			    json_object_is_type(s, json_type_boolean) &&
			    json_object_get_boolean(s);
		size_t r;

		const char *name = cli_flow_str(fl, "flow");
		const char *dev = cli_flow_str(fl, "dev");
		char s1[512], s2[512];

		fprintf(f, "%c %-40s %-8s", slow ? '!' : ' ',
			*name ? rd_text_line(name, s1, sizeof(s1)) : "?",
			*dev ? rd_text_line(dev, s2, sizeof(s2)) : "?");
		for (r = 0; r < TOP_NRATES; r++)
			put_num(f, 9, cli_flow_num(fl, "rates", top_rates[r].name));
		put_num(f, 9, cli_flow_num(fl, "message_completion", "p50_us"));
		put_num(f, 9, cli_flow_num(fl, "message_completion", "p99_us"));
		put_num(f, 9, cli_flow_num(fl, "message_completion", "p999_us"));
		put_num(f, 9, cli_flow_num(fl, "rtt", "p99_us"));
		fputc(' ', f);
		put_groups(f, fl);
		fputc('\n', f);
	}
}

json_object *cli_top_json(const struct cli_top_view *v, json_object *flows)
{
	json_object *o = json_object_new_object();
	json_object *tot = json_object_new_object();
	size_t i;

	json_object_object_add(o, "time", json_object_new_double(v->now));
	json_object_object_add(o, "url", rd_json_str(v->url));
	json_object_object_add(o, "interval_s", v->interval > 0 ?
			       json_object_new_double(v->interval) : NULL);
	json_object_object_add(o, "sort",
			       rd_json_str(v->sort ? v->sort : "p99"));
	json_object_object_add(o, "flow_count",
			       json_object_new_int64(json_object_array_length(flows)));
	json_object_object_add(o, "stragglers",
			       json_object_new_int64(cli_top_stragglers(flows)));
	for (i = 0; i < TOP_NRATES; i++) {
		double s;

		json_object_object_add(tot, top_rates[i].name,
				       rate_sum(flows, i, &s) ?
				       json_object_new_double(s) : NULL);
	}
	json_object_object_add(o, "totals", tot);
	if (v->error)
		json_object_object_add(o, "error", rd_json_str(v->error));
	json_object_object_add(o, "flows", json_object_get(flows));
	return o;
}

/* --- arguments -------------------------------------------------------------- */

int cli_top_parse_delay(const char *s, double *out)
{
	char *end;
	double d;

	if (!*s || strpbrk(s, "xXpPnNiI"))	/* hex floats, nan, inf */
		return -1;
	errno = 0;
	d = strtod(s, &end);
	if (errno || *end || end == s || d < TOP_DELAY_MIN || d > TOP_DELAY_MAX)
		return -1;
	*out = d;
	return 0;
}

int cli_top_parse_count(const char *s, unsigned long *out)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')		/* no sign, no space */
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !n || n > TOP_COUNT_MAX)
		return -1;
	*out = n;
	return 0;
}

/* --- the loop --------------------------------------------------------------- */

static volatile sig_atomic_t top_stop, top_winch;
static struct termios top_saved;
static bool top_keys;		/* stdin in non-canonical mode */
static bool top_screen;		/* cursor hidden */

/* Async-signal-safe: the terminal as we found it. */
static void top_restore(void)
{
	if (top_keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &top_saved);
	if (top_screen && write(STDOUT_FILENO, "\033[?25h\n", 7) < 0) {
		/* nothing more to do about it */
	}
}

static void top_on_signal(int sig)
{
	if (sig == SIGWINCH) {
		top_winch = 1;
		return;
	}
	if (top_stop) {			/* stuck in a fetch: leave now */
		top_restore();
		_exit(CLI_EXIT_OK);
	}
	top_stop = 1;
}

static void top_term_setup(void)
{
	struct sigaction sa = { .sa_handler = top_on_signal };
	struct termios t;

	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: poll() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &top_saved)) {
		t = top_saved;
		t.c_lflag &= ~(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (!tcsetattr(STDIN_FILENO, TCSANOW, &t))
			top_keys = true;
	}
	top_screen = true;
	fputs("\033[?25l", stdout);	/* hide the cursor */
}

/*
 * Draw a text frame on the terminal from the top left, each line cut to
 * the width, as many lines as fit, erasing what the last frame left.
 */
static void top_draw(const struct cli_top_view *v, json_object *flows)
{
	unsigned int cols = 0, rows = 0, row = 0;
	struct winsize ws;
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *m;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		cols = ws.ws_col;
		rows = ws.ws_row;
	}
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	cli_top_print(m, v, flows);
	fclose(m);
	fputs("\033[H", stdout);
	for (line = buf; *line && (!rows || row < rows); row++) {
		size_t n = strcspn(line, "\n");

		if (row)
			fputc('\n', stdout);	/* none after the last row */
		fwrite(line, 1, cols && n > cols ? cols : n, stdout);
		fputs("\033[K", stdout);
		line += n + (line[n] == '\n');
	}
	fputs("\033[J", stdout);
	fflush(stdout);
	free(buf);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait until @deadline (monotonic seconds). 1 to quit ('q', a signal),
 * 2 to redraw now (the window was resized), 0 at the deadline or on space.
 */
static int top_wait(double deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		double left = deadline - mono_now();
		int ms, r;

		if (top_stop)
			return 1;
		if (top_winch) {
			top_winch = 0;
			return 2;
		}
		if (left <= 0)
			return 0;
		ms = (int)(left * 1000) + 1;
		r = poll(&pfd, top_keys ? 1 : 0, ms);
		if (r > 0 && top_keys) {
			char c[16];
			ssize_t k = read(STDIN_FILENO, c, sizeof(c)), i;

			if (k <= 0)			/* the terminal went away */
				return 1;
			for (i = 0; i < k; i++) {
				if (c[i] == 'q' || c[i] == 'Q')
					return 1;
				if (c[i] == ' ')
					return 0;
			}
		}
	}
}

/* The words after "top": 0 or CLI_EXIT_USAGE (with the message). */
static int top_args(int argc, char **argv, const char **addr,
		    const char **port, struct cli_top_view *v, double *delay,
		    unsigned long *count)
{
	json_object *empty;
	int bad;

	for (; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2) {
			fprintf(stderr, "rocecc: top: '%s' needs a value\n",
				argv[0]);
			return CLI_EXIT_USAGE;
		}
		if (cli_matches(argv[0], "addr")) {
			*addr = argv[1];
		} else if (cli_matches(argv[0], "port")) {
			*port = argv[1];
		} else if (cli_matches(argv[0], "sort")) {
			v->sort = argv[1];
		} else if (cli_matches(argv[0], "delay")) {
			if (cli_top_parse_delay(argv[1], delay)) {
				fprintf(stderr, "rocecc: top: delay: '%s' is not a number of seconds (0.1..3600)\n",
					argv[1]);
				return CLI_EXIT_USAGE;
			}
		} else if (cli_matches(argv[0], "count")) {
			if (cli_top_parse_count(argv[1], count)) {
				fprintf(stderr, "rocecc: top: count: '%s' is not a number of frames (1..%lu)\n",
					argv[1], TOP_COUNT_MAX);
				return CLI_EXIT_USAGE;
			}
		} else {
			fprintf(stderr, "rocecc: top: unknown argument '%s' (addr, port, sort, delay, count)\n",
				argv[0]);
			return CLI_EXIT_USAGE;
		}
	}
	empty = json_object_new_array();
	bad = cli_top_sort(empty, v->sort);
	json_object_put(empty);
	if (bad) {
		fprintf(stderr, "rocecc: top: sort: '%s' is not p50, p99, p999, rtt, tx, msgs or flow\n",
			v->sort);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* Sleep until @deadline (monotonic seconds); batch mode. */
static void top_sleep(double deadline)
{
	double left = deadline - mono_now();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (time_t)left) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* One frame of @flows: -j (NDJSON), on the terminal, or batch text. */
static void top_show(const struct cli_top_opts *o, bool interactive,
		     unsigned long frame, const struct cli_top_view *v,
		     json_object *flows)
{
	json_object *j;

	if (o->json) {
		j = cli_top_json(v, flows);
		printf("%s\n", json_object_to_json_string_ext(j,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else if (interactive) {
		top_draw(v, flows);
	} else {
		if (frame)
			putchar('\n');
		cli_top_print(stdout, v, flows);
	}
}

int cli_top(const struct cli_top_opts *o, int argc, char **argv)
{
	const char *addr = TOP_DEFAULT_ADDR, *port = TOP_DEFAULT_PORT;
	char url[512], msg[1024];
	struct cli_top_view v = { .url = url, .sort = "p99" };
	json_object *prev = NULL, *empty, *cur;
	unsigned long count = 0, frame;
	double delay = 1.0, prev_t = 0, t;
	bool interactive;
	int ret, w;

	ret = top_args(argc, argv, &addr, &port, &v, &delay, &count);
	if (ret)
		return ret;
	http_url(url, sizeof(url), addr, port, "/flows.json");
	interactive = !o->json && !count && isatty(STDOUT_FILENO);
	if (interactive)
		top_term_setup();
	empty = json_object_new_array();
	for (frame = 0; !top_stop; frame++) {
		t = mono_now();
		v.now = wall_now();
		cur = cli_flows_fetch(url, addr, port, msg, sizeof(msg));
		if (!cur && !interactive) {
			fprintf(stderr, "rocecc: top: %s\n", msg);
			ret = CLI_EXIT_FAIL;
			break;
		}
		if (cur) {
			v.interval = prev ? t - prev_t : 0;
			v.error = NULL;
			cli_top_rates(prev, cur, v.interval);
			cli_top_sort(cur, v.sort);
			json_object_put(prev);
			prev = cur;
			prev_t = t;
		} else {
			v.error = msg;	/* and the last flows, as they were */
		}
		top_show(o, interactive, frame, &v, prev ? prev : empty);
		if (fflush(stdout) == EOF || ferror(stdout)) {
			ret = CLI_EXIT_FAIL;
			break;
		}
		if (count && frame + 1 >= count)
			break;
		if (!interactive) {
			top_sleep(t + delay);
			continue;
		}
		while ((w = top_wait(t + delay)) == 2)
			top_draw(&v, prev ? prev : empty);
		if (w == 1)
			break;
	}
	if (interactive)
		top_restore();
	json_object_put(prev);
	json_object_put(empty);
	return ret;
}
