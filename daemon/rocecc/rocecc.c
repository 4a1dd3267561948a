// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc - configure and watch rocecc.ko over generic netlink (and the
 * BPF datapath through the maps roceccd pins).
 *
 *   rocecc [-j [-p]] [-s] dev attach DEV
 *   rocecc ... dev detach DEV
 *   rocecc ... dev show [DEV]
 *   rocecc ... param show [dev DEV | default] [NAME]
 *   rocecc ... param set [dev DEV | default] NAME VALUE [NAME VALUE ...]
 *   rocecc ... param profile [dev DEV | default] mlx5 | paper
 *              (dev DEV of an mlx5 port: the NIC firmware's, hw.c)
 *   rocecc ... flow show [dev DEV]
 *   rocecc ... monitor
 *   rocecc [-j [-p]] latency [addr ADDR] [port PORT] [sort KEY]   (from roceccd)
 *   rocecc [-j] top [addr ADDR] [port PORT] [sort KEY] [delay SEC] [count N]
 *   rocecc [-j [-p]] pfc show dev IF              (DCB netlink, dcb.h)
 *   rocecc pfc set dev IF [prio-pfc P:on|off,...] [delay BITS] [mbc on|off]
 *   rocecc [-j [-p]] pfc headroom speed SPEED mtu BYTES cable LENGTH ...
 *   rocecc [-j [-p]] buffer show dev IF
 *   rocecc buffer set dev IF [prio-buffer P:B,...] [buffer-size B:SIZE,...]
 *   rocecc [-j [-p]] doctor [dev NAME] [config FILE] [pidfile FILE]
 *   rocecc OBJECT help
 *   rocecc help
 *
 * Exit status: 0 success, 1 the kernel refused or something failed,
 * 2 bad command line; doctor: 0 every check passed, 1 a warning, 2 a
 * failure (or a bad command line).
 *
 * This file parses the options and dispatches to the object's file
 * (cli.h lists them), and holds the error messages and the JSON output
 * they share.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#include <uapi/linux/rocecc.h>

#include "cli.h"
#include "dcb.h"
#include "doctor.h"
#include "flow.h"
#include "latency.h"
#include "top.h"

const char cli_prog[] = "rocecc";

/* Where roceccd pins the BPF datapath's maps by default (pin_dir) */
#define CLI_PIN_DIR	"/sys/fs/bpf/rocecc"

/*
 * The usage text, one entry per object: "rocecc help" prints them all,
 * "rocecc OBJECT help" its own. rocecc.8 documents the same commands and
 * keywords; selftests/unit/daemon/test_man.py holds the two to each other.
 */
static const struct {
	const char *obj;
	const char *text;
} usage_objs[] = {
	{ "dev",
	  "  rocecc dev attach DEV          start congestion control on DEV\n"
	  "  rocecc dev detach DEV          stop it\n"
	  "  rocecc dev show [DEV]          attached devices (-s: counters)\n" },
	{ "param",
	  "  rocecc param show [dev DEV | default] [NAME]\n"
	  "  rocecc param set [dev DEV | default] NAME VALUE [NAME VALUE ...]\n"
	  "  rocecc param profile [dev DEV | default] { mlx5 | paper }\n" },
	{ "flow",
	  "  rocecc flow show [dev DEV]     flows of the datapath (-s: statistics)\n" },
	{ "monitor",
	  "  rocecc monitor                 print events until interrupted: devices\n"
	  "                                 attached/detached/gone, parameters changed,\n"
	  "                                 flows created/expired\n" },
	{ "latency",
	  "  rocecc latency [addr ADDR] [port PORT] [sort p50|p99|p999|rtt|msgs|flow]\n"
	  "                                 per-flow message completion and RTT\n"
	  "                                 p50/p99/p99.9 (us) from roceccd's HTTP\n"
	  "                                 endpoint (default 127.0.0.1 port 9468;\n"
	  "                                 sort default p99, slowest first)\n" },
	{ "top",
	  "  rocecc top [addr ADDR] [port PORT] [sort p50|p99|p999|rtt|tx|msgs|flow]\n"
	  "             [delay SEC] [count N]\n"
	  "                                 live view of roceccd's flows: rates (Mbit/s,\n"
	  "                                 messages, CNPs, CE marks per second),\n"
	  "                                 percentiles, stragglers (!), groups; every\n"
	  "                                 SEC seconds (default 1, 0.1..3600); 'q'\n"
	  "                                 quits. Not on a terminal, or with count N\n"
	  "                                 (N frames, then exit): batch mode, frames\n"
	  "                                 one after another; -j: one JSON object per\n"
	  "                                 frame and line\n" },
	{ "pfc",
	  "  rocecc pfc show dev IF         IEEE PFC of a netdev over DCB netlink: pfc_cap,\n"
	  "                                 enabled priorities, mbc, delay, per-priority\n"
	  "                                 PFC requests (sent) and indications (received)\n"
	  "  rocecc pfc set dev IF [prio-pfc P:on|off[,...]] [delay BITS] [mbc on|off]\n"
	  "                                 P is 0..7 or all; delay 0..65535 bits (mlx5:\n"
	  "                                 cable length in metres)\n"
	  "  rocecc pfc headroom speed SPEED mtu BYTES cable LENGTH [peer-response NS]\n"
	  "             [prios P[,...]] [cell BYTES]\n"
	  "                                 PFC headroom (802.1Qbb model): buffer size, xoff\n"
	  "                                 and xon per lossless priority; SPEED 25G, 100G,\n"
	  "                                 ... or Mb/s; LENGTH metres (5m, 2.5)\n" },
	{ "buffer",
	  "  rocecc buffer show dev IF      DCB buffers: priority to buffer, sizes\n"
	  "  rocecc buffer set dev IF [prio-buffer P:B[,...]] [buffer-size B:SIZE[,...]]\n"
	  "                                 B is 0..7 (or all); SIZE bytes, or K / M (1024)\n" },
	{ "doctor",
	  "  rocecc doctor [dev NAME] [config FILE] [pidfile FILE]\n"
	  "                                 check every RoCE port (or NAME's: a netdev or\n"
	  "                                 RDMA device) and the host: engine, qdisc, ECT,\n"
	  "                                 CNP, PFC, buffers, MTU, GIDs, ACK timeouts,\n"
	  "                                 roceccd, kernel, BTF; each PASS, SKIP, WARN or\n"
	  "                                 FAIL with what was found, what was expected\n"
	  "                                 and the command that fixes it; exit 0 pass,\n"
	  "                                 1 warn, 2 fail. config: roceccd's (default\n"
	  "                                 /etc/rocecc/roceccd.conf), pidfile: its pid\n"
	  "                                 file (default: found in /proc)\n" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"Usage: rocecc [OPTIONS] OBJECT COMMAND\n"
		"       rocecc [OPTIONS] OBJECT help\n"
		"       rocecc help\n"
		"\n");
	for (i = 0; i < sizeof(usage_objs) / sizeof(usage_objs[0]); i++)
		fputs(usage_objs[i].text, f);
	fprintf(f,
		"\n"
		"Parameter sets: 'default' (the default without 'dev') is what devices\n"
		"attached later start with; 'dev DEV' is an attached device's own set.\n"
		"Names and units are the mlx5 ones (rocecc param show lists them);\n"
		"values are decimal or 0x-hexadecimal. The same values are sysctl\n"
		"net.rocecc.default.NAME and net.rocecc.DEV.NAME.\n"
		"With 'dev DEV' naming the netdev or RDMA device of an mlx5 (ConnectX)\n"
		"port, param show, set and profile read and write the NIC firmware's\n"
		"DCQCN parameters instead (the mlx5 driver's debugfs cc_params, as\n"
		"root; rocecc.ko is not needed). rp_rate_divisor has no firmware\n"
		"counterpart: only 1 can be set there.\n"
		"\n"
		"A netdev the BPF datapath drives (roceccd --datapath bpf): dev show,\n"
		"param show, set and profile, flow show read and write its maps, pinned\n"
		"by roceccd (root), with the same output (-j: \"engine\": \"bpf\").\n"
		"\n"
		"OPTIONS: -j JSON output, -p pretty JSON, -s statistics, -h help\n"
		"         --hw-root DIR  for tests only: look for the mlx5 driver's\n"
		"                        sysfs and debugfs under DIR instead of /\n"
		"         --pin-dir DIR  where roceccd pinned the BPF datapath's maps\n"
		"                        (default " CLI_PIN_DIR ")\n"
		"Exit status: 0 ok, 1 failed (the kernel's reason is shown), 2 usage;\n"
		"doctor: 0 pass, 1 warn, 2 fail.\n"
		"See rocecc(8).\n");
}

/*
 * "rocecc OBJECT help": that object's usage on stdout, exit 0; anything
 * but an object's full name is a usage error.
 */
static int usage_obj(const char *obj)
{
	unsigned int i;

	for (i = 0; i < sizeof(usage_objs) / sizeof(usage_objs[0]); i++) {
		if (!strcmp(obj, usage_objs[i].obj)) {
			fputs(usage_objs[i].text, stdout);
			return CLI_EXIT_OK;
		}
	}
	fprintf(stderr, "%s: unknown object '%s' (try 'rocecc help')\n",
		cli_prog, obj);
	return CLI_EXIT_USAGE;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try 'rocecc help')\n");
	return CLI_EXIT_USAGE;
}

