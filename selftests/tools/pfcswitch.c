// SPDX-License-Identifier: GPL-2.0
/*
 * pfcswitch - priority flow control (IEEE 802.1Qbb) for the VM testbed's
 * software switch (selftests/vm/lib/topo.sh): run inside the switch's
 * network namespace, it watches the queue of the bottleneck port and sends
 * PFC frames out of the ports toward the senders.
 *
 *   pfcswitch --watch swp4 [--leaf 10:] --prio 3 --xoff BYTES --xon BYTES
 *             --ports swp1,swp2,swp3 [--interval-us 500] [--quanta 65535]
 *             [--refresh-us N] [--speed MBPS] [--stats FILE] [--rt] [-v]
 *             [--obey --pause-cmd CMD --resume-cmd CMD]
 *   pfcswitch --send swp1[,swp2...] --prio 3 --quanta N
 *
 * Watch mode polls the backlog (bytes) of one qdisc of the watched port
 * every --interval-us: RTM_GETQDISC for the qdisc of that ifindex with
 * handle --leaf (tc syntax, hexadecimal: "10:" is 0x10:0), or its root
 * qdisc without --leaf (a get of that one qdisc; a dump of all, filtered
 * by ifindex and handle, if the kernel refuses the get), and its
 * TCA_STATS2/TCA_STATS_QUEUE backlog.
 * That is the occupancy of the one queue the testbed's port has: it holds
 * every priority, not only --prio (a real switch keeps a buffer per
 * priority; in the testbed all traffic through the bottleneck is RoCE on
 * the lossless priority, so the two agree).
 *
 * With hysteresis: when the backlog reaches --xoff it sends XOFF (class
 * enable bit --prio, --quanta pause quanta) out of every --ports port;
 * while the backlog stays above --xon it sends the XOFF again every
 * --refresh-us (default: half the pause time of --quanta at --speed, the
 * veth's nominal 10 Gb/s: 65535 quanta = 3.36 ms, refreshed every 1.68 ms),
 * so that the pause never runs out; once the backlog is at or below --xon
 * it sends XON (quanta 0). The refreshes come from a thread with its own
 * timer: a poll can wait for RTNL for milliseconds under TCG, and the
 * pause must not run out meanwhile (the XOFF state holds until a poll
 * sees the queue at xon). On exit a pending XOFF is lifted with an XON
 * too. Frames are built by rocecc_pfc_build (include/rocecc/pfc.h) with
 * the port's MAC address as source and sent through an AF_PACKET socket,
 * bypassing the port's qdisc.
 *
 * On SIGTERM or SIGINT it writes its statistics as one JSON object to
 * --stats (or stdout) and exits 0: xoff_sent, refresh_sent, xon_sent
 * (transitions and refreshes; frames are these times the number of
 * ports), max_backlog, time_above_xoff_ms (time with the sampled backlog
 * at or above xoff), paused_ms (time between XOFF and XON), samples,
 * overruns (polls that came later than one interval) and per-port frames.
 * poll_us_avg/max: how long reading the backlog took; gap_us_avg/max: the
 * time between two samples (the reaction time of the switch; under TCG
 * well above --interval-us); lapses: refreshes or XONs sent after the
 * previous pause had already run out (the pause time of --quanta at
 * --speed), lapsed_ms the time the senders were free meanwhile. SIGUSR1
 * writes them without exiting. -v logs each transition on stderr.
 *
 * --obey makes the watched port itself lossless toward its receiver: PFC
 * frames (and 802.3x PAUSE) that the receiver sends into the watched port
 * for --prio pause that port's egress for the quanta they carry at --speed,
 * XON (quanta 0) or the pause running out resumes it. The frames are read
 * from an AF_PACKET socket of the port (ETH_P_ALL with a socket filter for
 * EtherType 0x8808: the bridge drops MAC control frames in its rx handler,
 * after the taps but before any protocol handler). Pausing and resuming
 * are --pause-cmd and --resume-cmd, run by /bin/sh (the testbed passes tc
 * commands that set the port's HTB class to a trickle and back): the
 * egress then stops draining, its queue grows, and the switch's own XOFF
 * toward the senders follows, the way a receiver that stops draining
 * spreads pauses through a fabric. Each command runs to completion in the
 * listener thread before the next frame is read; its failure is counted
 * and logged. A pause runs out only after every frame already received
 * was read (a descheduled listener does not cut it short). A pause in
 * force at exit is resumed. Statistics:
 * obey_frames (for --prio), obey_pauses (pause-cmd runs), obey_resumes,
 * obey_expired (resumes because the pause ran out), obey_paused_ms,
 * cmd_errors, cmd_ms_max.
 *
 * --send sends one PFC frame for --prio with --quanta (0: XON) out of
 * each listed port and exits: for tests that inject a single XOFF/XON.
 *
 * Exit status: 0 ok, 1 runtime failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/filter.h>
#include <linux/gen_stats.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <rocecc/pfc.h>

#define MAX_PORTS	64
#define PROG		"pfcswitch"

struct port {
	char name[IF_NAMESIZE];
	int ifindex;
	uint8_t mac[6];
	uint64_t xoff, refresh, xon, errors;
};

static struct {
	/* configuration */
	const char *watch;
	int watch_ifindex;
	uint32_t leaf;		/* 0: the root qdisc */
	const char *leaf_str;
	int prio;
	int64_t xoff, xon;
	uint32_t interval_us;
	uint32_t quanta;
	int64_t refresh_us;	/* -1: default */
	uint32_t speed;
	const char *stats;
	int rt, verbose;
	struct port ports[MAX_PORTS];
	int nports;
	int send_mode;
	int obey;
	const char *pause_cmd, *resume_cmd;

	/* state */
	int pkt_fd;
	struct mnl_socket *nl;
	uint32_t seq;
	uint64_t t0_ns;

	/* statistics */
	uint64_t xoff_sent, refresh_sent, xon_sent, xon_at_exit;
	uint64_t max_backlog, samples, overruns, poll_errors;
	uint64_t poll_ns, poll_max_ns, gap_max_ns;
	uint64_t pause_ns, lapses, lapse_ns;
	uint64_t above_ns, paused_ns;
	uint64_t obey_frames, obey_pauses, obey_resumes, obey_expired;
	uint64_t obey_paused_ns, cmd_errors, cmd_max_ns;
} g = {
	.prio = -1, .xoff = -1, .xon = -1, .interval_us = 500,
	.quanta = ROCECC_PFC_QUANTA_MAX, .refresh_us = -1, .speed = 10000,
	.pkt_fd = -1,
};

