// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd - the rocecc daemon: per-flow RoCE telemetry (bpf/flowmon) on
 * every RoCE netdev, flows named after the QPs that own them, exported in
 * Prometheus text format.
 *
 * Every --interval it
 *  - discovers RDMA devices and their ports' netdevs over RDMA netlink and
 *    attaches flowmon_ingress / flowmon_egress to the clsact hooks of each
 *    RoCE netdev (creating the clsact qdisc if there is none);
 *  - learns the QPs of each device (RDMA_NLDEV_CMD_RES_QP_GET): every RC/UC
 *    QP in RTR or later goes into the "qps" map ((ifindex, lqpn) -> rqpn);
 *    QPs that vanished leave it at once, and their flows are deleted
 *    --linger seconds later (so that a scrape after a job ends still sees
 *    its final counts);
 * and it answers HTTP on --listen:--port (libmicrohttpd):
 *    /metrics      Prometheus text format
 *    /flows        per-flow p50/p99/p99.9 of message completion and RTT
 *    /flows.json   the same, and the counters, as JSON
 * On SIGTERM/SIGINT it detaches the filters it attached and exits 0; the
 * clsact qdiscs stay, even those it created (removing one resets the
 * netdev's root qdisc and drops what fq holds: see tc.c).
 *
 * It daemonizes unless -f (--pidfile to find it); the BPF load and the
 * listening socket come first, so that their errors reach stderr and the
 * exit status. A filter of ours left by a daemon that died (same priority
 * and handle) is replaced, not duplicated.
 *
 * This file holds main and its loop. The rest, one job a file:
 * options.c (file, command line, reload), bpf.c (flowmon, pinned),
 * http.c (the server), discovery.c (netdevs, QPs), flows.c (snapshots of
 * the flow table, /flows), groups.c (groups and stragglers), events.c (log
 * and /events.json), prom.c (/metrics), tc.c (TC), module.c (rocecc.ko),
 * dcb.c (PFC and buffers), pfcwd.c (watchdog and tuner), dp.c (the
 * datapath's engine per netdev), bpfdp.c (the BPF datapath), resolve.c
 * (what flowmon counted before a QP was known); roceccd.h has what they
 * share.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"
#include "lib/rdma_nl.h"
#include "lib/bpf_dp.h"
#include "roceccd.h"

#define RD_DEFAULT_PORT	9468

const char rd_prog[] = "roceccd";
static volatile sig_atomic_t stop, reload;

uint64_t rd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: roceccd [OPTIONS]\n"
		"\n"
		"Per-flow RoCE telemetry: attaches bpf/flowmon to every RoCE netdev,\n"
		"names flows 'comm[pid] lqpn -> peer:rqpn' from RDMA netlink, flags\n"
		"stragglers, runs the DCQCN datapath if configured to (rocecc.ko or BPF\n"
		"programs), applies [pfc] (PFC and DCB buffers over DCB netlink; PFC\n"
		"storm watchdog, buffer tuner), reads\n"
		"(and with [hw] apply, writes) the DCQCN parameters of NICs that run it in\n"
		"firmware (mlx5) and exports their counters, and serves /metrics\n"
		"(Prometheus), /flows, /flows.json, /events.json and /config over HTTP.\n"
		"\n"
		"  -c, --config FILE        configuration file (default %s,\n"
		"                           used if it exists); flags below override it\n"
		"      --check-config       check the configuration (and rank map), print\n"
		"                           the effective one, exit 0 or 1\n"
		"      --list-metrics       print the HELP and TYPE lines of every metric\n"
		"                           family /metrics can export, and each histogram\n"
		"                           empty (its le bounds), exit 0 or 1\n"
		"  -l, --listen ADDR        metrics bind address (default 127.0.0.1)\n"
		"  -p, --port PORT          metrics TCP port (default 9468)\n"
		"  -i, --interval TIME      discovery / QP poll interval (default 1s;\n"
		"                           seconds, or with unit: 250ms, 2s)\n"
		"      --linger TIME        keep a vanished QP's flows this long (default 15s)\n"
		"      --buckets-per-octave N  exported histogram buckets per power of\n"
		"                           two: 1, 2, 4 (default), 8 or 16\n"
		"      --pin-dir DIR        pin the flow table here (default\n"
		"                           /sys/fs/bpf/rocecc; 'none': do not)\n"
		"      --datapath ENGINE    the DCQCN datapath on the netdevs [module]\n"
		"                           devices selects: none, module (rocecc.ko),\n"
		"                           bpf (bpf/dcqcn.bpf.c) or auto (module if\n"
		"                           loaded, else bpf); default: [datapath] engine\n"
		"  -f, --foreground         do not daemonize; log to stderr (systemd:\n"
		"                           Type=notify, journal)\n"
		"  -L, --log-level LEVEL    error, warn, info (default), debug\n"
		"      --pidfile FILE       write the daemon's pid to FILE\n"
		"      --hw-root DIR        for tests only: look for the mlx5 driver's\n"
		"                           sysfs and debugfs under DIR, and read\n"
		"                           ethtool statistics from DIR/ethtool/NETDEV\n"
		"  -h, --help\n"
		"\n"
		"Needs root (BPF, TC, RDMA and DCB netlink). SIGHUP: reload the configuration\n"
		"(a bad file is refused and changes nothing). SIGTERM/SIGINT: detach\n"
		"what it attached and exit.\n"
		"Exit status: 0 ok, 1 failure or bad configuration, 2 bad command line.\n",
		RD_CONF_DEFAULT_PATH);
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		stop = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && rd_log_max < LOG_DEBUG_)
		return 0;
	if (level == LIBBPF_INFO && rd_log_max < LOG_INFO_)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * The command line and the configuration into @rd. -1: go on and run;
 * else the exit status, after the message or what was asked (--help,
 * --check-config, --list-metrics: 0; a bad command line: 2; a bad
 * configuration: 1).
 */
