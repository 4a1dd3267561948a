// SPDX-License-Identifier: GPL-2.0
/*
 * dcqcn_predict - what the shared DCQCN core says a flow's reaction point
 * (RP) state is after a list of events, so that a test can compare
 * rocecc.ko's flow dump with it.
 *
 * The tool runs include/rocecc/dcqcn.h itself (rocecc_rp_init,
 * rocecc_rp_on_cnp, rocecc_rp_on_send, rocecc_rp_advance) with a parameter
 * set from include/rocecc/params.h: it computes nothing of DCQCN on its
 * own. It only parses parameters and events and prints the core's state.
 *
 *   dcqcn_predict [-p PROFILE] [-P PARAMS.json] [-l KBPS] [-o KEYS]
 *                 [-e EVENTS]... [NAME=VALUE]...
 *
 * Parameters: a profile (mlx5, the default, or paper), or the JSON that
 * `rocecc -j param show dev DEV` prints (every parameter must be in it),
 * then NAME=VALUE overrides, each checked against the table's range.
 * Events (-e, several per argument separated by ';'; without -e, from
 * stdin, one or more per line, '#' starts a comment), times in ns of any
 * clock that never runs backwards (e.g. the kernel's CLOCK_MONOTONIC as
 * the flow dump gives it), with an optional unit (ns, us, ms, s) and an
 * optional leading '+' (relative to the latest time seen):
 *
 *   cnp T [N [GAP]]       N CNPs (default 1) at T, T+GAP, ...
 *   send T LEN [N [GAP]]  N packets of LEN bytes leave at T, T+GAP, ...
 *   advance T             bring the state up to T (what a flow dump does)
 *   print                 print the state
 *   window T1 T2          print every distinct state the core passes
 *                         through from T1 to T2: the state at T1, then the
 *                         state after each alpha tick or timer event due up
 *                         to T2 (once alpha shows 0 with no CNP pending,
 *                         ticks are skipped: alpha only decays then, and
 *                         in 1/1024 it stays 0). A flow dump taken at an
 *                         unknown time in [T1, T2] must equal one of these
 *                         lines.
 *
 * Without print or window the final state is printed. A state is one line
 * of KEY=VALUE pairs, keys named as in `rocecc -j flow show` where the
 * dump has them (-o KEY,KEY,... chooses and orders them; window merges
 * consecutive lines that are equal in the chosen keys other than t).
 * -S prints the parameter set as `rocecc -j param show` does, and exits.
 *
 * Exit status: 0 ok, 1 bad parameter or event (the message names it),
 * 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include <rocecc/dcqcn.h>
#include <rocecc/params.h>

#define MAX_KEYS	32
#define WINDOW_MAX	100000	/* events one window may step through */

static const char *prog = "dcqcn_predict";

static const char *const profiles[__ROCECC_PROFILE_MAX] = {
	[ROCECC_PROFILE_MLX5] = "mlx5",
	[ROCECC_PROFILE_PAPER] = "paper",
};

/* The printable fields of struct rocecc_rp, in default order. */
enum key {
	K_T, K_LIMITED, K_RATE, K_TARGET, K_ALPHA, K_CUTS, K_HANDLED,
	K_IGNORED, K_INC_TIMER, K_INC_BYTE, K_TIMER_STAGE, K_BYTE_STAGE,
	K_LAST_CUT, K_NEXT_TIMER, K_NEXT_ALPHA, K_BYTES, __K_MAX
};

static const char *const key_name[__K_MAX] = {
	[K_T] = "t",
	[K_LIMITED] = "limited",
	[K_RATE] = "rate_kbps",
	[K_TARGET] = "target_kbps",
	[K_ALPHA] = "alpha",
	[K_CUTS] = "cuts",
	[K_HANDLED] = "cnp_handled",
	[K_IGNORED] = "cnp_ignored",
	[K_INC_TIMER] = "inc_timer",
	[K_INC_BYTE] = "inc_byte",
	[K_TIMER_STAGE] = "timer_stage",
	[K_BYTE_STAGE] = "byte_stage",
	[K_LAST_CUT] = "last_cut_ns",
	[K_NEXT_TIMER] = "next_timer_ns",
	[K_NEXT_ALPHA] = "next_alpha_ns",
	[K_BYTES] = "byte_counter",
};