static volatile sig_atomic_t stop_flag, dump_flag;
extern char **environ;

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void usage(FILE *f)
{
	fputs(
"Usage: pfcswitch --watch DEV [--leaf HANDLE] --prio P --xoff BYTES --xon BYTES\n"
"                 --ports DEV[,DEV...] [--interval-us US] [--quanta Q]\n"
"                 [--refresh-us US] [--speed MBPS] [--stats FILE] [--rt] [-v]\n"
"       pfcswitch --send DEV[,DEV...] --prio P --quanta Q\n"
"\n"
"  --watch DEV        port whose queue is watched (the bottleneck)\n"
"  --leaf HANDLE      qdisc of DEV to read the backlog of, tc syntax (hex):\n"
"                     10: (default: DEV's root qdisc)\n"
"  --prio P           lossless priority 0..7 (class-enable bit)\n"
"  --xoff BYTES       send XOFF when the backlog reaches BYTES\n"
"  --xon BYTES        send XON when it is at or below BYTES (< xoff)\n"
"  --ports LIST       ports the frames go out of (toward the senders)\n"
"  --interval-us US   poll period (default 500)\n"
"  --quanta Q         pause quanta of an XOFF, 1..65535 (default 65535);\n"
"                     with --send 0..65535, 0 is XON\n"
"  --refresh-us US    resend XOFF every US while above xon (default: half\n"
"                     the pause time of Q at --speed; 0: never)\n"
"  --speed MBPS       link speed the quanta count at (default 10000)\n"
"  --stats FILE       write the statistics (JSON) there (default: stdout)\n"
"  --rt               run SCHED_FIFO (a late poll is a late XOFF)\n"
"  -v                 log every XOFF/XON on stderr\n"
"  --obey             obey PFC frames the receiver sends into the watched\n"
"                     port: run --pause-cmd when a pause of --prio begins,\n"
"                     --resume-cmd at XON or when it runs out (at --speed)\n"
"  --pause-cmd CMD    shell command that stops the watched port's egress\n"
"  --resume-cmd CMD   shell command that lets it drain again\n"
"  --send LIST        send one frame out of each port and exit\n", f);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t parse_num(const char *opt, const char *s, int64_t min,
			 int64_t max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		die(2, "%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		die(2, "%s: %lld is out of range %lld..%lld", opt, v,
		    (long long)min, (long long)max);
	return v;
}

/* tc's handle syntax: "MAJ:[MIN]", both hexadecimal; "root" */
static uint32_t parse_handle(const char *s)
{
	unsigned long maj, min = 0;
	char *end;

	if (!strcmp(s, "root"))
		return 0;
	errno = 0;
	maj = strtoul(s, &end, 16);
	if (errno || end == s || *end != ':' || maj > 0xffff)
		die(2, "--leaf: '%s' is not a qdisc handle (MAJ: in hex, e.g. 10:)", s);
	if (end[1]) {
		const char *m = end + 1;

		min = strtoul(m, &end, 16);
		if (errno || *end || min > 0xffff)
			die(2, "--leaf: '%s' is not a qdisc handle (MAJ: in hex, e.g. 10:)", s);
	}
	if (!maj)
		die(2, "--leaf: '%s': major 0 is not a qdisc handle", s);
	return (uint32_t)(maj << 16 | min);
}

static int port_index(const char *opt, const char *name)
{
	int i;

	if (!*name || strlen(name) >= IF_NAMESIZE)
		die(2, "%s: bad interface name '%s'", opt, name);
	i = (int)if_nametoindex(name);
	if (!i)
		die(2, "%s: no such interface '%s' (in this network namespace)",
		    opt, name);
	return i;
}

static void port_mac(const char *opt, struct port *p)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die(1, "socket: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, p->name, strlen(p->name));
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		die(2, "%s: cannot read the MAC address of '%s': %s", opt,
		    p->name, strerror(errno));
	close(fd);
	memcpy(p->mac, ifr.ifr_hwaddr.sa_data, 6);
}

static void parse_ports(const char *opt, const char *list)
{
	char *dup = strdup(list), *tok, *save = NULL;
	int i;

	if (!dup)
		die(1, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct port *p;

		if (g.nports == MAX_PORTS)
			die(2, "%s: more than %d ports", opt, MAX_PORTS);
		for (i = 0; i < g.nports; i++)
			if (!strcmp(g.ports[i].name, tok))
				die(2, "%s: port '%s' listed twice", opt, tok);
		p = &g.ports[g.nports++];
		p->ifindex = port_index(opt, tok);
		snprintf(p->name, sizeof(p->name), "%s", tok);
		port_mac(opt, p);
	}
	free(dup);
	if (!g.nports)
		die(2, "%s: no port in '%s'", opt, list);
}

/* --- PFC frames ---------------------------------------------------------- */

static void pkt_open(void)
{
	int one = 1;

	g.pkt_fd = socket(AF_PACKET, SOCK_RAW, 0);	/* send only */
	if (g.pkt_fd < 0)
		die(1, "AF_PACKET socket: %s (needs CAP_NET_RAW)", strerror(errno));
	/* straight to the driver: the frame must not wait behind data */
	setsockopt(g.pkt_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
}

/* Send one frame (quanta q for g.prio) out of port p; 0 on success. */
static int send_pfc(struct port *p, uint16_t q)
{
	struct rocecc_pfc_msg m;
	struct sockaddr_ll sll;
	uint8_t buf[ROCECC_PFC_FRAME_LEN];
	uint32_t len;

	memset(&m, 0, sizeof(m));
	m.enable = (uint8_t)(1u << g.prio);
	m.quanta[g.prio] = q;
	len = rocecc_pfc_build(buf, p->mac, &m);

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ROCECC_PFC_ETHERTYPE);
	sll.sll_ifindex = p->ifindex;
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, rocecc_pfc_dmac, 6);
	if (sendto(g.pkt_fd, buf, len, 0, (struct sockaddr *)&sll,
		   sizeof(sll)) != (ssize_t)len) {
		p->errors++;
		if (g.verbose)
			fprintf(stderr, PROG ": sending on %s: %s\n", p->name,
				strerror(errno));
		return -1;
	}
	return 0;
}

