// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen: RoCE traffic generator with per-message truth.
 * This file: command line, TCP exchange, helpers shared by the client
 * (rg_client.c) and the server (rg_server.c), JSON helpers.
 *
 *   rocegen --server [--port P] [--dev D] [--sessions N] [--json FILE|-]
 *   rocegen --client SERVER [--dev D] [--qps N] [--op write|send]
 *           [--size B] [--rate MBIT] [--duration S | --count N]
 *           [--window-ms START[:END]] ...
 *
 * The client measures: every message is posted signaled and its
 * post-to-completion time goes into a log-linear histogram per QP (and,
 * with --window-ms, into a second one if it was posted inside that span
 * of the run: a steady state's latency apart from the start-up's); bytes
 * completed are sampled every --sample-ms into a throughput series. The
 * server only owns the target buffer / receive queues and counts what
 * arrives. QP numbers, PSNs, GIDs and the target buffer's rkey/address are
 * exchanged as text lines over TCP (see the protocol comment below).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rocegen.h"

/*
 * TCP exchange, one text line per message (client C, server S):
 *   C: ROCEGEN <proto> op=<write|send> size=<B> qps=<N> depth=<D> mtu=<B>
 *   C: QP <idx> <qpn> <psn> <gid hex32>                      (N lines)
 *   S: OK mtu=<B>          or   ERR <reason>
 *   S: QP <idx> <qpn> <psn> <gid hex32> <rkey> <addr>        (N lines)
 *      ... RDMA traffic; the server's QPs are in RTS before its QP lines ...
 *   C: DONE
 *   S: STATS <idx> <messages> <bytes> <errors>               (N lines)
 *   S: BYE
 */

const char *const rg_op_names[] = { "write", "send" };
const char *const rg_wait_names[] = { "event", "sleep", "spin" };

volatile sig_atomic_t g_stop;
sigset_t g_origmask;
char g_lasterr[256];
cpu_set_t g_cpus_all;

/* -------------------------------------------------------------- reporting */

void rg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_lasterr, sizeof(g_lasterr), fmt, ap);
	va_end(ap);
	fprintf(stderr, RG_NAME ": %s\n", g_lasterr);
}

void rg_warn(const char *fmt, ...)
{
	va_list ap;

	fputs(RG_NAME ": warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t rg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	if (g_stop) {
		/* second signal: the user means it */
		g_stop = 2;
		return;
	}
	g_stop = 1;
}

static void setup_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: interrupt syscalls */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	/* signals are taken only inside ppoll(): no lost wakeups */
	sigprocmask(SIG_BLOCK, &block, &g_origmask);
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *f)
{
	fprintf(f,
"usage: rocegen --server [options]\n"
"       rocegen --client SERVER_ADDR [options]\n"
"\n"
"common:\n"
"  -p, --port P           TCP port of the exchange (default 18600)\n"
"  -d, --dev NAME         RDMA device (default: the only one)\n"
"      --ib-port N        device port (default 1)\n"
"  -g, --gid-index N      force this GID (default: the IPv4 RoCE v2 GID)\n"
"      --tclass N         GRH traffic class = DSCP<<2 | ECN (default 0;\n"
"                         2 sends ECT(0))\n"
"      --mtu B            path MTU 256..4096 (default: port's active MTU)\n"
"      --timeout N        QP ACK timeout exponent, 4.096us*2^N (default 14)\n"
"      --retry N          QP retry count 0..7 (default 7)\n"
"      --rnr-retry N      QP RNR retry count 0..7, 7 = forever (default 7)\n"
"      --cq-wait MODE     event (completion channel, default), sleep\n"
"                         (poll, nanosleep --sleep-us between), spin\n"
"      --sleep-us N       poll interval of --cq-wait sleep (default 50)\n"
"      --json FILE|-      write the JSON report (server: one line/session)\n"
"      --cpu N            pin to CPU N (soft-RoCE: keeps a QP's packets on\n"
"                         one CPU, so they are not reordered)\n"
"  -Q, --quiet            no human-readable summary\n"
"server:\n"
"      --bind ADDR        listen address (default: any)\n"
"      --sessions N       serve N clients, concurrently, then exit\n"
"                         (default 1; 0 = until SIGINT)\n"
"client:\n"
"  -c, --client ADDR      server's TCP address\n"
"  -q, --qps N            RC QPs (flows) (default 1)\n"
"  -o, --op write|send    operation (default write)\n"
"  -s, --size B           message size, K/M/G suffixes (default 16K)\n"
"  -r, --rate MBIT        offered rate per QP in Mbit/s (k/M/G suffixes);\n"
"                         0 = back-to-back (default 0)\n"
"      --burst B          token bucket depth (default: --depth/2 messages,\n"
"                         at least 2, or 4 ms at --rate if larger)\n"
"      --depth N          outstanding messages per QP (default 16)\n"
"  -D, --duration S       run time (s, ms, us suffixes) (default 10 s)\n"
"  -n, --count N          messages per QP (stops at the first of both)\n"
"      --sample-ms N      throughput sampling interval (default 10)\n"
"      --window-ms A[:B]  also the latency of the messages posted from A\n"
"                         to B ms after the start (default B: the end),\n"
"                         as \"window_latency\" in --json\n"
"      --allow-errors     exit 0 even if completions failed\n"
"      --connect-timeout S  keep retrying the TCP connect (default 10)\n");
}