struct ctx {
	struct rocecc_params p;
	struct rocecc_rp rp;
	enum key keys[MAX_KEYS];
	unsigned int nkeys;
	bool printed;
	const char *where;	/* "-e argument", "stdin line 3", ... */
};

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-p PROFILE] [-P PARAMS.json] [-l KBPS] [-o KEYS]\n"
		"       %*s [-e EVENTS]... [NAME=VALUE]...\n"
		"       %s -S [-p PROFILE] [-P PARAMS.json] [NAME=VALUE]...\n"
		"Runs the shared DCQCN core (include/rocecc/dcqcn.h) on RP events and\n"
		"prints the state it reaches.\n"
		"  -p, --profile P      mlx5 (default) or paper\n"
		"  -P, --params FILE    parameters from `rocecc -j param show dev DEV`\n"
		"                       (all of them; '-' = stdin, then events need -e)\n"
		"  -l, --line-rate KBPS the device's line rate in kb/s (default 0:\n"
		"                       unknown, as the core takes it)\n"
		"  -o, --keys K,K,...   keys to print (default all): t limited rate_kbps\n"
		"                       target_kbps alpha cuts cnp_handled cnp_ignored\n"
		"                       inc_timer inc_byte timer_stage byte_stage\n"
		"                       last_cut_ns next_timer_ns next_alpha_ns\n"
		"                       byte_counter\n"
		"  -e, --events E;E;... events (else from stdin, '#' comments):\n"
		"         cnp T [N [GAP]] | send T LEN [N [GAP]] | advance T | print |\n"
		"         window T1 T2\n"
		"       times in ns, or with a unit ns/us/ms/s; '+T' is relative to\n"
		"       the latest time seen\n"
		"  -S, --show-params    print the parameter set as JSON and exit\n"
		"  NAME=VALUE           override one parameter (mlx5 names)\n"
		"Exit status: 0 ok, 1 bad parameter or event, 2 usage.\n",
		prog, (int)strlen(prog), "", prog);
}

/* --- parameters ------------------------------------------------------------ */

static int profile_by_name(const char *s)
{
	unsigned int i;

	for (i = 0; i < __ROCECC_PROFILE_MAX; i++)
		if (!strcmp(s, profiles[i]))
			return (int)i;
	return -1;
}

static int parse_u32(const char *s, __u32 *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > 0xffffffffULL)
		return -1;
	*v = (__u32)x;
	return 0;
}

static int set_param(struct rocecc_params *p, const char *name, __u32 v,
		     const char *src)
{
	unsigned int id = rocecc_param_by_name(name);
	const struct rocecc_param_info *pi;

	if (!id) {
		err("%s: unknown parameter '%s'", src, name);
		return -1;
	}
	pi = rocecc_param_info(id);
	if (rocecc_params_set(p, id, v)) {
		err("%s: %s %u is out of range %u..%u (%s)", src, name, v,
		    pi->min, pi->max, pi->unit);
		return -1;
	}
	return 0;
}

/* NAME=VALUE */
static int override(struct rocecc_params *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[64];
	__u32 v;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
		err("'%s': expected NAME=VALUE", arg);
		return -1;
	}
	memcpy(name, arg, eq - arg);
	name[eq - arg] = '\0';
	if (parse_u32(eq + 1, &v)) {
		err("%s: '%s' is not a number 0..4294967295", name, eq + 1);
		return -1;
	}
	return set_param(p, name, v, "override");
}

/*
 * The parameter set of `rocecc -j param show dev DEV`: an array with one
 * object {"dev", "ifindex", "profile", "params": {NAME: VALUE, ...}}, or
 * that object. Every parameter must be there: a prediction from a partial
 * set would silently use this tool's defaults.
 */