enum { EV_XOFF, EV_REFRESH, EV_XON };

static void send_all(int ev, uint64_t backlog)
{
	uint16_t q = ev == EV_XON ? 0 : (uint16_t)g.quanta;
	int i;

	for (i = 0; i < g.nports; i++) {
		struct port *p = &g.ports[i];

		if (send_pfc(p, q))
			continue;
		if (ev == EV_XOFF)
			p->xoff++;
		else if (ev == EV_REFRESH)
			p->refresh++;
		else
			p->xon++;
	}
	if (g.verbose && ev != EV_REFRESH)
		fprintf(stderr, PROG ": %.3f ms %s backlog %" PRIu64 "\n",
			(now_ns() - g.t0_ns) / 1e6, ev == EV_XOFF ? "XOFF" : "XON",
			backlog);
}

/* --- the queue ----------------------------------------------------------- */

struct qdisc_res {
	int found;
	uint64_t backlog;
};

static int stats2_cb(const struct nlattr *a, void *data)
{
	struct qdisc_res *r = data;

	if (mnl_attr_get_type(a) == TCA_STATS_QUEUE &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct gnet_stats_queue)) {
		struct gnet_stats_queue q;

		memcpy(&q, mnl_attr_get_payload(a), sizeof(q));
		r->backlog = q.backlog;
		r->found = 2;
	}
	return MNL_CB_OK;
}