enum {
	OPT_IB_PORT = 256, OPT_TCLASS, OPT_MTU, OPT_TIMEOUT, OPT_RETRY,
	OPT_RNR_RETRY, OPT_CQ_WAIT, OPT_SLEEP_US, OPT_JSON, OPT_BIND,
	OPT_SESSIONS, OPT_BURST, OPT_DEPTH, OPT_SAMPLE_MS, OPT_ALLOW_ERRORS,
	OPT_CONNECT_TIMEOUT, OPT_MIN_RNR, OPT_CPU, OPT_WINDOW_MS,
};

static const struct option long_opts[] = {
	{ "server", no_argument, NULL, 'S' },
	{ "client", required_argument, NULL, 'c' },
	{ "port", required_argument, NULL, 'p' },
	{ "dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, OPT_IB_PORT },
	{ "gid-index", required_argument, NULL, 'g' },
	{ "qps", required_argument, NULL, 'q' },
	{ "op", required_argument, NULL, 'o' },
	{ "size", required_argument, NULL, 's' },
	{ "rate", required_argument, NULL, 'r' },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "duration", required_argument, NULL, 'D' },
	{ "count", required_argument, NULL, 'n' },
	{ "tclass", required_argument, NULL, OPT_TCLASS },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "retry", required_argument, NULL, OPT_RETRY },
	{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
	{ "min-rnr-timer", required_argument, NULL, OPT_MIN_RNR },
	{ "sample-ms", required_argument, NULL, OPT_SAMPLE_MS },
	{ "window-ms", required_argument, NULL, OPT_WINDOW_MS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "cq-wait", required_argument, NULL, OPT_CQ_WAIT },
	{ "sleep-us", required_argument, NULL, OPT_SLEEP_US },
	{ "allow-errors", no_argument, NULL, OPT_ALLOW_ERRORS },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "sessions", required_argument, NULL, OPT_SESSIONS },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static __attribute__((noreturn, format(printf, 2, 3)))
void bad_opt(const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, RG_NAME ": --%s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rocegen --help'.\n");
	exit(2);
}

static unsigned int opt_uint(const char *opt, const char *s, uint64_t min,
			     uint64_t max)
{
	uint64_t v;
	int r = rg_parse_uint(s, min, max, &v);

	if (r == -1)
		bad_opt(opt, "'%s' is not a number", s);
	if (r == -2)
		bad_opt(opt, "%s is out of range %llu..%llu", s,
			(unsigned long long)min, (unsigned long long)max);
	return (unsigned int)v;
}

static void opts_defaults(struct rg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->port = "18600";
	o->ib_port = 1;
	o->gid_index = -1;
	o->qps = 1;
	o->op = RG_OP_WRITE;
	o->size = 16384;
	o->depth = 16;
	o->timeout = 14;
	o->retry = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 12;
	o->sample_ms = 10;
	o->wait = RG_WAIT_EVENT;
	o->sleep_us = 50;
	o->sessions = 1;
	o->connect_timeout_ns = 10000000000ull;
	o->cpu = -1;
}