int nl_error(struct cli *c, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (c->nl.ext_msg[0])
		fprintf(stderr, ": %s", cli_strip_prefix(c->nl.ext_msg));
	fprintf(stderr, " (%s)\n", strerror(-err));
	return CLI_EXIT_FAIL;
}

void out_json(struct cli *c, json_object *o)
{
	if (!c->out)
		c->out = json_object_new_array();
	json_object_array_add(c->out, o);
}

void flush_json(struct cli *c)
{
	int flags = c->pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;

	if (!c->json)
		return;
	if (!c->out)
		c->out = json_object_new_array();
	printf("%s\n", json_object_to_json_string_ext(c->out, flags));
	json_object_put(c->out);
	c->out = NULL;
}

int need_module(struct cli *c)
{
	if (c->have_mod)
		return 0;
	fprintf(stderr, "%s: generic netlink family '%s' not found: is rocecc.ko loaded?\n",
		cli_prog, ROCECC_GENL_NAME);
	return CLI_EXIT_FAIL;
}

/*
 * Open what the datapath objects talk to: rocecc.ko's family and the BPF
 * datapath's pinned maps, either may be absent (need_module() and bpf.c
 * say so where it matters), not both.
 */
static int open_engines(struct cli *c, const char *pin_dir)
{
	int err = rnl_open(&c->nl);

	c->have_mod = !err;
	if (err && err != -ENOENT) {
		fprintf(stderr, "%s: cannot open a generic netlink socket: %s\n",
			cli_prog, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	cli_bpf_open(c, pin_dir);
	if (c->bdp_err[0])
		fprintf(stderr, "%s: the BPF datapath: %s\n", cli_prog,
			c->bdp_err);
	if (c->have_mod || c->bdp)
		return CLI_EXIT_OK;
	fprintf(stderr, "%s: generic netlink family '%s' not found: is rocecc.ko loaded?",
		cli_prog, ROCECC_GENL_NAME);
	if (!c->bdp_err[0])
		fprintf(stderr, " (nor is the BPF datapath pinned in %s)",
			pin_dir);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

/*
 * The options before the object into @c, @hw_root and @pin_dir: the number
 * of arguments they take, or -1 - the exit code to return now (help, or a
 * bad option).
 */
static int parse_opts(int argc, char **argv, struct cli *c,
		      const char **hw_root, const char **pin_dir)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *o = argv[i] + 1;

		if (!strcmp(argv[i], "--"))
			return i;
		if (!strcmp(argv[i], "--hw-root")) {
			if (i + 1 >= argc)
				return -1 - usage_error("--hw-root needs a directory");
			*hw_root = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--pin-dir")) {
			if (i + 1 >= argc)
				return -1 - usage_error("--pin-dir needs a directory");
			*pin_dir = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "-help") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return -1 - CLI_EXIT_OK;
		}
		for (; *o; o++) {
			switch (*o) {
			case 'j':
				c->json = true;
				break;
			case 'p':
				c->pretty = true;
				break;
			case 's':
				c->stats = true;
				break;
			case 'h':
				usage(stdout);
				return -1 - CLI_EXIT_OK;
			default:
				return -1 - usage_error("unknown option '-%c'", *o);
			}
		}
	}
	return i - 1;
}