static int qattr_cb(const struct nlattr *a, void *data)
{
	struct qdisc_res *r = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS2:
		mnl_attr_parse_nested(a, stats2_cb, r);
		break;
	case TCA_STATS:		/* the old struct, if STATS2 is missing */
		if (r->found < 2 &&
		    mnl_attr_get_payload_len(a) >= sizeof(struct tc_stats)) {
			struct tc_stats s;

			memcpy(&s, mnl_attr_get_payload(a), sizeof(s));
			r->backlog = s.backlog;
			r->found = 1;
		}
		break;
	}
	return MNL_CB_OK;
}

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct qdisc_res *r = data;
	struct qdisc_res one = { 0, 0 };

	if (t->tcm_ifindex != g.watch_ifindex)
		return MNL_CB_OK;
	if (g.leaf ? t->tcm_handle != g.leaf : t->tcm_parent != TC_H_ROOT)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*t), qattr_cb, &one);
	if (one.found) {
		r->found = 1;
		r->backlog = one.backlog;
	}
	return MNL_CB_OK;
}

/*
 * One request and its answer(s): a get of the one qdisc (RTM_GETQDISC
 * with its handle, or TC_H_ROOT as parent), or, with @dump, a dump of all
 * qdiscs filtered here by ifindex and handle.
 */
static int qdisc_request(int dump, struct qdisc_res *r)
{
	static char buf[32768];
	struct nlmsghdr *nlh;
	struct tcmsg *t;
	uint32_t portid = mnl_socket_get_portid(g.nl);
	ssize_t n;
	int ret = MNL_CB_ERROR;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETQDISC;
	/* a get answers the requester only with NLM_F_ECHO (qdisc_notify) */
	nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ECHO);
	nlh->nlmsg_seq = ++g.seq;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = g.watch_ifindex;
	if (!dump) {
		t->tcm_handle = g.leaf;
		t->tcm_parent = g.leaf ? 0 : TC_H_ROOT;
	}
	if (mnl_socket_sendto(g.nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	for (;;) {
		n = mnl_socket_recvfrom(g.nl, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR && !stop_flag)
				continue;
			return -1;	/* also SO_RCVTIMEO: no answer */
		}
		ret = mnl_cb_run(buf, (size_t)n, g.seq, portid, qdisc_cb, r);
		/* a get's answer is one message without NLMSG_DONE */
		if (ret <= MNL_CB_STOP || (!dump && r->found))
			break;
	}
	return ret < 0 ? -1 : 0;
}

/*
 * The watched qdisc's backlog in bytes; -1 if it is not there. A get of
 * that one qdisc is one short message (a dump walks every qdisc of the
 * namespace, which under TCG costs a poll period); the dump is the
 * fallback should the get be refused.
 */
static int64_t read_backlog(void)
{
	static int use_dump;
	struct qdisc_res r = { 0, 0 };

	if (!use_dump && (qdisc_request(0, &r) || !r.found)) {
		memset(&r, 0, sizeof(r));
		use_dump = 1;
	}
	if (use_dump && (qdisc_request(1, &r) || !r.found))
		return -1;
	return (int64_t)r.backlog;
}

/* --- statistics ---------------------------------------------------------- */