static int rd_setup(struct rd *rd, int argc, char **argv)
{
	struct rd_cmdline cl;
	char err[512];
	int ret;

	rd->argc = argc;
	rd->argv = argv;
	rd->listen_fd = -1;
	rd_conf_defaults(&rd->conf);
	ret = rd_cmdline(&rd->conf, argc, argv, &cl);
	if (ret || cl.help) {
		usage(ret ? stderr : stdout);
		return ret;
	}
	rd->foreground = cl.foreground;
	rd->pidfile = cl.pidfile;
	rd->conf_path = cl.config ? cl.config : RD_CONF_DEFAULT_PATH;
	rd->conf_explicit = cl.config != NULL;
	if (cl.hw_root)
		snprintf(rd->hw_root, sizeof(rd->hw_root), "%s", cl.hw_root);
	if (rd_conf_build(rd, &rd->conf, &rd->rmap, &rd->have_rmap, err,
			  sizeof(err))) {
		fprintf(stderr, "%s: %s\n", rd_prog, err);
		return 1;
	}
	if (cl.check || cl.list) {
		if (cl.list)
			rd_family_list(stdout, rd->conf.per_octave);
		else
			rd_conf_print(stdout, &rd->conf);
		return 0;
	}
	rd->conf_gen = 1;
	rd_log_max = rd->conf.log_level;
	if (rd_hw_init(rd)) {
		fprintf(stderr, "%s: --hw-root: too long\n", rd_prog);
		return 1;
	}
	return -1;
}

/*
 * Into the background (unless -f), the signals, the pid file. 0, or -1
 * after the message; *@pid_written if the file was written.
 */
static int rd_daemonize(struct rd *rd, bool *pid_written)
{
	struct sigaction sa = { .sa_handler = on_signal };
	FILE *pf;

	if (!rd->foreground) {
		if (daemon(0, 0)) {
			rd_log(LOG_ERR_, "daemon: %s", strerror(errno));
			return -1;
		}
		openlog(rd_prog, LOG_PID, LOG_DAEMON);
		rd_log_to_syslog = true;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!rd->pidfile)
		return 0;
	pf = fopen(rd->pidfile, "w");
	if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf)) {
		rd_log(LOG_ERR_, "--pidfile: cannot write '%s': %s",
		       rd->pidfile, strerror(errno));
		return -1;
	}
	*pid_written = true;
	return 0;
}