/* What is sent and how (option @c, named @opt): false if not one of those. */
static bool opt_traffic(struct rg_opts *o, int c, const char *opt,
			bool *have_duration, bool *have_burst)
{
	uint64_t v;

	switch (c) {
	case 'o':
		if (!strcmp(optarg, "write"))
			o->op = RG_OP_WRITE;
		else if (!strcmp(optarg, "send"))
			o->op = RG_OP_SEND;
		else
			bad_opt(opt, "'%s' is not an operation (write, send)",
				optarg);
		return true;
	case 's':
		if (rg_parse_size(optarg, &v))
			bad_opt(opt, "'%s' is not a size (bytes, K, M, G)", optarg);
		if (v < 1 || v > RG_MAX_SIZE)
			bad_opt(opt, "'%s' is out of range 1..1G", optarg);
		o->size = v;
		return true;
	case 'r':
		if (rg_parse_rate(optarg, &o->rate_bps))
			bad_opt(opt, "'%s' is not a rate (Mbit/s, or with a k/M/G suffix)",
				optarg);
		if (o->rate_bps && o->rate_bps < 1000)
			bad_opt(opt, "'%s' is below 1 kbit/s", optarg);
		return true;
	case OPT_BURST:
		if (rg_parse_size(optarg, &o->burst))
			bad_opt(opt, "'%s' is not a size (bytes, K, M, G)", optarg);
		*have_burst = true;
		return true;
	case OPT_DEPTH:
		o->depth = opt_uint(opt, optarg, 1, RG_MAX_DEPTH);
		return true;
	case 'D':
		if (rg_parse_seconds(optarg, &o->duration_ns))
			bad_opt(opt, "'%s' is not a duration (seconds, or with s/ms/us)",
				optarg);
		if (!o->duration_ns)
			bad_opt(opt, "must be more than 0");
		*have_duration = true;
		return true;
	case 'n':
		if (rg_parse_uint(optarg, 1, RG_MAX_COUNT, &o->count))
			bad_opt(opt, "'%s' is not a message count (1..%llu)",
				optarg, (unsigned long long)RG_MAX_COUNT);
		return true;
	case OPT_SAMPLE_MS:
		o->sample_ms = opt_uint(opt, optarg, 1, 3600000);
		return true;
	case OPT_WINDOW_MS:
		if (rg_parse_window(optarg, &o->window))
			bad_opt(opt, "'%s' is not START[:END] (ms since the start, END > START)",
				optarg);
		o->have_window = true;
		return true;
	case OPT_CQ_WAIT:
		if (!strcmp(optarg, "event"))
			o->wait = RG_WAIT_EVENT;
		else if (!strcmp(optarg, "sleep"))
			o->wait = RG_WAIT_SLEEP;
		else if (!strcmp(optarg, "spin"))
			o->wait = RG_WAIT_SPIN;
		else
			bad_opt(opt, "'%s' is not a mode (event, sleep, spin)",
				optarg);
		return true;
	case OPT_SLEEP_US:
		o->sleep_us = opt_uint(opt, optarg, 1, 1000000);
		return true;
	case OPT_CPU:
		o->cpu = (int)opt_uint(opt, optarg, 0, CPU_SETSIZE - 1);
		return true;
	}
	return false;
}

/* Who talks to whom, the QPs and the output (option @c, named @opt). */
static void opt_conn(struct rg_opts *o, int c, const char *opt, char **argv)
{
	switch (c) {
	case 'S':
		o->server = true;
		break;
	case 'c':
		o->peer = optarg;
		break;
	case 'p':
		opt_uint(opt, optarg, 1, 65535);
		o->port = optarg;
		break;
	case 'd':
		o->dev = optarg;
		break;
	case OPT_IB_PORT:
		o->ib_port = (uint8_t)opt_uint(opt, optarg, 1, 255);
		break;
	case 'g':
		o->gid_index = (int)opt_uint(opt, optarg, 0, 65535);
		break;
	case 'q':
		o->qps = opt_uint(opt, optarg, 1, RG_MAX_QPS);
		break;
	case OPT_TCLASS:
		o->tclass = opt_uint(opt, optarg, 0, 255);
		break;
	case OPT_MTU:
		o->mtu = opt_uint(opt, optarg, 256, 4096);
		if (!rg_mtu_from_bytes(o->mtu))
			bad_opt(opt, "%s is not an RDMA MTU (256, 512, 1024, 2048, 4096)",
				optarg);
		break;
	case OPT_TIMEOUT:
		o->timeout = opt_uint(opt, optarg, 0, 31);
		break;
	case OPT_RETRY:
		o->retry = opt_uint(opt, optarg, 0, 7);
		break;
	case OPT_RNR_RETRY:
		o->rnr_retry = opt_uint(opt, optarg, 0, 7);
		break;
	case OPT_MIN_RNR:
		o->min_rnr_timer = opt_uint(opt, optarg, 0, 31);
		break;
	case OPT_JSON:
		o->json = optarg;
		break;
	case OPT_ALLOW_ERRORS:
		o->allow_errors = true;
		break;
	case OPT_BIND:
		o->bind = optarg;
		break;
	case OPT_SESSIONS:
		o->sessions = opt_uint(opt, optarg, 0, 1000000);
		break;
	case OPT_CONNECT_TIMEOUT:
		if (rg_parse_seconds(optarg, &o->connect_timeout_ns))
			bad_opt(opt, "'%s' is not a duration (seconds, or with s/ms/us)",
				optarg);
		break;
	case 'Q':
		o->quiet = true;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	case ':':
		fprintf(stderr, RG_NAME ": option '%s' needs a value\nTry 'rocegen --help'.\n",
			argv[optind - 1]);
		exit(2);
	default:
		fprintf(stderr, RG_NAME ": unknown option '%s'\nTry 'rocegen --help'.\n",
			argv[optind - 1]);
		exit(2);
	}
}