static void write_stats(void)
{
	char tmp[PATH_MAX];
	FILE *f = stdout;
	int i;

	if (g.stats) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", g.stats);
		f = fopen(tmp, "w");
		if (!f) {
			fprintf(stderr, PROG ": --stats: cannot write '%s': %s\n",
				tmp, strerror(errno));
			return;
		}
	}
	fprintf(f, "{\"watch\": \"%s\", \"leaf\": \"%s\", \"prio\": %d, "
		"\"xoff\": %" PRId64 ", \"xon\": %" PRId64 ", \"quanta\": %u, "
		"\"refresh_us\": %" PRId64 ", \"interval_us\": %u, ",
		g.watch, g.leaf_str ? g.leaf_str : "root", g.prio, g.xoff, g.xon,
		g.quanta, g.refresh_us, g.interval_us);
	fprintf(f, "\"xoff_sent\": %" PRIu64 ", \"refresh_sent\": %" PRIu64
		", \"xon_sent\": %" PRIu64 ", \"xon_at_exit\": %" PRIu64
		", \"max_backlog\": %" PRIu64 ", \"time_above_xoff_ms\": %.3f"
		", \"paused_ms\": %.3f, \"samples\": %" PRIu64
		", \"overruns\": %" PRIu64 ", \"poll_errors\": %" PRIu64
		", \"run_ms\": %.3f, \"poll_us_avg\": %.1f, \"poll_us_max\": %.1f"
		", \"gap_us_avg\": %.1f, \"gap_us_max\": %.1f"
		", \"lapses\": %" PRIu64 ", \"lapsed_ms\": %.3f, ",
		g.xoff_sent, g.refresh_sent, g.xon_sent, g.xon_at_exit,
		g.max_backlog, g.above_ns / 1e6, g.paused_ns / 1e6, g.samples,
		g.overruns, g.poll_errors, (now_ns() - g.t0_ns) / 1e6,
		g.samples ? g.poll_ns / 1e3 / g.samples : 0.0, g.poll_max_ns / 1e3,
		g.samples > 1 ? (now_ns() - g.t0_ns) / 1e3 / g.samples : 0.0,
		g.gap_max_ns / 1e3, g.lapses, g.lapse_ns / 1e6);
	fprintf(f, "\"obey\": %d, \"obey_frames\": %" PRIu64
		", \"obey_pauses\": %" PRIu64 ", \"obey_resumes\": %" PRIu64
		", \"obey_expired\": %" PRIu64 ", \"obey_paused_ms\": %.3f"
		", \"cmd_errors\": %" PRIu64 ", \"cmd_ms_max\": %.3f, \"ports\": {",
		g.obey, g.obey_frames, g.obey_pauses, g.obey_resumes,
		g.obey_expired, g.obey_paused_ns / 1e6, g.cmd_errors,
		g.cmd_max_ns / 1e6);
	for (i = 0; i < g.nports; i++) {
		struct port *p = &g.ports[i];

		fprintf(f, "%s\"%s\": {\"xoff\": %" PRIu64 ", \"refresh\": %"
			PRIu64 ", \"xon\": %" PRIu64 ", \"frames\": %" PRIu64
			", \"errors\": %" PRIu64 "}", i ? ", " : "", p->name,
			p->xoff, p->refresh, p->xon,
			p->xoff + p->refresh + p->xon, p->errors);
	}
	fputs("}}\n", f);
	if (g.stats) {
		if (fclose(f) || rename(tmp, g.stats))
			fprintf(stderr, PROG ": --stats: writing '%s' failed: %s\n",
				g.stats, strerror(errno));
	} else {
		fflush(f);
	}
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_flag = 1;
	else
		stop_flag = 1;
}

/* --- main ---------------------------------------------------------------- */

/* A frame that came after the last pause had run out: the senders were free. */
static void lapse(uint64_t since_last)
{
	if (since_last > g.pause_ns) {
		g.lapses++;
		g.lapse_ns += since_last - g.pause_ns;
	}
}

/*
 * The XOFF state, shared by the poller (transitions) and the refresher
 * (refreshes), under xmu: paused, when the last XOFF or refresh went out.
 */
static pthread_mutex_t xmu = PTHREAD_MUTEX_INITIALIZER;
static int x_paused;
static uint64_t x_last, x_refresh_ns;