/*
 * A datapath object: @fn with rocecc.ko's family and the BPF datapath's
 * maps open; its JSON output printed as one document.
 */
static int run_object(struct cli *c, int (*fn)(struct cli *, int, char **),
		      const char *pin_dir, int argc, char **argv)
{
	int ret;

	signal(SIGPIPE, SIG_DFL);
	ret = open_engines(c, pin_dir);
	if (ret)
		return ret;
	ret = fn(c, argc, argv);
	if (!ret)
		flush_json(c);
	if (c->out)
		json_object_put(c->out);
	if (c->have_mod)
		rnl_close(&c->nl);
	cli_bpf_close(c);
	return ret;
}

/*
 * libbpf's own messages: the CLI says what failed itself, and a query's
 * "not found" is an answer here (is a filter of the BPF datapath on this
 * netdev? libbpf would print the kernel's "Filter with specified
 * priority/protocol not found" for every netdev without one).
 */
static int bpf_quiet(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int (*fn)(struct cli *, int, char **) = NULL;
	const char *hw_root = NULL, *pin_dir = CLI_PIN_DIR;
	int ret;

	libbpf_set_print(bpf_quiet);
	ret = parse_opts(argc, argv, &c, &hw_root, &pin_dir);
	if (ret < 0)
		return -1 - ret;
	argc -= ret;
	argv += ret;
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (cli_matches(argv[1], "help")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[2], "help"))
		return usage_obj(argv[1]);
	if (cli_matches(argv[1], "latency")) {
		struct cli_latency_opts lo = { .json = c.json, .pretty = c.pretty };

		signal(SIGPIPE, SIG_DFL);
		return cli_latency(&lo, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "top")) {
		struct cli_top_opts to = { .json = c.json };

		signal(SIGPIPE, SIG_DFL);
		return cli_top(&to, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "pfc") || cli_matches(argv[1], "buffer")) {
		struct cli_pfc_opts po = { .json = c.json, .pretty = c.pretty };

		signal(SIGPIPE, SIG_DFL);
		if (argv[1][0] == 'p')
			return cli_pfc(&po, argc - 2, argv + 2);
		return cli_buffer(&po, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "doctor")) {
		struct cli_doctor_opts dop = { .json = c.json,
					       .pretty = c.pretty,
					       .hw_root = hw_root };

		signal(SIGPIPE, SIG_DFL);
		return cli_doctor(&dop, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "param")) {
		/* an mlx5 port's parameters are the firmware's */
		ret = cli_hw_param(&c, hw_root, argc - 2, argv + 2);
		if (ret >= 0)
			return ret;
	}
	if (cli_matches(argv[1], "dev"))
		fn = do_dev;
	else if (cli_matches(argv[1], "param"))
		fn = do_param;
	else if (cli_matches(argv[1], "flow"))
		fn = do_flow;
	else if (cli_matches(argv[1], "monitor"))
		fn = do_monitor;
	else
		return usage_error("unknown object '%s'", argv[1]);
	return run_object(&c, fn, pin_dir, argc - 2, argv + 2);
}