static int load_json(struct rocecc_params *p, const char *file)
{
	json_object *root, *o, *params;
	bool have[ROCECC_PARAM_MAX + 1] = { false };
	unsigned int id;
	int ret = -1;
	int64_t v;

	root = strcmp(file, "-") ? json_object_from_file(file) :
				   json_object_from_fd(0);
	if (!root) {
		err("%s: not JSON: %s", file, json_util_get_last_err());
		return -1;
	}
	o = root;
	if (json_object_is_type(root, json_type_array)) {
		if (json_object_array_length(root) != 1) {
			err("%s: %zu parameter sets; give one (rocecc -j param show dev DEV)",
			    file, json_object_array_length(root));
			goto out;
		}
		o = json_object_array_get_idx(root, 0);
	}
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "params", &params) ||
	    !json_object_is_type(params, json_type_object)) {
		err("%s: no \"params\" object (rocecc -j param show dev DEV)",
		    file);
		goto out;
	}
	json_object_object_foreach(params, name, val) {
		id = rocecc_param_by_name(name);
		if (!id) {
			err("%s: unknown parameter '%s' (a newer rocecc?)",
			    file, name);
			goto out;
		}
		if (!json_object_is_type(val, json_type_int)) {
			err("%s: %s is not an integer", file, name);
			goto out;
		}
		v = json_object_get_int64(val);
		if (v < 0 || v > 0xffffffffLL) {
			err("%s: %s %" PRId64 " is not a u32", file, name, v);
			goto out;
		}
		if (set_param(p, name, (__u32)v, file))
			goto out;
		have[id] = true;
	}
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (!have[id]) {
			err("%s: parameter %s is missing (an older rocecc?)",
			    file, rocecc_param_info(id)->name);
			goto out;
		}
	}
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

static void show_params(const struct rocecc_params *p)
{
	json_object *arr = json_object_new_array();
	json_object *o = json_object_new_object();
	json_object *pj = json_object_new_object();
	const char *profile = "custom";
	struct rocecc_params d;
	unsigned int i, id;

	for (i = 0; i < __ROCECC_PROFILE_MAX; i++) {
		rocecc_params_load(&d, i);
		if (!memcmp(&d, p, sizeof(d)))
			profile = profiles[i];
	}
	json_object_object_add(o, "dev", json_object_new_string("dcqcn_predict"));
	json_object_object_add(o, "ifindex", json_object_new_int64(0));
	json_object_object_add(o, "profile", json_object_new_string(profile));
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		json_object_object_add(pj, rocecc_param_info(id)->name,
				       json_object_new_int64(p->v[id]));
	json_object_object_add(o, "params", pj);
	json_object_array_add(arr, o);
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
	json_object_put(arr);
}

/* --- output ---------------------------------------------------------------- */

static __u64 key_value(const struct rocecc_rp *rp, enum key k)
{
	switch (k) {
	case K_T:		return rp->now;
	case K_LIMITED:		return rp->limited;
	case K_RATE:		return rp->rate;
	case K_TARGET:		return rp->target;
	case K_ALPHA:		return rp->alpha;
	case K_CUTS:		return rp->cuts;
	case K_HANDLED:		return rp->cnp_handled;
	case K_IGNORED:		return rp->cnp_ignored;
	case K_INC_TIMER:	return rp->inc_timer;
	case K_INC_BYTE:	return rp->inc_byte;
	case K_TIMER_STAGE:	return rp->timer_stage;
	case K_BYTE_STAGE:	return rp->byte_stage;
	case K_LAST_CUT:	return rp->limited ? rp->last_cut : 0;
	case K_NEXT_TIMER:	return rp->limited ? rp->next_timer : 0;
	case K_NEXT_ALPHA:	return rp->limited ? rp->next_alpha : 0;
	case K_BYTES:		return rp->bytes;
	default:		return 0;
	}
}

static int parse_keys(struct ctx *c, const char *arg)
{
	char buf[512], *tok, *save = NULL;
	unsigned int k;

	if (strlen(arg) >= sizeof(buf)) {
		err("-o: too long");
		return -1;
	}
	strcpy(buf, arg);
	c->nkeys = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < __K_MAX; k++)
			if (!strcmp(tok, key_name[k]))
				break;
		if (k == __K_MAX) {
			err("-o: unknown key '%s' (see -h)", tok);
			return -1;
		}
		if (c->nkeys == MAX_KEYS) {
			err("-o: more than %d keys", MAX_KEYS);
			return -1;
		}
		c->keys[c->nkeys++] = (enum key)k;
	}
	if (!c->nkeys) {
		err("-o: no keys");
		return -1;
	}
	return 0;
}