/* The checks across options, and the defaults that depend on others. */
static void opts_finish(struct rg_opts *o, bool have_duration,
			bool have_burst)
{
	if (o->server == !!o->peer) {
		fprintf(stderr, RG_NAME ": say either --server or --client SERVER_ADDR\nTry 'rocegen --help'.\n");
		exit(2);
	}
	if (!have_duration && !o->count)
		o->duration_ns = 10000000000ull;
	if (have_burst && o->burst < o->size)
		bad_opt("burst", "%llu is smaller than one message (--size %llu)",
			(unsigned long long)o->burst,
			(unsigned long long)o->size);
	if (!have_burst) {
		/*
		 * Half the depth in messages (at least 2), or 4 ms at the rate
		 * if that is more: a poster that wakes late (a starved TCG
		 * vCPU) catches up instead of losing offered load.
		 */
		o->burst = (o->depth / 2 > 2 ? o->depth / 2 : 2) * o->size;
		if (o->rate_bps / 8 / 250 > o->burst)
			o->burst = o->rate_bps / 8 / 250;
	}
}

static int parse_opts(int argc, char **argv, struct rg_opts *o)
{
	bool have_duration = false, have_burst = false;
	const struct option *lo;
	int c, idx;

	opts_defaults(o);
	opterr = 0;	/* our own messages, prefixed "rocegen:" */
	while ((c = getopt_long(argc, argv, ":Sc:p:d:g:q:o:s:r:D:n:Qh",
				long_opts, &idx)) != -1) {
		/* the long name, for messages, whichever form was used */
		for (lo = long_opts; lo->name; lo++)
			if (lo->val == c)
				break;
		if (!opt_traffic(o, c, lo->name ? lo->name : "?",
				 &have_duration, &have_burst))
			opt_conn(o, c, lo->name ? lo->name : "?", argv);
	}
	if (optind < argc) {
		fprintf(stderr, RG_NAME ": unexpected argument '%s'\nTry 'rocegen --help'.\n",
			argv[optind]);
		exit(2);
	}
	opts_finish(o, have_duration, have_burst);
	return 0;
}

/* -------------------------------------------------------------------- TCP */

void tcp_init(struct rg_tcp *t, int fd)
{
	t->fd = fd;
	t->len = 0;
}