static void ts_at(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

/* Under xmu: an XOFF refresh if one is due. */
static void refresh_if_due(uint64_t t, uint64_t backlog)
{
	if (x_paused && x_refresh_ns && t - x_last >= x_refresh_ns) {
		lapse(t - x_last);
		send_all(EV_REFRESH, backlog);
		g.refresh_sent++;
		x_last = t;
	}
}

/*
 * The refresher: its own timer, so that a poll that is late (the netlink
 * request waits for RTNL, which tc and the kernel's own work take too) does
 * not let a pause run out, as a switch's per-priority refresh timer runs
 * apart from its queue accounting. While the state is XOFF it refreshes
 * every --refresh-us; only the poller ends the state (XON).
 */
static void *refresher(void *arg)
{
	struct timespec ts;
	uint64_t t, due;

	(void)arg;
	while (!stop_flag) {
		pthread_mutex_lock(&xmu);
		t = now_ns();
		refresh_if_due(t, 0);
		due = x_paused ? x_last + x_refresh_ns : t + x_refresh_ns;
		pthread_mutex_unlock(&xmu);
		ts_at(&ts, due);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

/* --- obeying the receiver's PFC (--obey) ---------------------------------- */

/* Run @cmd with /bin/sh -c and wait for it; 0 if it exited 0. */
static int run_cmd(const char *what, const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	uint64_t t = now_ns();
	int st, err;
	pid_t pid;

	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (!err) {
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				err = errno;
				break;
			}
	}
	t = now_ns() - t;
	pthread_mutex_lock(&xmu);
	if (t > g.cmd_max_ns)
		g.cmd_max_ns = t;
	if (err || !WIFEXITED(st) || WEXITSTATUS(st))
		g.cmd_errors++;
	pthread_mutex_unlock(&xmu);
	if (err) {
		fprintf(stderr, PROG ": %s: cannot run '%s': %s\n", what, cmd,
			strerror(err));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, PROG ": %s: '%s' failed (status %d)\n", what, cmd,
			WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -1;
	}
	return 0;
}

/* An AF_PACKET socket that reads the MAC control frames @ifindex receives. */
static int obey_open(int ifindex)
{
	/* ldh [12]; jeq #0x8808, accept, drop */
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCECC_PFC_ETHERTYPE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = 4, .filter = code };
	struct sockaddr_ll sll;
	int fd;

	/* ETH_P_ALL: a tap, delivered before the bridge's rx handler */
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		die(1, "--obey: AF_PACKET socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		die(1, "--obey: socket filter: %s", strerror(errno));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die(1, "--obey: binding to %s: %s", g.watch, strerror(errno));
	return fd;
}

/* Resume the egress paused since @since; @why for -v */
static void obey_resume(uint64_t since, int expired, const char *why)
{
	uint64_t t = now_ns();

	run_cmd("--resume-cmd", g.resume_cmd);
	pthread_mutex_lock(&xmu);
	g.obey_resumes++;
	g.obey_expired += (uint64_t)expired;
	g.obey_paused_ns += t - since;
	pthread_mutex_unlock(&xmu);
	if (g.verbose)
		fprintf(stderr, PROG ": %.3f ms egress resumed (%s)\n",
			(now_ns() - g.t0_ns) / 1e6, why);
}

/*
 * One frame from the receiver, without waiting: 1 and the quanta it
 * carries for --prio in @q (0: XON) if it was one for --prio, 0 if it was
 * some other frame, -1 if none is queued.
 */
static int obey_recv(int fd, uint16_t *q)
{
	struct rocecc_pfc_msg m;
	struct sockaddr_ll from;
	socklen_t fl = sizeof(from);
	uint8_t buf[256];
	ssize_t n;
	int kind;

	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		     (struct sockaddr *)&from, &fl);
	if (n < 0)
		return -1;
	if (n < 14 || from.sll_pkttype == PACKET_OUTGOING)
		return 0;
	memset(&m, 0, sizeof(m));
	kind = rocecc_pfc_parse(buf + 14, (uint32_t)(n - 14), &m);
	if ((kind != ROCECC_PFC_PARSE_PFC && kind != ROCECC_PFC_PARSE_PAUSE) ||
	    !(m.enable & 1u << g.prio))
		return 0;
	pthread_mutex_lock(&xmu);
	g.obey_frames++;
	pthread_mutex_unlock(&xmu);
	*q = m.quanta[g.prio];
	return 1;
}

/*
 * The listener: reads the frames the receiver sends into the watched port
 * and pauses/resumes its egress. Its own thread, so that neither the
 * polls nor the refreshes wait for a command. Every frame already queued
 * is read before a pause is taken as run out: a listener that was
 * descheduled (TCG) must not resume the port for the time it did not run
 * while the receiver's refreshes waited in the socket.
 */
static void *obeyer(void *arg)
{
	int fd = *(int *)arg, paused = 0, r;
	uint64_t until = 0, since = 0, t;
	uint16_t q;

	while (!stop_flag) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int tmo = 100;

		t = now_ns();
		if (paused)
			tmo = until <= t ? 0 :
			      until - t < 100000000ull ?
			      (int)((until - t + 999999) / 1000000) : 100;
		if (poll(&pfd, 1, tmo) < 0)
			continue;
		while (!stop_flag && (r = obey_recv(fd, &q)) >= 0) {
			if (!r)
				continue;
			t = now_ns();
			if (q) {
				until = t + rocecc_pfc_quanta_ns(q, g.speed);
				if (paused)
					continue;
				run_cmd("--pause-cmd", g.pause_cmd);
				pthread_mutex_lock(&xmu);
				g.obey_pauses++;
				pthread_mutex_unlock(&xmu);
				if (g.verbose)
					fprintf(stderr, PROG ": %.3f ms egress paused by the receiver\n",
						(now_ns() - g.t0_ns) / 1e6);
				paused = 1;
				since = t;
			} else if (paused) {
				obey_resume(since, 0, "XON");
				paused = 0;
			}
		}
		if (paused && now_ns() >= until) {
			obey_resume(since, 1, "pause ran out");
			paused = 0;
		}
	}
	if (paused)		/* do not leave the port stalled */
		obey_resume(since, 0, "exit");
	return NULL;
}