/* The state as a line; @with_t false leaves "t" out (for comparing). */
static void format_state(const struct ctx *c, bool with_t, char *buf,
			 size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < c->nkeys && n < len; i++) {
		if (c->keys[i] == K_T && !with_t)
			continue;
		n += snprintf(buf + n, len - n, "%s%s=%llu", n ? " " : "",
			      key_name[c->keys[i]],
			      (unsigned long long)key_value(&c->rp, c->keys[i]));
	}
}

static void print_state(struct ctx *c)
{
	char line[1024];

	format_state(c, true, line, sizeof(line));
	puts(line);
	c->printed = true;
}

/* --- events ---------------------------------------------------------------- */

/* A time: [+]DIGITS[ns|us|ms|s]; '+' is relative to the latest time seen. */
static int parse_time(const struct ctx *c, const char *s, __u64 *t)
{
	static const struct { const char *u; __u64 mul; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	bool rel = *s == '+';
	unsigned long long x;
	unsigned int i;
	char *end;

	if (rel)
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].u))
			continue;
		if (x > UINT64_MAX / units[i].mul)
			return -1;
		x *= units[i].mul;
		if (rel && x > UINT64_MAX - c->rp.now)
			return -1;
		*t = rel ? c->rp.now + x : x;
		return 0;
	}
	return -1;
}

static int parse_count(const char *s, __u64 *n)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*n = x;
	return 0;
}

/*
 * Every state between @t1 and @t2: the state changes only at alpha ticks
 * (next_alpha) and timer events (next_timer), and after an advance to t
 * both lie beyond t, so stepping from one to the next visits them all.
 */
static int window(struct ctx *c, __u64 t1, __u64 t2)
{
	char prev[1024], cur[1024];
	unsigned int steps = 0;
	__u64 t;

	rocecc_rp_advance(&c->rp, &c->p, t1);
	format_state(c, false, prev, sizeof(prev));
	print_state(c);
	while (c->rp.limited) {
		/* Ticks after alpha shows 0 (1/1024) change nothing shown. */
		t = c->rp.next_timer;
		if ((c->rp.alpha || c->rp.cnp_arrived) && c->rp.next_alpha < t)
			t = c->rp.next_alpha;
		if (t > t2)
			break;
		if (++steps > WINDOW_MAX) {
			err("%s: window: more than %d events up to %llu", c->where,
			    WINDOW_MAX, (unsigned long long)t2);
			return -1;
		}
		rocecc_rp_advance(&c->rp, &c->p, t);
		format_state(c, false, cur, sizeof(cur));
		if (strcmp(cur, prev)) {
			print_state(c);
			strcpy(prev, cur);
		}
	}
	/* The state ends at t2 (nothing changes after the last event). */
	rocecc_rp_advance(&c->rp, &c->p, t2);
	return 0;
}

/* One event, as words. */
static int event(struct ctx *c, char **w, int n)
{
	__u64 t, t2, cnt = 1, gap = 0, len, i;
	char ev[256];

	if (!strcmp(w[0], "cnp") && n >= 2 && n <= 4) {
		if (parse_time(c, w[1], &t) ||
		    (n > 2 && parse_count(w[2], &cnt)) ||
		    (n > 3 && parse_time(c, w[3], &gap)))
			goto bad;
		for (i = 0; i < cnt; i++)
			rocecc_rp_on_cnp(&c->rp, &c->p, t + i * gap);
		return 0;
	}
	if (!strcmp(w[0], "send") && n >= 3 && n <= 5) {
		if (parse_time(c, w[1], &t) || parse_count(w[2], &len) ||
		    len > ROCECC_RP_PACE_LEN_MAX ||
		    (n > 3 && parse_count(w[3], &cnt)) ||
		    (n > 4 && parse_time(c, w[4], &gap)))
			goto bad;
		for (i = 0; i < cnt; i++)
			rocecc_rp_on_send(&c->rp, &c->p, t + i * gap,
					  (__u32)len);
		return 0;
	}
	if (!strcmp(w[0], "advance") && n == 2) {
		if (parse_time(c, w[1], &t))
			goto bad;
		rocecc_rp_advance(&c->rp, &c->p, t);
		return 0;
	}
	if (!strcmp(w[0], "print") && n == 1) {
		print_state(c);
		return 0;
	}
	if (!strcmp(w[0], "window") && n == 3) {
		if (parse_time(c, w[1], &t) || parse_time(c, w[2], &t2) ||
		    t2 < t)
			goto bad;
		return window(c, t, t2);
	}
bad:
	for (i = 0, len = 0; i < (__u64)n && len < sizeof(ev); i++)
		len += snprintf(ev + len, sizeof(ev) - len, "%s%s",
				i ? " " : "", w[i]);
	err("%s: bad event '%s' (cnp T [N [GAP]] | send T LEN [N [GAP]] | advance T | print | window T1 T2)",
	    c->where, ev);
	return -1;
}