int tcp_printf(struct rg_tcp *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	size_t off = 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	while (off < (size_t)n) {
		ssize_t w = send(t->fd, line + off, (size_t)n - off,
				 MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rg_err("TCP send: %s", strerror(errno));
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* A complete line from the buffer, if one is there. */
bool tcp_take_line(struct rg_tcp *t, char *line, size_t max)
{
	char *nl = memchr(t->buf, '\n', t->len);
	size_t n;

	if (!nl)
		return false;
	n = (size_t)(nl - t->buf);
	if (n >= max)
		n = max - 1;
	memcpy(line, t->buf, n);
	line[n] = 0;
	if (n && line[n - 1] == '\r')
		line[n - 1] = 0;
	n = (size_t)(nl - t->buf) + 1;
	memmove(t->buf, t->buf + n, t->len - n);
	t->len -= n;
	return true;
}

/* One read into the buffer: > 0 bytes, 0 EOF, -1 error. */
int tcp_fill(struct rg_tcp *t)
{
	ssize_t r;

	if (t->len == sizeof(t->buf)) {
		rg_err("TCP: peer sent a line longer than %zu bytes",
		       sizeof(t->buf));
		return -1;
	}
	do {
		r = recv(t->fd, t->buf + t->len, sizeof(t->buf) - t->len,
			 MSG_DONTWAIT);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		rg_err("TCP recv: %s", strerror(errno));
		return -1;
	}
	t->len += (size_t)r;
	return r ? 1 : 0;
}

/*
 * Wait up to @timeout_ms (-1: forever) for a line: 1 line, 0 EOF, -1 error.
 * Gives up once g_stop reaches @stop_at (1: the first SIGINT, 2: second).
 */
int tcp_getline(struct rg_tcp *t, char *line, size_t max, int timeout_ms,
		int stop_at)
{
	uint64_t end = timeout_ms < 0 ? UINT64_MAX :
		       rg_now() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		struct timespec ts, *tsp = NULL;
		uint64_t now;
		int r;

		if (tcp_take_line(t, line, max))
			return 1;
		now = rg_now();
		if (end != UINT64_MAX) {
			uint64_t left = end > now ? end - now : 0;

			if (!left) {
				rg_err("TCP: no answer from %s within %d ms",
				       "the peer", timeout_ms);
				return -1;
			}
			ts.tv_sec = (time_t)(left / 1000000000ull);
			ts.tv_nsec = (long)(left % 1000000000ull);
			tsp = &ts;
		}
		r = ppoll(&p, 1, tsp, &g_origmask);
		if (g_stop >= stop_at) {
			rg_err("interrupted");
			return -1;
		}
		if (r < 0 && errno != EINTR) {
			rg_err("poll: %s", strerror(errno));
			return -1;
		}
		if (r > 0) {
			r = tcp_fill(t);
			if (r <= 0)
				return r;
		}
	}
}

void addr_str(const struct sockaddr *sa, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
			inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], host,
				  sizeof(host));
		else
			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
	}
	snprintf(out, len, "%s:%u", host, port);
}

/* Connect, retrying refused/unreachable until the connect timeout. */
int tcp_connect(const struct rg_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	uint64_t end = rg_now() + o->connect_timeout_ns;
	int r, fd = -1, err = 0, one = 1;

	r = getaddrinfo(o->peer, o->port, &hints, &res);
	if (r) {
		rg_err("--client: cannot resolve '%s': %s", o->peer,
		       gai_strerror(r));
		return -1;
	}
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			struct pollfd p;
			struct timespec ts = { 0, 0 };
			uint64_t now = rg_now(), left;
			socklen_t el = sizeof(err);

			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK,
				    ai->ai_protocol);
			if (fd < 0) {
				err = errno;
				continue;
			}
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				goto connected;
			err = errno;
			if (err != EINPROGRESS) {
				close(fd);
				fd = -1;
				continue;
			}
			left = end > now ? end - now : 0;
			if (left < 100000000ull)
				left = 100000000ull;
			ts.tv_sec = (time_t)(left / 1000000000ull);
			ts.tv_nsec = (long)(left % 1000000000ull);
			p.fd = fd;
			p.events = POLLOUT;
			r = ppoll(&p, 1, &ts, &g_origmask);
			if (g_stop) {
				close(fd);
				freeaddrinfo(res);
				rg_err("interrupted while connecting");
				return -1;
			}
			err = ETIMEDOUT;
			if (r > 0 &&
			    !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) &&
			    !err)
				goto connected;
			close(fd);
			fd = -1;
		}
		if (rg_now() >= end || (err != ECONNREFUSED &&
					err != ENETUNREACH &&
					err != EHOSTUNREACH &&
					err != ETIMEDOUT)) {
			rg_err("cannot connect to %s port %s: %s", o->peer,
			       o->port, strerror(err));
			freeaddrinfo(res);
			return -1;
		}
		{
			struct timespec ts = { 0, 100000000 };

			ppoll(NULL, 0, &ts, &g_origmask);
			if (g_stop) {
				freeaddrinfo(res);
				rg_err("interrupted while connecting");
				return -1;
			}
		}
	}