static void watch_loop(void)
{
	struct timespec next;
	uint64_t period = (uint64_t)g.interval_us * 1000;
	uint64_t prev_t = 0, t, nxt;
	int64_t b, prev_b = -1;
	pthread_t thr, othr;
	sigset_t block, old;
	int have_thr = 0, have_othr = 0, ofd = -1;

	x_refresh_ns = (uint64_t)g.refresh_us * 1000;
	g.pause_ns = rocecc_pfc_quanta_ns((uint16_t)g.quanta, g.speed);
	g.t0_ns = nxt = now_ns();
	if (x_refresh_ns) {
		/* signals are the main thread's; SCHED_FIFO is inherited */
		sigfillset(&block);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		have_thr = !pthread_create(&thr, NULL, refresher, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!have_thr)
			fprintf(stderr, PROG ": no refresher thread; refreshing from the polls\n");
	}
	if (g.obey) {
		ofd = obey_open(g.watch_ifindex);
		sigfillset(&block);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		have_othr = !pthread_create(&othr, NULL, obeyer, &ofd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!have_othr)
			die(1, "--obey: cannot start the listener thread");
	}
	while (!stop_flag) {
		if (dump_flag) {
			dump_flag = 0;
			pthread_mutex_lock(&xmu);
			write_stats();
			pthread_mutex_unlock(&xmu);
		}
		t = now_ns();
		b = read_backlog();
		pthread_mutex_lock(&xmu);
		{
			uint64_t t1 = now_ns();

			g.poll_ns += t1 - t;
			if (t1 - t > g.poll_max_ns)
				g.poll_max_ns = t1 - t;
			if (prev_t && t1 - prev_t > g.gap_max_ns)
				g.gap_max_ns = t1 - prev_t;
			t = t1;
		}
		if (b < 0) {
			g.poll_errors++;
		} else {
			g.samples++;
			if ((uint64_t)b > g.max_backlog)
				g.max_backlog = (uint64_t)b;
			if (prev_b >= g.xoff)
				g.above_ns += t - prev_t;
			if (x_paused)
				g.paused_ns += t - prev_t;
			prev_b = b;
			if (!x_paused && b >= g.xoff) {
				send_all(EV_XOFF, (uint64_t)b);
				g.xoff_sent++;
				x_paused = 1;
				x_last = t;
			} else if (x_paused && b <= g.xon) {
				lapse(t - x_last);
				send_all(EV_XON, (uint64_t)b);
				g.xon_sent++;
				x_paused = 0;
			} else {
				refresh_if_due(t, (uint64_t)b);
			}
		}
		pthread_mutex_unlock(&xmu);
		prev_t = t;
		nxt += period;
		if (nxt <= t) {		/* late: skip the missed polls */
			g.overruns++;
			nxt = t + period;
		}
		ts_at(&next, nxt);
		while (!stop_flag && !dump_flag &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
	if (have_thr)
		pthread_join(thr, NULL);
	if (have_othr) {
		pthread_join(othr, NULL);
		close(ofd);
	}
	if (x_paused) {		/* do not leave the senders paused */
		send_all(EV_XON, 0);
		g.xon_sent++;
		g.xon_at_exit = 1;
	}
}

/* The command line into g, *@ports and *@send; *@quanta_set: --quanta given. */
static void parse_args(int argc, char **argv, const char **ports,
		       const char **send, int *quanta_set)
{
	enum {
		O_WATCH = 256, O_LEAF, O_PRIO, O_XOFF, O_XON, O_PORTS,
		O_INTERVAL, O_QUANTA, O_REFRESH, O_SPEED, O_STATS, O_RT, O_SEND,
		O_OBEY, O_PAUSE_CMD, O_RESUME_CMD,
	};
	static const struct option opts[] = {
		{ "watch", required_argument, NULL, O_WATCH },
		{ "leaf", required_argument, NULL, O_LEAF },
		{ "prio", required_argument, NULL, O_PRIO },
		{ "xoff", required_argument, NULL, O_XOFF },
		{ "xon", required_argument, NULL, O_XON },
		{ "ports", required_argument, NULL, O_PORTS },
		{ "interval-us", required_argument, NULL, O_INTERVAL },
		{ "quanta", required_argument, NULL, O_QUANTA },
		{ "refresh-us", required_argument, NULL, O_REFRESH },
		{ "speed", required_argument, NULL, O_SPEED },
		{ "stats", required_argument, NULL, O_STATS },
		{ "rt", no_argument, NULL, O_RT },
		{ "send", required_argument, NULL, O_SEND },
		{ "obey", no_argument, NULL, O_OBEY },
		{ "pause-cmd", required_argument, NULL, O_PAUSE_CMD },
		{ "resume-cmd", required_argument, NULL, O_RESUME_CMD },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vh", opts, NULL)) != -1) {
		switch (c) {
		case O_WATCH:
			g.watch = optarg;
			break;
		case O_LEAF:
			g.leaf_str = optarg;
			g.leaf = parse_handle(optarg);
			break;
		case O_PRIO:
			g.prio = (int)parse_num("--prio", optarg, 0, 7);
			break;
		case O_XOFF:
			g.xoff = parse_num("--xoff", optarg, 1, INT32_MAX);
			break;
		case O_XON:
			g.xon = parse_num("--xon", optarg, 0, INT32_MAX);
			break;
		case O_PORTS:
			*ports = optarg;
			break;
		case O_INTERVAL:
			g.interval_us = (uint32_t)parse_num("--interval-us", optarg, 10, 10000000);
			break;
		case O_QUANTA:
			g.quanta = (uint32_t)parse_num("--quanta", optarg, 0, ROCECC_PFC_QUANTA_MAX);
			*quanta_set = 1;
			break;
		case O_REFRESH:
			g.refresh_us = parse_num("--refresh-us", optarg, 0, 10000000);
			break;
		case O_SPEED:
			g.speed = (uint32_t)parse_num("--speed", optarg, 1, 10000000);
			break;
		case O_STATS:
			g.stats = optarg;
			break;
		case O_RT:
			g.rt = 1;
			break;
		case O_SEND:
			*send = optarg;
			break;
		case O_OBEY:
			g.obey = 1;
			break;
		case O_PAUSE_CMD:
			g.pause_cmd = optarg;
			break;
		case O_RESUME_CMD:
			g.resume_cmd = optarg;
			break;
		case 'v':
			g.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die(2, "option '%s' needs an argument (--help)", argv[optind - 1]);
		default:
			die(2, "unknown option '%s' (--help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die(2, "unexpected argument '%s' (--help)", argv[optind]);
	if (g.prio < 0)
		die(2, "--prio is required");
}

/* --send: one PFC frame (XOFF of --quanta, or XON for 0) on each port. */
static int send_once(const char *send, const char *ports, int quanta_set)
{
	int i, st = 0;

	if (g.watch || ports || g.obey)
		die(2, "--send does not go with --watch/--ports/--obey");
	if (!quanta_set)
		die(2, "--send needs --quanta (0 for XON)");
	parse_ports("--send", send);
	pkt_open();
	for (i = 0; i < g.nports; i++) {
		if (send_pfc(&g.ports[i], (uint16_t)g.quanta)) {
			fprintf(stderr, PROG ": sending on %s failed: %s\n",
				g.ports[i].name, strerror(errno));
			st = 1;
		}
	}
	return st;
}

/* The watch mode's options, together. */
static void check_watch(const char *ports)
{
	int c;

	if (!g.watch)
		die(2, "--watch (or --send) is required");
	if (!ports)
		die(2, "--ports is required");
	if (g.xoff < 0 || g.xon < 0)
		die(2, "--xoff and --xon are required");
	if (g.xon >= g.xoff)
		die(2, "--xon %" PRId64 " must be below --xoff %" PRId64, g.xon, g.xoff);
	if (!g.quanta)
		die(2, "--quanta: an XOFF needs at least 1 quantum");
	if (g.obey && (!g.pause_cmd || !*g.pause_cmd || !g.resume_cmd || !*g.resume_cmd))
		die(2, "--obey needs --pause-cmd and --resume-cmd");
	if (!g.obey && (g.pause_cmd || g.resume_cmd))
		die(2, "--pause-cmd/--resume-cmd need --obey");
	g.watch_ifindex = port_index("--watch", g.watch);
	parse_ports("--ports", ports);
	for (c = 0; c < g.nports; c++)
		if (g.ports[c].ifindex == g.watch_ifindex)
			die(2, "--ports: '%s' is the watched port", g.ports[c].name);
	if (g.refresh_us < 0)
		g.refresh_us = (int64_t)(rocecc_pfc_quanta_ns((uint16_t)g.quanta,
							     g.speed) / 2000);
}

/* The netlink socket (a 1 s receive timeout: never wait forever). */
static void open_netlink(void)
{
	struct timeval tv = { .tv_sec = 1 };

	g.nl = mnl_socket_open(NETLINK_ROUTE);
	if (!g.nl || mnl_socket_bind(g.nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die(1, "netlink socket: %s", strerror(errno));
	setsockopt(mnl_socket_get_fd(g.nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
}

int main(int argc, char **argv)
{
	const char *ports = NULL, *send = NULL;
	struct sigaction sa;
	int quanta_set = 0;

	parse_args(argc, argv, &ports, &send, &quanta_set);
	if (send)
		return send_once(send, ports, quanta_set);
	check_watch(ports);
	open_netlink();
	if (read_backlog() < 0)
		die(2, "--watch %s: no qdisc %s on it (or no statistics)", g.watch,
		    g.leaf_str ? g.leaf_str : "at the root");
	pkt_open();

	if (g.rt) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, PROG ": --rt: SCHED_FIFO: %s (going on)\n",
				strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	if (g.verbose)
		fprintf(stderr, PROG ": watching %s %s, prio %d, xoff %" PRId64
			" xon %" PRId64 ", quanta %u, refresh %" PRId64 " us, poll %u us, %d ports%s\n",
			g.watch, g.leaf_str ? g.leaf_str : "root", g.prio, g.xoff,
			g.xon, g.quanta, g.refresh_us, g.interval_us, g.nports,
			g.obey ? ", obeying the receiver's PFC" : "");
	watch_loop();
	write_stats();
	mnl_socket_close(g.nl);
	close(g.pkt_fd);
	return 0;
}