/* Events separated by ';' (and, from stdin, newlines); '#' to the end. */
static int events(struct ctx *c, char *s)
{
	char *ev, *save = NULL, *hash, *w[8], *wsave;
	int n;

	hash = strchr(s, '#');
	if (hash)
		*hash = '\0';
	for (ev = strtok_r(s, ";\n", &save); ev;
	     ev = strtok_r(NULL, ";\n", &save)) {
		n = 0;
		wsave = NULL;
		for (w[n] = strtok_r(ev, " \t\r", &wsave); w[n];
		     w[n] = strtok_r(NULL, " \t\r", &wsave)) {
			if (++n == (int)(sizeof(w) / sizeof(w[0]))) {
				err("%s: too many words in an event", c->where);
				return -1;
			}
		}
		if (n && event(c, w, n))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "params", required_argument, NULL, 'P' },
		{ "line-rate", required_argument, NULL, 'l' },
		{ "keys", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, 'e' },
		{ "show-params", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL, *keys = NULL;
	char **evs = calloc(argc, sizeof(char *));
	char where[64], line[4096];
	unsigned int nevs = 0, lineno = 0, i;
	int profile = ROCECC_PROFILE_MLX5, opt;
	bool show = false;
	__u32 line_kbps = 0;
	struct ctx c;

	if (!evs)
		return 1;
	memset(&c, 0, sizeof(c));
	while ((opt = getopt_long(argc, argv, "p:P:l:o:e:Sh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			profile = profile_by_name(optarg);
			if (profile < 0) {
				err("-p: unknown profile '%s' (mlx5, paper)", optarg);
				return 2;
			}
			break;
		case 'P':
			json = optarg;
			break;
		case 'l':
			if (parse_u32(optarg, &line_kbps)) {
				err("-l: '%s' is not a rate in kb/s", optarg);
				return 2;
			}
			break;
		case 'o':
			keys = optarg;
			break;
		case 'e':
			evs[nevs++] = optarg;
			break;
		case 'S':
			show = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (json && !strcmp(json, "-") && !nevs && !show) {
		err("-P -: parameters from stdin need the events in -e");
		return 2;
	}

	rocecc_params_load(&c.p, profile);
	if (json && load_json(&c.p, json))
		return 1;
	for (i = optind; i < (unsigned int)argc; i++)
		if (override(&c.p, argv[i]))
			return 1;
	if (rocecc_params_validate(&c.p)) {
		err("the parameter set is not valid");
		return 1;
	}
	if (show) {
		show_params(&c.p);
		return 0;
	}
	if (keys) {
		if (parse_keys(&c, keys))
			return 2;
	} else {
		for (i = 0; i < __K_MAX; i++)
			c.keys[c.nkeys++] = (enum key)i;
	}

	rocecc_rp_init(&c.rp, &c.p, line_kbps);
	if (nevs) {
		for (i = 0; i < nevs; i++) {
			snprintf(where, sizeof(where), "-e argument %u", i + 1);
			c.where = where;
			if (events(&c, evs[i]))
				return 1;
		}
	} else {
		while (fgets(line, sizeof(line), stdin)) {
			snprintf(where, sizeof(where), "stdin line %u", ++lineno);
			c.where = where;
			if (events(&c, line))
				return 1;
		}
	}
	if (!c.printed)
		print_state(&c);
	free(evs);
	return fflush(stdout) ? 1 : 0;
}