connected:
	freeaddrinfo(res);
	r = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, r & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int tcp_listen(const struct rg_opts *o)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE,
	}, *res, *ai;
	int r, fd = -1, one = 1, err = 0;

	if (!o->bind)
		hints.ai_family = AF_INET6;	/* dual-stack any */
	r = getaddrinfo(o->bind, o->port, &hints, &res);
	if (r && !o->bind) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, o->port, &hints, &res);
	}
	if (r) {
		rg_err("--bind: cannot resolve '%s': %s",
		       o->bind ? o->bind : "any", gai_strerror(r));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 64))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		rg_err("cannot listen on %s port %s: %s",
		       o->bind ? o->bind : "any address", o->port,
		       strerror(err));
	return fd;
}

/* ----------------------------------------------------------------- common */

struct rg_flow *flows_alloc(unsigned int n, unsigned int depth,
			    const struct rg_window *w)
{
	struct rg_flow *f = calloc(n, sizeof(*f));
	unsigned int i;

	if (!f) {
		rg_err("out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		f[i].idx = i;
		rg_hist_init(&f[i].hist);
		f[i].post_ns = calloc(depth, sizeof(uint64_t));
		f[i].psn = (uint32_t)lrand48() & 0xffffff;
		if (!f[i].post_ns || rg_window_hist_alloc(w, &f[i].whist)) {
			rg_err("out of memory");
			do {
				free(f[i].post_ns);
				free(f[i].whist);
			} while (i--);
			free(f);
			return NULL;
		}
	}
	return f;
}

void run_free(struct rg_run *r)
{
	unsigned int i;

	for (i = 0; r->flows && i < r->nflows; i++) {
		if (r->flows[i].qp)
			ibv_destroy_qp(r->flows[i].qp);
		free(r->flows[i].post_ns);
		free(r->flows[i].whist);
		free(r->flows[i].ser);
	}
	free(r->flows);
	r->flows = NULL;
	rg_dev_close(&r->dev);
	if (r->tcp.fd >= 0)
		close(r->tcp.fd);
	r->tcp.fd = -1;
}

struct rg_conn_attr rg_conn_attr_of(const struct rg_run *r,
				    const struct rg_flow *f)
{
	const struct rg_opts *o = r->o;
	struct rg_conn_attr a = {
		.local_psn = f->psn,
		.remote_qpn = f->rqpn,
		.remote_psn = f->rpsn,
		.remote_gid = f->rgid,
		.mtu = r->mtu,
		.tclass = (uint8_t)o->tclass,
		.timeout = (uint8_t)o->timeout,
		.retry = (uint8_t)o->retry,
		.rnr_retry = (uint8_t)o->rnr_retry,
		.min_rnr_timer = (uint8_t)o->min_rnr_timer,
		.max_rd_atomic = 1,
	};

	return a;
}

void ts_from_ns(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

/* Count an error on @f and stop using it; the first one is reported. */
void flow_error(struct rg_run *r, struct rg_flow *f, unsigned int status,
		const char *what)
{
	if (status > RG_POST_FAILED)
		status = RG_WC_STATUS_MAX - 1;
	__atomic_fetch_add(&f->err_status[status], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&f->errors, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&f->dead, true, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&r->drain_timeout, __ATOMIC_RELAXED))
		rg_err("QP %u (qpn %u): %s", f->idx, f->qp->qp_num, what);
}

const char *status_name(unsigned int s)
{
	if (s == RG_POST_FAILED)
		return "post failed";
	return ibv_wc_status_str((enum ibv_wc_status)s);
}

/* ------------------------------------------------------------------- JSON */

struct json_object *jdouble(double v)
{
	return json_object_new_double(isfinite(v) ? v : 0.0);
}

/*
 * The histogram itself, for bounds no percentile gives (a percentile of a
 * subset of the messages, say): [upper, count] per non-empty bucket in
 * ascending order, upper the bucket's largest value in us, clamped to the
 * largest sample, so it bounds every sample counted up to it.
 */
static struct json_object *jbuckets(const struct rg_hist *h)
{
	struct json_object *a = json_object_new_array();
	struct json_object *b;
	uint64_t hi;
	unsigned int i;

	for (i = 0; i < RG_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		hi = rocecc_hist_upper(i, RG_HIST_SUB_BITS, RG_HIST_RANGE_BITS);
		if (hi > h->max)
			hi = h->max;
		b = json_object_new_array();
		json_object_array_add(b, jdouble(hi / 1e3));
		json_object_array_add(b, json_object_new_int64((int64_t)h->bucket[i]));
		json_object_array_add(a, b);
	}
	return a;
}

struct json_object *jlatency(const struct rg_hist *h)
{
	struct json_object *l = json_object_new_object();

	json_object_object_add(l, "p50",
		jdouble(rg_hist_percentile(h, 500000) / 1e3));
	json_object_object_add(l, "p90",
		jdouble(rg_hist_percentile(h, 900000) / 1e3));
	json_object_object_add(l, "p99",
		jdouble(rg_hist_percentile(h, 990000) / 1e3));
	json_object_object_add(l, "p999",
		jdouble(rg_hist_percentile(h, 999000) / 1e3));
	json_object_object_add(l, "max", jdouble(h->count ? h->max / 1e3 : 0));
	json_object_object_add(l, "min", jdouble(h->count ? h->min / 1e3 : 0));
	json_object_object_add(l, "mean", jdouble(rg_hist_mean(h) / 1e3));
	jadd_int(l, "samples", h->count);
	json_object_object_add(l, "buckets", jbuckets(h));
	return l;
}

struct json_object *jerrors(const struct rg_flow *f)
{
	struct json_object *e = json_object_new_object();
	unsigned int s;

	for (s = 0; s <= RG_POST_FAILED; s++)
		if (f->err_status[s])
			json_object_object_add(e, status_name(s),
				json_object_new_int64((int64_t)f->err_status[s]));
	return e;
}

struct json_object *jflow_counts(const struct rg_flow *f, unsigned int i)
{
	struct json_object *q = json_object_new_object();

	jadd_int(q, "index", i);
	jadd_int(q, "local_qpn", f->qp ? f->qp->qp_num : 0);
	jadd_int(q, "remote_qpn", f->rqpn);
	jadd_int(q, "messages", f->completed);
	jadd_int(q, "bytes", f->bytes);
	jadd_int(q, "errors", f->errors);
	json_object_object_add(q, "error_status", jerrors(f));
	return q;
}

void jadd_int(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

void jadd_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

/* The device's counters now minus at the start ("" if none). */
struct json_object *jhwc(const struct rg_dev *d)
{
	struct json_object *o = json_object_new_object();
	struct rg_hwc now;
	unsigned int i, j;

	rg_hwc_read(d, &now);
	for (i = 0; i < now.n; i++) {
		uint64_t v = now.val[i];

		for (j = 0; j < d->hwc_start.n; j++)
			if (!strcmp(d->hwc_start.name[j], now.name[i])) {
				v -= d->hwc_start.val[j];
				break;
			}
		jadd_int(o, now.name[i], v);
	}
	return o;
}

struct json_object *jloop(const struct rg_run *r)
{
	struct json_object *l = json_object_new_object();
	struct rusage ru;

	jadd_str(l, "cq_wait", rg_wait_names[r->o->wait]);
	jadd_int(l, "waits", r->waits);
	jadd_int(l, "completer_waits", r->comp_waits);
	jadd_int(l, "post_calls", r->post_calls);
	jadd_int(l, "cq_events", r->cq_events);
	jadd_int(l, "cq_polls", r->cq_polls);
	jadd_int(l, "empty_polls", r->empty_polls);
	if (!getrusage(RUSAGE_SELF, &ru)) {
		json_object_object_add(l, "cpu_user_s",
			jdouble(ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6));
		json_object_object_add(l, "cpu_sys_s",
			jdouble(ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6));
	}
	return l;
}

int write_json_file(const char *path, struct json_object *j)
{
	const char *s = json_object_to_json_string_ext(j,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f;
	int bad;

	if (!strcmp(path, "-")) {
		bad = printf("%s\n", s) < 0 || fflush(stdout);
	} else {
		f = fopen(path, "w");
		if (!f) {
			rg_err("--json: cannot write '%s': %s", path,
			       strerror(errno));
			return -1;
		}
		bad = fprintf(f, "%s\n", s) < 0;
		bad |= fclose(f) != 0;
	}
	if (bad) {
		rg_err("--json: writing '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rg_opts o;

	parse_opts(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	srand48(getpid() ^ (long)rg_now());
	json_c_set_serialization_double_format("%.3f", JSON_C_OPTION_GLOBAL);
	if (o.cpu >= 0) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(g_cpus_all), &g_cpus_all))
			CPU_ZERO(&g_cpus_all);
		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			rg_err("--cpu: cannot run on CPU %d: %s", o.cpu,
			       strerror(errno));
			return 2;
		}
	}
	setup_signals();
	return o.server ? server_main(&o) : client_main(&o);
}