/* Poll every interval until SIGTERM or SIGINT; SIGHUP reloads first. */
static void rd_run(struct rd *rd)
{
	bool ready = false;

	while (!stop) {
		if (reload) {
			reload = 0;
			rd_reload(rd);
		}
		pthread_mutex_lock(&rd->lock);
		rd_poll(rd);
		pthread_mutex_unlock(&rd->lock);
		if (!ready) {
			/* attached, QPs learnt, serving: ready for systemd */
			sd_notifyf(0, "READY=1\nSTATUS=%zu RoCE netdevs, configuration generation %u\nMAINPID=%lu",
				   rd->nnds, rd->conf_gen, (unsigned long)getpid());
			ready = true;
		}
		rd_events_wait(rd, rd->conf.interval_ms, &stop, &reload);
	}
}

/* Give every netdev back as it was: PFC, the datapath, the TC programs. */
static void rd_release_all(struct rd *rd)
{
	size_t i;

	pthread_mutex_lock(&rd->lock);
	for (i = 0; i < rd->nnds; i++) {
		rd_pfcwd_release(rd, &rd->nds[i]);
		rd_dp_release(rd, &rd->nds[i], true);
		rd_detach(&rd->nds[i]);
	}
	pthread_mutex_unlock(&rd->lock);
	rd_events_close(rd);
	rd_bpf_close(rd);
}

static void rd_free(struct rd *rd)
{
	if (rd->mod_open)
		rnl_close(&rd->mod);
	rd_dcb_close(rd);
	if (rd->have_rmap)
		rankmap_free(&rd->rmap);
	free(rd->qps);
	free(rd->nds);
	free(rd->hws);
	free(rd->fs);
	rd_events_free(rd);
	free(rd);
}

int main(int argc, char **argv)
{
	struct rd *rd = calloc(1, sizeof(*rd));
	bool pid_written = false;
	int ret, fd;

	if (!rd) {
		fprintf(stderr, "%s: out of memory\n", rd_prog);
		return 1;
	}
	ret = rd_setup(rd, argc, argv);
	if (ret >= 0) {
		rd_free(rd);
		return ret;
	}
	ret = 1;
	rd->start_ms = rd_now_ms();
	libbpf_set_print(libbpf_print);
	pthread_mutex_init(&rd->lock, NULL);

	fd = rdma_nl_open(&rd->nl);
	if (fd) {
		rd_log(LOG_ERR_, "cannot open RDMA netlink: %s%s", strerror(-fd),
		       fd == -EPROTONOSUPPORT ? " (no ib_core?)" : "");
		goto out_free;
	}
	if (rd_bpf_load(rd))
		goto out_nl;
	/* the BPF engine off for good: its QP learner goes (bpfdp.c) */
	if (rd->conf.dp_engine == RD_ENGINE_NONE && rd->pinned[0])
		bpf_dp_unlearn_pinned(rd->pinned);
	rd->listen_fd = rd_listen(rd->conf.listen, rd->conf.port);
	if (rd->listen_fd < 0 || rd_daemonize(rd, &pid_written))
		goto out_skel;
	rd->httpd = rd_http_start(rd, rd->listen_fd, rd->conf.listen,
				  rd->conf.port);
	rd->listen_fd = -1;	/* MHD's now, or closed */
	if (!rd->httpd)
		goto out_skel;

	rd_log(LOG_INFO_, "started: config %s, interval %" PRIu64 " ms, linger %" PRIu64 " ms, pin_dir %s",
	       rd->conf_explicit || !access(rd->conf_path, F_OK) ?
	       rd->conf_path : "(none)", rd->conf.interval_ms,
	       rd->conf.linger_ms, rd->pinned[0] ? rd->pinned : "none");
	rd_run(rd);
	rd_log(LOG_INFO_, "stopping");
	sd_notify(0, "STOPPING=1");
	ret = 0;
	MHD_stop_daemon(rd->httpd);
out_skel:
	if (rd->listen_fd >= 0)
		close(rd->listen_fd);
	if (pid_written)
		unlink(rd->pidfile);
	rd_release_all(rd);
	flowmon__destroy(rd->skel);
out_nl:
	rdma_nl_close(&rd->nl);
out_free:
	rd_free(rd);
	return ret;
}
