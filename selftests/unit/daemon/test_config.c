// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's configuration file (daemon/roceccd/config.c):
 * defaults, every key, every kind of error with its exact message, cross-key
 * checks, the round trip through rd_conf_print(), and the example roceccd.conf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/parse.h"
#include "policy/headroom.h"
#include "roceccd/config.h"
#include "tap.h"

#ifndef RDCONF_EXAMPLE
#define RDCONF_EXAMPLE "roceccd.conf"
#endif

#define ERRLEN	512

static int load(struct rd_conf *c, const char *text, char *err)
{
	rd_conf_defaults(c);
	return rd_conf_load_string(c, "t.conf", text, err, ERRLEN);
}

/* @text must fail with -EINVAL and exactly @want. */
static void expect_err(const char *text, const char *want)
{
	char err[ERRLEN];
	struct rd_conf c;
	int ret = load(&c, text, err);

	tap_eq(ret, -EINVAL, "error: %s", want);
	tap_is_str(err, want, "  message");
}

/* @text must load; its [section] key as written back must be @want. */
static struct rd_conf loaded;

static int expect_ok(const char *text, const char *what)
{
	char err[ERRLEN];
	int ret = load(&loaded, text, err);

	if (!tap_eq(ret, 0, "%s", what))
		tap_diag("%s", err);
	return ret == 0;
}

static char *print_str(const struct rd_conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rd_conf_print(f, c);
	fclose(f);
	return buf;
}

/* rd_conf_print() of @c read back onto defaults equals @c. */
static void round_trip(const struct rd_conf *c, const char *what)
{
	char err[ERRLEN], *text = print_str(c);
	struct rd_conf back;
	int ret;

	rd_conf_defaults(&back);
	ret = rd_conf_load_string(&back, "printed", text, err, sizeof(err));
	if (!tap_eq(ret, 0, "round trip %s: printed config loads", what))
		tap_diag("%s\n%s", err, text);
	if (!tap_ok(rd_conf_equal(&back, c), "round trip %s: equal", what))
		tap_diag("%s", text);
	free(text);
}

static void test_defaults(void)
{
	struct rd_conf c;
	unsigned int id, nset = 0;

	memset(&c, 0x5a, sizeof(c));
	rd_conf_defaults(&c);
	tap_is_str(c.listen, "127.0.0.1", "default listen");
	tap_eq(c.port, 9468, "default port");
	tap_eq(c.interval_ms, 1000, "default interval");
	tap_eq(c.linger_ms, 15000, "default linger");
	tap_eq(c.per_octave, 4, "default buckets_per_octave");
	tap_eq(c.log_level, rd_log_level("info"), "default log_level info");
	tap_is_str(c.pin_dir, "/sys/fs/bpf/rocecc", "default pin_dir");
	tap_eq(c.module_attach, false, "default attach no");
	tap_eq(c.module_fq, true, "default fq yes");
	tap_is_str(c.module_devices, "", "default devices all");
	tap_eq(c.profile, -1, "default profile not set");
	for (id = 0; id <= ROCECC_PARAM_MAX; id++)
		nset += c.param_set[id];
	tap_eq(nset, 0, "default: no module parameter set");
	tap_ok(c.factor == 2.0, "default factor 2");
	tap_eq(c.min_messages, 100, "default min_messages");
	tap_eq(c.min_flows, 3, "default min_flows");
	tap_eq(c.window_ms, 10000, "default window");
	tap_eq(c.group_by, RD_GROUP_AUTO, "default group_by auto");
	tap_is_str(c.rankmap_file, "", "default rankmap file none");
	tap_is_str(c.local_host, "", "default host not set");
	tap_eq(rd_conf_check(&c, "t.conf", NULL, 0), 0,
	       "defaults pass rd_conf_check");
	tap_ok(rd_conf_load_string(&c, "t.conf", "", NULL, 0) == 0,
	       "empty file loads");
	{
		struct rd_conf d;

		rd_conf_defaults(&d);
		tap_ok(rd_conf_equal(&c, &d), "empty file leaves defaults");
	}
}

static const char full_file[] =
	"# every key\n"
	"[daemon]\n"
	"listen = fd00::1\n"
	"port = 19468\n"
	"interval = 250ms\n"
	"linger = 1.5\n"
	"buckets_per_octave = 16\n"
	"log_level = DEBUG\n"
	"pin_dir = /sys/fs/bpf/other dir\n"
	"\n"
	"[module]\n"
	"attach = On\n"
	"devices = eth1,eth2\n"
	"fq = off\n"
	"profile = paper\n"
	"rp_ai_rate = 100\n"
	"rp_byte_reset = 0xffffffff\n"
	"np_cnp_dscp = 0\n"
	"rp_clamp_tgt_rate = 1\n"
	"\n"
	"[straggler]\n"
	"factor = 1.25\n"
	"min_messages = 18446744073709551615\n"
	"min_flows = 100000\n"
	"window = 2s\n"
	"group_by = rankmap\n"
	"\n"
	"[rankmap]\n"
	"file = /etc/rocecc/job.map\n"
	"host = node-7.example\n";

static void test_full(void)
{
	const struct rd_conf *c = &loaded;
	unsigned int id, nset = 0;

	if (!expect_ok(full_file, "a file with every key loads"))
		return;
	tap_is_str(c->listen, "fd00::1", "listen");
	tap_eq(c->port, 19468, "port");
	tap_eq(c->interval_ms, 250, "interval 250ms");
	tap_eq(c->linger_ms, 1500, "linger 1.5 (seconds)");
	tap_eq(c->per_octave, 16, "buckets_per_octave");
	tap_eq(c->log_level, 3, "log_level DEBUG (any case)");
	tap_is_str(c->pin_dir, "/sys/fs/bpf/other dir", "pin_dir with a blank");
	tap_eq(c->module_attach, true, "attach On");
	tap_is_str(c->module_devices, "eth1 eth2", "devices");
	tap_eq(c->module_fq, false, "fq off");
	tap_eq(c->profile, ROCECC_PROFILE_PAPER, "profile paper");
	tap_ok(c->param_set[ROCECC_PARAM_RP_AI_RATE] &&
	       c->param[ROCECC_PARAM_RP_AI_RATE] == 100, "rp_ai_rate");
	tap_ok(c->param_set[ROCECC_PARAM_RP_BYTE_RESET] &&
	       c->param[ROCECC_PARAM_RP_BYTE_RESET] == 0xffffffffU,
	       "rp_byte_reset in hex");
	tap_ok(c->param_set[ROCECC_PARAM_NP_CNP_DSCP] &&
	       c->param[ROCECC_PARAM_NP_CNP_DSCP] == 0, "np_cnp_dscp 0");
	for (id = 0; id <= ROCECC_PARAM_MAX; id++)
		nset += c->param_set[id];
	tap_eq(nset, 4, "exactly the 4 parameters are set");
	tap_ok(c->factor == 1.25, "factor");
	tap_eq(c->min_messages, UINT64_MAX, "min_messages up to 2^64-1");
	tap_eq(c->min_flows, 100000, "min_flows");
	tap_eq(c->window_ms, 2000, "window");
	tap_eq(c->group_by, RD_GROUP_RANKMAP, "group_by rankmap");
	tap_is_str(c->rankmap_file, "/etc/rocecc/job.map", "rankmap file");
	tap_is_str(c->local_host, "node-7.example", "rankmap host");
	tap_eq(rd_conf_check(c, "t.conf", NULL, 0), 0, "it passes rd_conf_check");
	round_trip(c, "of the full file");
}

static void test_values(void)
{
	static const struct {
		const char *group_by;
		enum rd_group_by g;
	} gb[] = {
		{ "auto", RD_GROUP_AUTO }, { "process", RD_GROUP_PROCESS },
		{ "peer", RD_GROUP_PEER }, { "rankmap", RD_GROUP_RANKMAP },
		{ "host", RD_GROUP_HOST },
	};
	static const struct {
		const char *in, *out;
	} devs[] = {
		{ "eth0", "eth0" },
		{ "eth0 eth1", "eth0 eth1" },
		{ "eth0,eth1", "eth0 eth1" },
		{ "eth0, eth1 ,eth2\t enp65s0f1np1", "eth0 eth1 eth2 enp65s0f1np1" },
		{ ",eth0,,", "eth0" },
		{ "all", "" },
		{ "rxe-0.1@x", "rxe-0.1@x" },
	};
	static const char *const yes[] = { "yes", "true", "on", "1", "YES" };
	static const char *const no[] = { "no", "false", "off", "0", "Off" };
	char text[256];
	unsigned int i;

	for (i = 0; i < sizeof(gb) / sizeof(gb[0]); i++) {
		snprintf(text, sizeof(text), "[straggler]\ngroup_by = %s\n",
			 gb[i].group_by);
		if (expect_ok(text, "group_by loads"))
			tap_eq(loaded.group_by, gb[i].g, "group_by = %s",
			       gb[i].group_by);
		tap_is_str(rd_group_by_name(gb[i].g), gb[i].group_by,
			   "rd_group_by_name");
		tap_eq(rd_group_by_parse(gb[i].group_by), gb[i].g,
		       "rd_group_by_parse(%s)", gb[i].group_by);
	}
	tap_ok(!rd_group_by_name(RD_GROUP_NR), "rd_group_by_name out of range");
	tap_eq(rd_group_by_parse("Peer"), -1, "group_by is case-sensitive");

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		snprintf(text, sizeof(text), "[module]\ndevices = %s\n",
			 devs[i].in);
		if (expect_ok(text, "devices list loads"))
			tap_is_str(loaded.module_devices, devs[i].out,
				   "devices normalised");
	}

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(text, sizeof(text), "[module]\nattach = %s\n", yes[i]);
		if (expect_ok(text, "attach = yes-word loads"))
			tap_eq(loaded.module_attach, true, "attach = %s",
			       yes[i]);
		snprintf(text, sizeof(text), "[module]\nattach = %s\n", no[i]);
		rd_conf_defaults(&loaded);
		loaded.module_attach = true;
		tap_eq(rd_conf_load_string(&loaded, "t.conf", text, NULL, 0),
		       0, "attach = %s loads", no[i]);
		tap_eq(loaded.module_attach, false, "attach = %s", no[i]);
	}

	if (expect_ok("[module]\nprofile = mlx5\n", "profile = mlx5 loads"))
		tap_eq(loaded.profile, ROCECC_PROFILE_MLX5, "profile mlx5");
	if (expect_ok("[module]\nprofile = paper\n", "profile = paper loads"))
		tap_eq(loaded.profile, ROCECC_PROFILE_PAPER, "profile paper");

	if (expect_ok("[daemon]\npin_dir = none\n", "pin_dir = none loads"))
		tap_is_str(loaded.pin_dir, "", "pin_dir none -> \"\"");
	if (expect_ok("[rankmap]\nfile = none\n", "file = none loads"))
		tap_is_str(loaded.rankmap_file, "", "file none -> \"\"");
	if (expect_ok("[daemon]\nlisten = 0.0.0.0\n", "listen IPv4"))
		tap_is_str(loaded.listen, "0.0.0.0", "listen 0.0.0.0");
	if (expect_ok("[daemon]\nlisten = ::\n", "listen IPv6"))
		tap_is_str(loaded.listen, "::", "listen ::");
	if (expect_ok("[daemon]\nbuckets_per_octave = 1\nlog_level = error\n",
		      "buckets_per_octave 1, log_level error")) {
		tap_eq(loaded.per_octave, 1, "buckets_per_octave 1");
		tap_eq(loaded.log_level, 0, "log_level error");
	}
	if (expect_ok("[straggler]\nfactor = 1000\nmin_flows = 2\nmin_messages = 1\n",
		      "straggler limits")) {
		tap_ok(loaded.factor == 1000.0, "factor 1000");
		tap_eq(loaded.min_flows, 2, "min_flows 2");
		tap_eq(loaded.min_messages, 1, "min_messages 1");
	}
	if (expect_ok("[module]\nrp_gd = 0XF\nrp_rate_divisor = 1000000\n",
		      "module params at their limits")) {
		tap_eq(loaded.param[ROCECC_PARAM_RP_GD], 15, "rp_gd 0XF");
		tap_eq(loaded.param[ROCECC_PARAM_RP_RATE_DIVISOR], 1000000,
		       "rp_rate_divisor 1000000");
	}
	/* "key: value" is inih's other syntax */
	if (expect_ok("[daemon]\nport: 80\n", "key: value"))
		tap_eq(loaded.port, 80, "port: 80");
}

static void test_comments(void)
{
	static const char text[] =
		"; a comment\n"
		"# another comment\n"
		"[daemon] ; a comment after a section\n"
		"port = 1234 ; an inline comment\n"
		"#port = 1\n"
		";port = 2\n"
		"   # an indented comment is still a comment\n"
		"interval = 2s\t; after a tab\n"
		"\n"
		"[module]\n"
		"devices = eth0, eth1 ; two\n";

	if (!expect_ok(text, "comments: ';', '#', inline \" ;\""))
		return;
	tap_eq(loaded.port, 1234, "comments: value before \" ;\"");
	tap_eq(loaded.interval_ms, 2000, "comments: \"\\t;\" also starts one");
	tap_is_str(loaded.module_devices, "eth0 eth1", "comments: list before \" ;\"");
	expect_err("[daemon]\nport = 1234 # not a comment\n",
		   "t.conf:2: [daemon] port: '1234 # not a comment' is not a TCP port (1..65535)");
	expect_err("[daemon]\nport = 1234;no blank, no comment\n",
		   "t.conf:2: [daemon] port: '1234;no blank, no comment' is not a TCP port (1..65535)");
	if (expect_ok("\xEF\xBB\xBF[daemon]\nport = 7\n", "a UTF-8 BOM is skipped"))
		tap_eq(loaded.port, 7, "BOM: port");
	if (expect_ok("[daemon]\r\nport = 8\r\n", "CRLF line ends"))
		tap_eq(loaded.port, 8, "CRLF: port");
	if (expect_ok("[daemon]\nport = 9", "no newline at the end"))
		tap_eq(loaded.port, 9, "no newline: port");
	if (expect_ok("[daemon]\nport = 1\n[straggler]\n[daemon]\nlisten = ::1\n",
		      "a section may be opened twice")) {
		tap_eq(loaded.port, 1, "section twice: port");
		tap_is_str(loaded.listen, "::1", "section twice: listen");
	}
}

static void test_errors(void)
{
	char long_line[300];
	static const struct {
		const char *text, *msg;
	} cases[] = {
		/* [daemon] */
		{ "[daemon]\nport = 70000\n",
		  "t.conf:2: [daemon] port: '70000' is not a TCP port (1..65535)" },
		{ "[daemon]\nport = 0\n",
		  "t.conf:2: [daemon] port: '0' is not a TCP port (1..65535)" },
		{ "[daemon]\nport = http\n",
		  "t.conf:2: [daemon] port: 'http' is not a TCP port (1..65535)" },
		{ "[daemon]\nlisten = localhost\n",
		  "t.conf:2: [daemon] listen: 'localhost' is not an IPv4 or IPv6 address" },
		{ "[daemon]\nlisten = 10.0.0.256\n",
		  "t.conf:2: [daemon] listen: '10.0.0.256' is not an IPv4 or IPv6 address" },
		{ "[daemon]\nlisten = \n",
		  "t.conf:2: [daemon] listen: '' is not an IPv4 or IPv6 address" },
		{ "[daemon]\ninterval = 1 s\n",
		  "t.conf:2: [daemon] interval: '1 s' is not a time (seconds, or with a unit: 250ms, 2s)" },
		{ "[daemon]\ninterval = 0.1ms\n",
		  "t.conf:2: [daemon] interval: '0.1ms' is out of range (1ms to 1 day)" },
		{ "[daemon]\nlinger = 2d\n",
		  "t.conf:2: [daemon] linger: '2d' is not a time (seconds, or with a unit: 250ms, 2s)" },
		{ "[daemon]\nlinger = 86401\n",
		  "t.conf:2: [daemon] linger: '86401' is out of range (1ms to 1 day)" },
		{ "[daemon]\nbuckets_per_octave = 3\n",
		  "t.conf:2: [daemon] buckets_per_octave: '3' is not 1, 2, 4, 8 or 16" },
		{ "[daemon]\nbuckets_per_octave = 4x\n",
		  "t.conf:2: [daemon] buckets_per_octave: '4x' is not 1, 2, 4, 8 or 16" },
		{ "[daemon]\nlog_level = verbose\n",
		  "t.conf:2: [daemon] log_level: 'verbose' is not a log level (error, warn, info, debug)" },
		{ "[daemon]\npin_dir = rocecc\n",
		  "t.conf:2: [daemon] pin_dir: 'rocecc' is not an absolute path (or none)" },
		{ "[daemon]\npin_dir = None\n",
		  "t.conf:2: [daemon] pin_dir: 'None' is not an absolute path (or none)" },
		/* [module] */
		{ "[module]\nattach = maybe\n",
		  "t.conf:2: [module] attach: 'maybe' is not yes, no, true, false, on, off, 1 or 0" },
		{ "[module]\ndevices = eth0 all\n",
		  "t.conf:2: [module] devices: 'eth0 all' lists 'all' with netdev names (all, or names)" },
		{ "[module]\ndevices = eth0,eth0\n",
		  "t.conf:2: [module] devices: 'eth0,eth0' lists 'eth0' twice" },
		{ "[module]\ndevices = eth0 a/b\n",
		  "t.conf:2: [module] devices: 'eth0 a/b' has 'a/b', not a netdev name (1 to 15 characters, no '/' or ':')" },
		{ "[module]\ndevices = eth0:1\n",
		  "t.conf:2: [module] devices: 'eth0:1' has 'eth0:1', not a netdev name (1 to 15 characters, no '/' or ':')" },
		{ "[module]\ndevices = a0123456789abcdef\n",
		  "t.conf:2: [module] devices: 'a0123456789abcdef' has 'a0123456789abcdef', not a netdev name (1 to 15 characters, no '/' or ':')" },
		{ "[module]\ndevices = ..\n",
		  "t.conf:2: [module] devices: '..' has '..', not a netdev name (1 to 15 characters, no '/' or ':')" },
		{ "[module]\ndevices = ,\n",
		  "t.conf:2: [module] devices: ',' lists no netdev (all, or names)" },
		{ "[module]\ndevices =\n",
		  "t.conf:2: [module] devices: '' lists no netdev (all, or names)" },
		{ "[module]\nprofile = dcqcn\n",
		  "t.conf:2: [module] profile: 'dcqcn' is not a profile (mlx5, paper)" },
		{ "[module]\nrp_ai_rate = 4000001\n",
		  "t.conf:2: [module] rp_ai_rate: '4000001' is out of range: 0..4000000 (Mb/s)" },
		{ "[module]\nrp_threshold = 0\n",
		  "t.conf:2: [module] rp_threshold: '0' is out of range: 1..31 (count)" },
		{ "[module]\nrp_clamp_tgt_rate = 2\n",
		  "t.conf:2: [module] rp_clamp_tgt_rate: '2' is out of range: 0..1 (bool)" },
		{ "[module]\nrp_min_rate = 0x100000000\n",
		  "t.conf:2: [module] rp_min_rate: '0x100000000' is out of range: 1..4000000 (Mb/s)" },
		{ "[module]\nrp_min_rate = 99999999999999999999999\n",
		  "t.conf:2: [module] rp_min_rate: '99999999999999999999999' is out of range: 1..4000000 (Mb/s)" },
		{ "[module]\nrp_ai_rate = -1\n",
		  "t.conf:2: [module] rp_ai_rate: '-1' is not a number (decimal, or hex with 0x)" },
		{ "[module]\nrp_ai_rate = 0x\n",
		  "t.conf:2: [module] rp_ai_rate: '0x' is not a number (decimal, or hex with 0x)" },
		{ "[module]\nrp_ai_rate = 0x1g\n",
		  "t.conf:2: [module] rp_ai_rate: '0x1g' is not a number (decimal, or hex with 0x)" },
		{ "[module]\nrp_ai_rate = 10Mb/s\n",
		  "t.conf:2: [module] rp_ai_rate: '10Mb/s' is not a number (decimal, or hex with 0x)" },
		/* [straggler] */
		{ "[straggler]\nfactor = 1\n",
		  "t.conf:2: [straggler] factor: '1' is out of range (above 1, at most 1000)" },
		{ "[straggler]\nfactor = 1000.5\n",
		  "t.conf:2: [straggler] factor: '1000.5' is out of range (above 1, at most 1000)" },
		{ "[straggler]\nfactor = two\n",
		  "t.conf:2: [straggler] factor: 'two' is not a number" },
		{ "[straggler]\nfactor = nan\n",
		  "t.conf:2: [straggler] factor: 'nan' is not a number" },
		{ "[straggler]\nfactor = 0x2\n",
		  "t.conf:2: [straggler] factor: '0x2' is not a number" },
		{ "[straggler]\nfactor = 2x\n",
		  "t.conf:2: [straggler] factor: '2x' is not a number" },
		{ "[straggler]\nmin_messages = 0\n",
		  "t.conf:2: [straggler] min_messages: '0' is not an integer from 1 to 18446744073709551615" },
		{ "[straggler]\nmin_messages = 18446744073709551616\n",
		  "t.conf:2: [straggler] min_messages: '18446744073709551616' is not an integer from 1 to 18446744073709551615" },
		{ "[straggler]\nmin_flows = 1\n",
		  "t.conf:2: [straggler] min_flows: '1' is not an integer from 2 to 100000" },
		{ "[straggler]\nmin_flows = 100001\n",
		  "t.conf:2: [straggler] min_flows: '100001' is not an integer from 2 to 100000" },
		{ "[straggler]\nwindow = soon\n",
		  "t.conf:2: [straggler] window: 'soon' is not a time (seconds, or with a unit: 250ms, 2s)" },
		{ "[straggler]\ngroup_by = rank\n",
		  "t.conf:2: [straggler] group_by: 'rank' is not auto, process, peer, rankmap or host" },
		{ "[straggler]\ngroup_by = Peer\n",
		  "t.conf:2: [straggler] group_by: 'Peer' is not auto, process, peer, rankmap or host" },
		/* [rankmap] */
		{ "[rankmap]\nfile = job.map\n",
		  "t.conf:2: [rankmap] file: 'job.map' is not an absolute path (or none)" },
		{ "[rankmap]\nhost = node 1\n",
		  "t.conf:2: [rankmap] host: 'node 1' is not a host name (1 to 255 of [A-Za-z0-9._:-])" },
		{ "[rankmap]\nhost =\n",
		  "t.conf:2: [rankmap] host: '' is not a host name (1 to 255 of [A-Za-z0-9._:-])" },
		/* structure */
		{ "[daemon]\nport = 1\n\n[foo]\nbar = 1\n",
		  "t.conf:4: unknown section [foo] (known: daemon, datapath, module, straggler, rankmap, pfc, hw)" },
		{ "[daemon]\n[Daemon]\n",
		  "t.conf:2: unknown section [Daemon] (known: daemon, datapath, module, straggler, rankmap, pfc, hw)" },
		{ "[ daemon ]\nport = 1\n",
		  "t.conf:1: unknown section [ daemon ] (known: daemon, datapath, module, straggler, rankmap, pfc, hw)" },
		{ "[daemon]\nprot = 1\n",
		  "t.conf:2: [daemon] prot: unknown key (known: listen, port, interval, linger, buckets_per_octave, log_level, pin_dir)" },
		{ "[straggler]\nfactr = 1\n",
		  "t.conf:2: [straggler] factr: unknown key (known: factor, min_messages, min_flows, window, group_by)" },
		{ "[rankmap]\npath = /x\n",
		  "t.conf:2: [rankmap] path: unknown key (known: file, host)" },
		{ "[module]\nrp_ai = 1\n",
		  "t.conf:2: [module] rp_ai: unknown key: neither attach, devices, fq, profile nor a rocecc parameter (rocecc param show lists them)" },
		{ "[daemon]\nPort = 1\n",
		  "t.conf:2: [daemon] Port: unknown key (known: listen, port, interval, linger, buckets_per_octave, log_level, pin_dir)" },
		{ "[daemon]\nrp_ai_rate = 1\n",
		  "t.conf:2: [daemon] rp_ai_rate: unknown key (known: listen, port, interval, linger, buckets_per_octave, log_level, pin_dir)" },
		{ "# no section yet\nport = 1\n",
		  "t.conf:2: key 'port' outside of a section (known: daemon, datapath, module, straggler, rankmap, pfc, hw)" },
		{ "[daemon]\nport = 1\n  listen = ::\n",
		  "t.conf:3: indented line (inih would read it as a continuation of the previous value)" },
		{ "[daemon]\n\tport = 1\n",
		  "t.conf:2: indented line (inih would read it as a continuation of the previous value)" },
		{ "[daemon]\n [straggler]\n",
		  "t.conf:2: indented line (inih would read it as a continuation of the previous value)" },
		{ "[daemon]\nport 1\n",
		  "t.conf:2: syntax error (expected \"[section]\" or \"key = value\")" },
		{ "[daemon\nport = 1\n",
		  "t.conf:1: syntax error (expected \"[section]\" or \"key = value\")" },
		/* the first error counts */
		{ "[daemon]\nport = x\nlisten = y\n",
		  "t.conf:2: [daemon] port: 'x' is not a TCP port (1..65535)" },
		{ "[daemon]\nport x\nlisten = y\n",
		  "t.conf:2: syntax error (expected \"[section]\" or \"key = value\")" },
		{ "[daemon]\nport = x\nlisten y\n",
		  "t.conf:2: [daemon] port: 'x' is not a TCP port (1..65535)" },
		/* duplicates */
		{ "[daemon]\n\nport = 1\nport = 2\n",
		  "t.conf:4: [daemon] port: set twice (first on line 3)" },
		{ "[daemon]\nport = 1\n[module]\n[daemon]\nport = 1\n",
		  "t.conf:5: [daemon] port: set twice (first on line 2)" },
		{ "[module]\nrp_ai_rate = 1\nattach = yes\nrp_ai_rate = 1\n",
		  "t.conf:4: [module] rp_ai_rate: set twice (first on line 2)" },
		{ "[module]\nprofile = mlx5\nprofile = paper\n",
		  "t.conf:3: [module] profile: set twice (first on line 2)" },
		{ "[straggler]\nwindow = 2s\nwindow = x\n",
		  "t.conf:3: [straggler] window: set twice (first on line 2)" },
	};
	unsigned int i;
	char *text;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_err(cases[i].text, cases[i].msg);

	/* the longest line inih takes: 197 characters and the newline */
	memset(long_line, 0, sizeof(long_line));
	strcpy(long_line, "[daemon]\npin_dir = /");
	memset(long_line + strlen(long_line), 'a', 197 - 11);
	strcat(long_line, "\n");
	if (expect_ok(long_line, "a line of 197 characters"))
		tap_eq(strlen(loaded.pin_dir), 187, "  its value");
	strcpy(long_line + strlen(long_line) - 1, "\r\n");
	if (expect_ok(long_line, "a line of 197 characters and CRLF"))
		tap_eq(strlen(loaded.pin_dir), 187, "  its value");
	strcpy(long_line + strlen(long_line) - 2, "a\n");
	expect_err(long_line, "t.conf:2: line longer than 197 characters");
	strcat(long_line, "[rankmap]\nfile = x\n");
	expect_err(long_line, "t.conf:2: line longer than 197 characters");

	text = malloc(32);
	memcpy(text, "[daemon]\nport = 1\0\n", 20);
	{
		char err[ERRLEN];
		struct rd_conf c;

		/* a string stops at its NUL: nothing to catch there */
		tap_eq(load(&c, text, err), 0, "string input ends at NUL");
	}
	free(text);
}

static void test_print(void)
{
	struct rd_conf c;
	unsigned int id;
	char *text;

	rd_conf_defaults(&c);
	round_trip(&c, "of the defaults");
	text = print_str(&c);
	tap_ok(strstr(text, "[daemon]\nlisten = 127.0.0.1\nport = 9468\ninterval = 1s\nlinger = 15s\nbuckets_per_octave = 4\nlog_level = info\npin_dir = /sys/fs/bpf/rocecc\n") != NULL,
	       "print: [daemon] of the defaults");
	tap_ok(strstr(text, "[module]\nattach = no\ndevices = all\nfq = yes\n#profile = mlx5 ;") != NULL,
	       "print: [module], profile not set as a comment");
	tap_ok(strstr(text, "\n#rp_ai_rate = 5 ; not set (0..4000000 Mb/s; mlx5 default shown)\n") != NULL,
	       "print: parameter not set as a comment");
	tap_ok(strstr(text, "[straggler]\nfactor = 2\nmin_messages = 100\nmin_flows = 3\nwindow = 10s\ngroup_by = auto\n") != NULL,
	       "print: [straggler] of the defaults");
	tap_ok(strstr(text, "[rankmap]\nfile = none\n#host = NAME ;") != NULL,
	       "print: [rankmap] of the defaults");
	free(text);

	/* everything set, every parameter, values that need care */
	strcpy(c.listen, "fe80::1:2");
	c.port = 65535;
	c.interval_ms = 1;
	c.linger_ms = 86400000;
	c.per_octave = 2;
	c.log_level = 1;
	strcpy(c.pin_dir, "");
	c.module_attach = true;
	strcpy(c.module_devices, "eth0 ib0 rxe0");
	c.profile = ROCECC_PROFILE_MLX5;
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		c.param_set[id] = true;
		c.param[id] = rocecc_param_info(id)->max;
	}
	c.factor = 1.1;
	c.min_messages = 1;
	c.min_flows = 2;
	c.window_ms = 1234;
	c.group_by = RD_GROUP_HOST;
	strcpy(c.rankmap_file, "/a b/c;d");
	strcpy(c.local_host, "10.0.0.1");
	round_trip(&c, "of a fully set config");
	text = print_str(&c);
	tap_ok(strstr(text, "\nfactor = 1.1\n") && strstr(text, "\nwindow = 1234ms\n") &&
	       strstr(text, "\ninterval = 1ms\n") && strstr(text, "\nlinger = 86400s\n") &&
	       strstr(text, "\npin_dir = none\n") &&
	       strstr(text, "\nrp_byte_reset = 4294967295\n"),
	       "print: values of the fully set config");
	free(text);

	c.factor = 1.0000000000000002;
	c.profile = -1;
	for (id = 1; id <= ROCECC_PARAM_MAX; id += 2)
		c.param_set[id] = false;
	round_trip(&c, "of a factor needing 17 digits, some parameters");

	/* the full example file */
	if (expect_ok(full_file, "full file for printing"))
		round_trip(&loaded, "of the full file, again");
}

static void test_check(void)
{
	char err[ERRLEN];
	struct rd_conf c;

	rd_conf_defaults(&c);
	c.group_by = RD_GROUP_RANKMAP;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: group_by rankmap without a rank map");
	tap_is_str(err, "t.conf: [straggler] group_by: rankmap needs a rank map ([rankmap] file)",
		   "  message");
	strcpy(c.rankmap_file, "/x.map");
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), 0,
	       "check: group_by rankmap with a rank map");
	tap_is_str(err, "", "  no message");

	rd_conf_defaults(&c);
	strcpy(c.local_host, "node0");
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: host without a rank map");
	tap_is_str(err, "t.conf: [rankmap] host: 'node0' is set, but there is no rank map ([rankmap] file)",
		   "  message");

	rd_conf_defaults(&c);
	c.window_ms = 1999;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: window < 2 * interval");
	tap_is_str(err, "t.conf: [straggler] window: 1999ms is shorter than twice the interval ([daemon] interval = 1s)",
		   "  message");
	c.window_ms = 2000;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), 0,
	       "check: window = 2 * interval");
	c.interval_ms = 1001;
	tap_eq(rd_conf_check(&c, NULL, err, sizeof(err)), -EINVAL,
	       "check: window < 2 * interval, no name");
	tap_is_str(err, "[straggler] window: 2s is shorter than twice the interval ([daemon] interval = 1001ms)",
		   "  message without a name");

	/* through a file */
	rd_conf_defaults(&c);
	tap_eq(rd_conf_load_string(&c, "t.conf",
				   "[daemon]\ninterval = 6s\n[straggler]\ngroup_by = peer\n",
				   err, sizeof(err)), 0,
	       "check: a file with interval 6s loads");
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: ... and fails the default window");
	tap_is_str(err, "t.conf: [straggler] window: 10s is shorter than twice the interval ([daemon] interval = 6s)",
		   "  message");
}

static void test_set(void)
{
	char err[ERRLEN];
	struct rd_conf c, before;

	rd_conf_defaults(&c);
	tap_eq(rd_conf_set(&c, "--port", "daemon", "port", "80", err,
			   sizeof(err)), 0, "rd_conf_set port");
	tap_eq(c.port, 80, "  port 80");
	tap_eq(rd_conf_set(&c, NULL, "module", "rp_ai_rate", "0x10", err,
			   sizeof(err)), 0, "rd_conf_set a module parameter");
	tap_ok(c.param_set[ROCECC_PARAM_RP_AI_RATE] &&
	       c.param[ROCECC_PARAM_RP_AI_RATE] == 16, "  rp_ai_rate 16");
	tap_eq(rd_conf_set(&c, NULL, "module", "rp_ai_rate", "17", err,
			   sizeof(err)), 0, "rd_conf_set it again (no duplicates)");
	tap_eq(c.param[ROCECC_PARAM_RP_AI_RATE], 17, "  rp_ai_rate 17");
	before = c;
	tap_eq(rd_conf_set(&c, "--port", "daemon", "port", "0", err,
			   sizeof(err)), -EINVAL, "rd_conf_set bad port");
	tap_is_str(err, "--port: [daemon] port: '0' is not a TCP port (1..65535)",
		   "  message");
	tap_eq(rd_conf_set(&c, NULL, "module", "devices", "eth0 eth0", err,
			   sizeof(err)), -EINVAL, "rd_conf_set bad devices");
	tap_is_str(err, "[module] devices: 'eth0 eth0' lists 'eth0' twice",
		   "  message without a name");
	tap_eq(rd_conf_set(&c, "-o", "daemon", "port", "x", NULL, 0),
	       -EINVAL, "rd_conf_set without a message buffer");
	tap_eq(rd_conf_set(&c, "-o", "nope", "port", "1", err, sizeof(err)),
	       -EINVAL, "rd_conf_set unknown section");
	tap_is_str(err, "-o: unknown section [nope] (known: daemon, datapath, module, straggler, rankmap, pfc, hw)",
		   "  message");
	tap_eq(rd_conf_set(&c, "-o", "rankmap", "port", "1", err, sizeof(err)),
	       -EINVAL, "rd_conf_set unknown key");
	tap_is_str(err, "-o: [rankmap] port: unknown key (known: file, host)",
		   "  message");
	tap_ok(rd_conf_equal(&c, &before), "rd_conf_set failures leave @c");
}

/* The command-line flags: each sets the key its table entry names. */
static void test_flags(void)
{
	static const struct {
		const char *flag, *value, *key;
	} cases[] = {
		{ "listen", "::1", "listen = ::1" },
		{ "port", "80", "port = 80" },
		{ "interval", "250ms", "interval = 250ms" },
		{ "linger", "2", "linger = 2s" },
		{ "buckets-per-octave", "16", "buckets_per_octave = 16" },
		{ "log-level", "DEBUG", "log_level = debug" },
		{ "pin-dir", "none", "pin_dir = none" },
		{ "datapath", "bpf", "engine = bpf" },
	};
	char err[ERRLEN], want[64], *text;
	struct rd_conf c, before;
	unsigned int i, j, n = 0;
	const char *name;
	int letter;

	for (i = 0; (name = rd_conf_flag(i, &letter)); i++) {
		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
			if (!strcmp(name, cases[j].flag))
				break;
		if (!tap_ok(j < sizeof(cases) / sizeof(cases[0]),
			    "flag --%s is tested", name))
			continue;
		n++;
		rd_conf_defaults(&c);
		tap_eq(rd_conf_set_flag(&c, i, cases[j].value, err, sizeof(err)),
		       0, "--%s %s", name, cases[j].value);
		text = print_str(&c);
		snprintf(want, sizeof(want), "\n%s\n", cases[j].key);
		tap_ok(strstr(text, want) != NULL, "  sets %s", cases[j].key);
		free(text);
	}
	tap_eq(n, sizeof(cases) / sizeof(cases[0]), "every flag is there");
	tap_ok(rd_conf_flag(i, &letter) == NULL && rd_conf_flag(i + 1, &letter) == NULL,
	       "no flag past the last");

	/* the file's checks and words, with the flag's name */
	for (i = 0; (name = rd_conf_flag(i, &letter)) && strcmp(name, "listen"); i++)
		;
	rd_conf_defaults(&c);
	before = c;
	tap_eq(rd_conf_set_flag(&c, i, "localhost", err, sizeof(err)), -EINVAL,
	       "--listen localhost is refused");
	tap_is_str(err, "--listen: 'localhost' is not an IPv4 or IPv6 address",
		   "  message");
	tap_eq(letter, 'l', "  its short form is -l");
	for (i = 0; (name = rd_conf_flag(i, &letter)) && strcmp(name, "interval"); i++)
		;
	tap_eq(rd_conf_set_flag(&c, i, "0.1ms", err, sizeof(err)), -EINVAL,
	       "--interval 0.1ms is refused");
	tap_is_str(err, "--interval: '0.1ms' is out of range (1ms to 1 day)",
		   "  message");
	tap_ok(rd_conf_equal(&c, &before), "refused flags leave @c");
}

/* Write @text to a temporary file; its path into @path. */
static void temp_file(const char *text, char *path, size_t n)
{
	FILE *f;
	int fd;

	snprintf(path, n, "/tmp/test_rdconf.XXXXXX");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

static void test_files(void)
{
	char err[ERRLEN], path[64], dir[64];
	struct rd_conf c, d;
	int ret;

	rd_conf_defaults(&c);
	ret = rd_conf_load(&c, "/nonexistent/roceccd.conf", err, sizeof(err));
	tap_eq(ret, -ENOENT, "missing file: -ENOENT");
	tap_is_str(err, "/nonexistent/roceccd.conf: cannot open: No such file or directory",
		   "  message");

	temp_file("[daemon]\nport = 1\n[straggler]\nmin_flows = 7\n", path,
		  sizeof(path));
	rd_conf_defaults(&c);
	ret = rd_conf_load(&c, path, err, sizeof(err));
	tap_eq(ret, 0, "a file loads");
	tap_ok(c.port == 1 && c.min_flows == 7, "  its values");
	unlink(path);

	temp_file("[daemon]\n\n\n\nport = 70000\n", path, sizeof(path));
	rd_conf_defaults(&c);
	ret = rd_conf_load(&c, path, err, sizeof(err));
	tap_eq(ret, -EINVAL, "a bad file: -EINVAL");
	{
		char want[ERRLEN];

		snprintf(want, sizeof(want),
			 "%s:5: [daemon] port: '70000' is not a TCP port (1..65535)",
			 path);
		tap_is_str(err, want, "  message names the file and line");
	}
	unlink(path);

	temp_file("[daemon]\nport = 1\n", path, sizeof(path));
	{
		FILE *f = fopen(path, "a");

		fwrite("#\0\n", 1, 3, f);
		fclose(f);
	}
	rd_conf_defaults(&c);
	ret = rd_conf_load(&c, path, err, sizeof(err));
	tap_eq(ret, -EINVAL, "a file with a NUL: -EINVAL");
	tap_ok(strstr(err, ":3: NUL character in line") != NULL,
	       "  message: %s", err);
	rd_conf_defaults(&c);
	tap_eq(rd_conf_load(&c, path, NULL, 0), -EINVAL,
	       "  the same without a message buffer");
	unlink(path);

	snprintf(dir, sizeof(dir), "/tmp/test_rdconf.XXXXXX");
	if (mkdtemp(dir)) {
		rd_conf_defaults(&c);
		ret = rd_conf_load(&c, dir, err, sizeof(err));
		tap_eq(ret, -EISDIR, "a directory: -EISDIR");
		tap_ok(strstr(err, ": cannot read: Is a directory") != NULL,
		       "  message: %s", err);
		rmdir(dir);
	}

	/* the example: everything commented out is the defaults */
	rd_conf_defaults(&c);
	ret = rd_conf_load(&c, RDCONF_EXAMPLE, err, sizeof(err));
	if (!tap_eq(ret, 0, "example %s loads", RDCONF_EXAMPLE))
		tap_diag("%s", err);
	rd_conf_defaults(&d);
	tap_ok(rd_conf_equal(&c, &d), "example: the defaults");
}

/* The example with every "#key = value" line made active. */
static void test_example_uncommented(void)
{
	char err[ERRLEN], *line = NULL, *out = NULL;
	size_t cap = 0, outlen = 0;
	unsigned int keys = 0, id, nset = 0;
	struct rd_conf c, d;
	FILE *in, *o;
	ssize_t n;

	in = fopen(RDCONF_EXAMPLE, "re");
	if (!tap_ok(in != NULL, "example: open"))
		return;
	o = open_memstream(&out, &outlen);
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[0] == '#' && line[1] >= 'a' && line[1] <= 'z' &&
		    strstr(line, " = ")) {
			fputs(line + 1, o);
			keys++;
		} else {
			fputs(line, o);
		}
	}
	fclose(in);
	fclose(o);
	free(line);
	rd_conf_defaults(&c);
	if (!tap_eq(rd_conf_load_string(&c, "uncommented", out, err,
					sizeof(err)), 0,
		    "example uncommented (%u keys) loads", keys))
		tap_diag("%s", err);
	tap_eq(keys, 19 + 9 + 16 + 2 + ROCECC_PARAM_MAX,
	       "example: every key and every parameter is shown");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		nset += c.param_set[id];
		if (c.param_set[id] &&
		    c.param[id] != rocecc_param_info(id)->def[ROCECC_PROFILE_MLX5])
			tap_diag("%s: %u, not the mlx5 default",
				 rocecc_param_info(id)->name, c.param[id]);
		else
			nset += 1000;
	}
	tap_eq(nset, 1001 * ROCECC_PARAM_MAX,
	       "example: parameters shown with their mlx5 defaults");
	/* the keys with a default are shown with it */
	rd_conf_defaults(&d);
	d.profile = ROCECC_PROFILE_MLX5;
	d.dp_engine = RD_ENGINE_NONE;	/* what "not set" amounts to */
	memcpy(d.param_set, c.param_set, sizeof(d.param_set));
	memcpy(d.param, c.param, sizeof(d.param));
	strcpy(d.local_host, c.local_host);
	/* [pfc] keys without a default, shown with an example value */
	d.pfc_prio_set = c.pfc_prio_set;
	d.pfc_en = c.pfc_en;
	d.pfc_delay = c.pfc_delay;
	d.pfc_mbc = c.pfc_mbc;
	d.pfc_p2b_mask = c.pfc_p2b_mask;
	memcpy(d.pfc_p2b, c.pfc_p2b, sizeof(d.pfc_p2b));
	d.pfc_size_auto = c.pfc_size_auto;
	tap_ok(rd_conf_equal(&c, &d), "example: shown values are the defaults");
	tap_ok(c.pfc_prio_set && c.pfc_en == 0x08 && c.pfc_size_auto &&
	       c.pfc_p2b_mask == 0xff && c.pfc_p2b[3] == 1 && c.pfc_p2b[0] == 0,
	       "example: [pfc] examples priorities 3, prio2buffer all:0,3:1, auto");

	free(out);
}

static void test_pfcwd_conf(void);

static void test_pfc(void)
{
	struct rd_conf c;
	char err[ERRLEN], *text;

	rd_conf_defaults(&c);
	tap_ok(!rd_conf_pfc_wanted(&c), "pfc: nothing wanted by default");
	tap_ok(c.pfc_delay == -1 && c.pfc_mbc == -1 && !c.pfc_prio_set &&
	       c.pfc_cable_m == 7 && !c.pfc_speed_mbps && !c.pfc_mtu &&
	       !c.pfc_size_auto && !c.pfc_size_mask && !c.pfc_p2b_mask &&
	       !c.pfc_devices[0], "pfc: defaults");
	text = print_str(&c);
	tap_ok(strstr(text, "\n[pfc]\ndevices = all\n#priorities = 3 ; not set: left as the device has them\n#delay = 0 ; not set\n#mbc = no ; not set\n#prio2buffer = 0:0 ; not set\n#buffer_size = auto ; not set\ncable_length = 7\nspeed = auto\nmtu = auto\n") != NULL,
	       "print: [pfc] of the defaults");
	free(text);

	if (expect_ok("[pfc]\ndevices = eth1, eth2\npriorities = 4,3\ndelay = 65535\nmbc = on\n"
		      "prio2buffer = all:0,3:1,4:2\nbuffer_size = 0:256K,1:1M,2:1000\n"
		      "cable_length = 2.5m\nspeed = 100G\nmtu = 9216\n",
		      "pfc: a section with every key loads")) {
		const struct rd_conf *l = &loaded;

		tap_is_str(l->pfc_devices, "eth1 eth2", "pfc: devices");
		tap_ok(l->pfc_prio_set && l->pfc_en == 0x18, "pfc: priorities 4,3");
		tap_eq(l->pfc_delay, 65535, "pfc: delay");
		tap_eq(l->pfc_mbc, 1, "pfc: mbc on");
		tap_ok(l->pfc_p2b_mask == 0xff && l->pfc_p2b[3] == 1 &&
		       l->pfc_p2b[4] == 2 && l->pfc_p2b[7] == 0, "pfc: prio2buffer");
		tap_ok(!l->pfc_size_auto && l->pfc_size_mask == 0x07 &&
		       l->pfc_size[0] == 262144 && l->pfc_size[1] == 1048576 &&
		       l->pfc_size[2] == 1000, "pfc: buffer_size");
		tap_ok(l->pfc_cable_m == 2.5, "pfc: cable_length 2.5m");
		tap_eq(l->pfc_speed_mbps, 100000, "pfc: speed 100G");
		tap_eq(l->pfc_mtu, 9216, "pfc: mtu");
		tap_ok(rd_conf_pfc_wanted(l), "pfc: wanted");
		round_trip(l, "of a full [pfc]");
		text = print_str(l);
		tap_ok(strstr(text, "\npriorities = 3,4\ndelay = 65535\nmbc = yes\nprio2buffer = 0:0,1:0,2:0,3:1,4:2,5:0,6:0,7:0\nbuffer_size = 0:256K,1:1M,2:1000\ncable_length = 2.5\nspeed = 100000\nmtu = 9216\n") != NULL,
		       "print: a full [pfc]");
		free(text);
	}
	if (expect_ok("[pfc]\npriorities = none\nprio2buffer = 5:7\n", "pfc: none, one pair")) {
		tap_ok(loaded.pfc_prio_set && !loaded.pfc_en, "pfc: priorities none");
		tap_ok(loaded.pfc_p2b_mask == 0x20 && loaded.pfc_p2b[5] == 7,
		       "pfc: prio2buffer 5:7 only");
		round_trip(&loaded, "of priorities none");
	}
	if (expect_ok("[pfc]\npriorities = 3\nbuffer_size = auto\n", "pfc: auto"))
		round_trip(&loaded, "of buffer_size auto");

	expect_err("[pfc]\npriorities = 3,9\n",
		   "t.conf:2: [pfc] priorities: '3,9' has '9': priority must be 0..7 (a list like 3,4, or none)");
	expect_err("[pfc]\npriorities = 3 4\n",
		   "t.conf:2: [pfc] priorities: '3 4' has '3 4': priority must be 0..7 (a list like 3,4, or none)");
	expect_err("[pfc]\ndelay = 65536\n",
		   "t.conf:2: [pfc] delay: '65536' is not an integer from 0 to 65535 (bits)");
	expect_err("[pfc]\nmbc = maybe\n",
		   "t.conf:2: [pfc] mbc: 'maybe' is not yes, no, true, false, on, off, 1 or 0");
	expect_err("[pfc]\nprio2buffer = 3:8\n",
		   "t.conf:2: [pfc] prio2buffer: '3:8' has '3:8': buffer must be 0..7 (PRIO:BUFFER pairs like 0:0,3:1)");
	expect_err("[pfc]\n\nbuffer_size = 0:4G\n",
		   "t.conf:3: [pfc] buffer_size: '0:4G' has '0:4G': size must be bytes, or with K or M (1024-based) (auto, or BUFFER:SIZE pairs like 0:256K,1:128K)");
	expect_err("[pfc]\nbuffer_size = 9:1K\n",
		   "t.conf:2: [pfc] buffer_size: '9:1K' has '9:1K': buffer must be 0..7 (auto, or BUFFER:SIZE pairs like 0:256K,1:128K)");
	expect_err("[pfc]\ncable_length = -1\n",
		   "t.conf:2: [pfc] cable_length: '-1' is not a length in metres from 0 to 10000 (5, 5m, 2.5m)");
	expect_err("[pfc]\nspeed = 3T\n",
		   "t.conf:2: [pfc] speed: '3T' is not a link speed (auto, 25G, 100G, or Mb/s up to 1600000)");
	expect_err("[pfc]\nmtu = 63\n",
		   "t.conf:2: [pfc] mtu: '63' is not auto or a frame size from 64 to 16384 bytes");
	expect_err("[pfc]\ndevices = eth0,eth0\n",
		   "t.conf:2: [pfc] devices: 'eth0,eth0' lists 'eth0' twice");
	expect_err("[pfc]\npfc_en = 3\n",
		   "t.conf:2: [pfc] pfc_en: unknown key (known: devices, priorities, delay, mbc, prio2buffer, buffer_size, cable_length, speed, mtu, watchdog, detection_time, restoration_time, action, tune, target_latency, tune_interval, tune_min_size, tune_max_step, tune_up_pct, tune_down_pct, tune_hold_up, tune_hold_down, tune_min_change, tune_pause_hi, tune_ecn_lo)");
	expect_err("[pfc]\ndelay = 1\ndelay = 2\n",
		   "t.conf:3: [pfc] delay: set twice (first on line 2)");

	/* cross checks */
	rd_conf_defaults(&c);
	c.pfc_size_auto = true;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: buffer_size auto without priorities");
	tap_is_str(err, "t.conf: [pfc] buffer_size: auto sizes the buffers of the PFC priorities, but [pfc] priorities is not set",
		   "  message");
	c.pfc_prio_set = true;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: buffer_size auto with priorities none");
	tap_is_str(err, "t.conf: [pfc] buffer_size: auto sizes the buffers of the PFC priorities, but [pfc] priorities is none",
		   "  message");
	c.pfc_en = 0x08;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), 0,
	       "check: buffer_size auto with priorities 3");

	tap_eq(rd_conf_set(&c, "--pfc", "pfc", "priorities", "8", err, sizeof(err)),
	       -EINVAL, "rd_conf_set [pfc] priorities 8");
	tap_is_str(err, "--pfc: [pfc] priorities: '8' has '8': priority must be 0..7 (a list like 3,4, or none)",
		   "  message");

	test_pfcwd_conf();

	tap_ok(rd_conf_dev_selected("", "eth0"), "selected: all");
	tap_ok(rd_conf_dev_selected("eth1 eth0", "eth0"), "selected: in list");
	tap_ok(!rd_conf_dev_selected("eth1 eth00", "eth0"), "selected: not a prefix");
}

/* [pfc] watchdog and tuner keys */
static void test_pfcwd_conf(void)
{
	struct rd_conf c;
	char err[ERRLEN], *text;

	rd_conf_defaults(&c);
	tap_ok(c.pfc_wd == -1 && c.pfc_wd_detect_ms == 200 &&
	       c.pfc_wd_restore_ms == 400 && c.pfc_wd_action == RD_PFCWD_ALERT &&
	       c.pfc_tune == RD_PFCTUNE_OFF && c.pfc_tune_lat_us == 1000 &&
	       c.pfc_tune_ivl_ms == 2000 && c.pfc_tune_up_pct == 25 &&
	       c.pfc_tune_down_pct == 10 && c.pfc_tune_hold_up == 3 &&
	       c.pfc_tune_hold_down == 10 && c.pfc_tune_min_change_ms == 30000 &&
	       c.pfc_tune_pause_hi == 50 && c.pfc_tune_ecn_lo == 100 &&
	       !c.pfc_tune_min_size && !c.pfc_tune_max_step,
	       "pfcwd: defaults");
	tap_ok(!rd_conf_pfcwd_on(&c), "pfcwd: auto without priorities: off");
	c.pfc_prio_set = true;
	tap_ok(!rd_conf_pfcwd_on(&c), "pfcwd: auto with priorities none: off");
	c.pfc_en = 0x08;
	tap_ok(rd_conf_pfcwd_on(&c), "pfcwd: auto with priorities 3: on");
	c.pfc_wd = 0;
	tap_ok(!rd_conf_pfcwd_on(&c), "pfcwd: off wins");
	rd_conf_defaults(&c);
	c.pfc_wd = 1;
	tap_ok(rd_conf_pfcwd_on(&c), "pfcwd: on without priorities: on (watches pfc_en as read)");
	text = print_str(&c);
	tap_ok(strstr(text, "\nwatchdog = on\ndetection_time = 200ms\nrestoration_time = 400ms\naction = alert\ntune = off\ntarget_latency = 1ms\ntune_interval = 2s\ntune_min_size = 0\ntune_max_step = 0\ntune_up_pct = 25\ntune_down_pct = 10\ntune_hold_up = 3\ntune_hold_down = 10\ntune_min_change = 30s\ntune_pause_hi = 50\ntune_ecn_lo = 100\n") != NULL,
	       "print: watchdog and tuner keys");
	free(text);

	if (expect_ok("[pfc]\npriorities = 3\nwatchdog = off\ndetection_time = 100ms\n"
		      "restoration_time = 2s\naction = disable\ntune = dry-run\n"
		      "target_latency = 250us\ntune_interval = 5s\ntune_min_size = 64K\n"
		      "tune_max_step = 1M\ntune_up_pct = 50\ntune_down_pct = 5\n"
		      "tune_hold_up = 2\ntune_hold_down = 20\ntune_min_change = 60s\n"
		      "tune_pause_hi = 0\ntune_ecn_lo = 1000\n",
		      "pfcwd: every watchdog and tuner key loads")) {
		struct rd_conf *l = &loaded;

		tap_ok(l->pfc_wd == 0 && !rd_conf_pfcwd_on(l), "pfcwd: watchdog off");
		tap_ok(l->pfc_wd_detect_ms == 100 && l->pfc_wd_restore_ms == 2000,
		       "pfcwd: detection and restoration time");
		tap_eq(l->pfc_wd_action, RD_PFCWD_DISABLE, "pfcwd: action disable");
		tap_eq(l->pfc_tune, RD_PFCTUNE_DRY_RUN, "pfctune: dry-run");
		tap_ok(l->pfc_tune_lat_us == 250 && l->pfc_tune_ivl_ms == 5000,
		       "pfctune: target latency 250us, interval 5s");
		tap_ok(l->pfc_tune_min_size == 65536 &&
		       l->pfc_tune_max_step == 1048576, "pfctune: sizes");
		tap_ok(l->pfc_tune_up_pct == 50 && l->pfc_tune_down_pct == 5 &&
		       l->pfc_tune_hold_up == 2 && l->pfc_tune_hold_down == 20,
		       "pfctune: steps and holds");
		tap_ok(l->pfc_tune_min_change_ms == 60000 &&
		       l->pfc_tune_pause_hi == 0 && l->pfc_tune_ecn_lo == 1000,
		       "pfctune: rate limit and thresholds");
		round_trip(l, "of the watchdog and tuner keys");
		text = print_str(l);
		tap_ok(strstr(text, "\ntarget_latency = 250us\n") != NULL,
		       "print: target_latency 250us");
		free(text);
	}
	if (expect_ok("[pfc]\npriorities = 3\ntune = on\nwatchdog = auto\ntarget_latency = none\n",
		      "pfctune: on, latency none"))
		tap_ok(loaded.pfc_tune == RD_PFCTUNE_ON && loaded.pfc_wd == -1 &&
		       !loaded.pfc_tune_lat_us, "pfctune: on, watchdog auto, no target");
	if (expect_ok("[pfc]\ntarget_latency = 2s\n", "pfctune: latency 2s"))
		round_trip(&loaded, "of target_latency 2s");

	expect_err("[pfc]\nwatchdog = maybe\n",
		   "t.conf:2: [pfc] watchdog: 'maybe' is not on, off or auto (on when priorities are set)");
	expect_err("[pfc]\ndetection_time = 0\n",
		   "t.conf:2: [pfc] detection_time: '0' is out of range (1ms to 1 day)");
	expect_err("[pfc]\nrestoration_time = soon\n",
		   "t.conf:2: [pfc] restoration_time: 'soon' is not a time (seconds, or with a unit: 250ms, 2s)");
	expect_err("[pfc]\naction = drop\n",
		   "t.conf:2: [pfc] action: 'drop' is not alert or disable");
	expect_err("[pfc]\ntune = dryrun\n",
		   "t.conf:2: [pfc] tune: 'dryrun' is not off, on or dry-run");
	expect_err("[pfc]\ntarget_latency = 5\n",
		   "t.conf:2: [pfc] target_latency: '5' is not a latency from 1us to 60s with a unit (500us, 2ms, 1s), or none");
	expect_err("[pfc]\ntarget_latency = 0us\n",
		   "t.conf:2: [pfc] target_latency: '0us' is not a latency from 1us to 60s with a unit (500us, 2ms, 1s), or none");
	expect_err("[pfc]\ntarget_latency = 61s\n",
		   "t.conf:2: [pfc] target_latency: '61s' is not a latency from 1us to 60s with a unit (500us, 2ms, 1s), or none");
	expect_err("[pfc]\ntune_down_pct = 100\n",
		   "t.conf:2: [pfc] tune_down_pct: '100' is not an integer from 1 to 99 (%)");
	expect_err("[pfc]\ntune_up_pct = 0\n",
		   "t.conf:2: [pfc] tune_up_pct: '0' is not an integer from 1 to 1000 (%)");
	expect_err("[pfc]\ntune_hold_up = 1001\n",
		   "t.conf:2: [pfc] tune_hold_up: '1001' is not an integer from 1 to 1000 (tune intervals)");
	expect_err("[pfc]\ntune_max_step = -1\n",
		   "t.conf:2: [pfc] tune_max_step: '-1' is not a size in bytes, or with K or M (1024-based); 0: unbounded");
	expect_err("[pfc]\ntune_ecn_lo = 1e3\n",
		   "t.conf:2: [pfc] tune_ecn_lo: '1e3' is not a rate per second from 0 to 100000000");

	rd_conf_defaults(&c);
	c.pfc_tune = RD_PFCTUNE_DRY_RUN;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: tune without priorities");
	tap_is_str(err, "t.conf: [pfc] tune: the tuner sizes the buffers of the PFC priorities, but [pfc] priorities is not set",
		   "  message");
	c.pfc_prio_set = true;
	c.pfc_en = 0x08;
	c.pfc_tune_ivl_ms = 500;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), -EINVAL,
	       "check: tune_interval shorter than interval");
	tap_is_str(err, "t.conf: [pfc] tune_interval: 500ms is shorter than the interval ([daemon] interval = 1s)",
		   "  message");
	c.pfc_tune_ivl_ms = 1000;
	tap_eq(rd_conf_check(&c, "t.conf", err, sizeof(err)), 0,
	       "check: tune with priorities 3, tune_interval = interval");
}

/* rd_pfc_target(): what [pfc] makes of a device's structs. */
static void test_pfc_target(void)
{
	struct rd_conf c;
	struct ieee_pfc p, p0 = { .pfc_cap = 8, .pfc_en = 0x01, .delay = 9 };
	struct dcbnl_buffer b, b0 = { .buffer_size = { 100000, 200000 } };
	struct headroom_params hp = { .speed_mbps = 100000, .mtu = 4096 + 22,
				      .cable_m = 7 };
	struct headroom_result r;
	char why[256];
	int ret;

	rd_conf_defaults(&c);
	p = p0;
	b = b0;
	ret = rd_pfc_target(&c, 0, 0, &p, true, &b, true, why, sizeof(why));
	tap_ok(ret == 0 && !memcmp(&p, &p0, sizeof(p)) && !memcmp(&b, &b0, sizeof(b)),
	       "target: nothing configured, nothing changes");

	c.pfc_prio_set = true;
	c.pfc_en = 0x08;
	p = p0;
	b = b0;
	ret = rd_pfc_target(&c, 0, 0, &p, true, &b, true, why, sizeof(why));
	tap_ok(ret == RD_PFC_CHANGE_PFC && p.pfc_en == 0x08 && p.delay == 9 &&
	       p.pfc_cap == 8, "target: priorities 3 changes pfc_en only");
	ret = rd_pfc_target(&c, 0, 0, &p, true, &b, true, why, sizeof(why));
	tap_eq(ret, 0, "target: applied again: no change");
	ret = rd_pfc_target(&c, 0, 0, &p, true, &b, false, why, sizeof(why));
	tap_eq(ret, 0, "target: PFC keys only, a device without buffers: fine");
	p = p0;
	ret = rd_pfc_target(&c, 0, 0, &p, false, &b, true, why, sizeof(why));
	tap_eq(ret, -EINVAL, "target: priorities, a device without PFC: -EINVAL");
	tap_is_str(why, "the device reports no IEEE PFC, but [pfc] sets priorities",
		   "  why");

	c.pfc_delay = 100;
	c.pfc_mbc = 1;
	c.pfc_p2b_mask = 0x08;
	c.pfc_p2b[3] = 1;
	c.pfc_size_auto = true;
	p = p0;
	b = b0;
	ret = rd_pfc_target(&c, 100000, 4096, &p, true, &b, true, why, sizeof(why));
	headroom_calc(&hp, &r);
	tap_eq(ret, RD_PFC_CHANGE_PFC | RD_PFC_CHANGE_BUF,
	       "target: auto at 100G, mtu 4096: both change");
	tap_ok(p.delay == 100 && p.mbc == 1, "  delay, mbc");
	tap_eq(b.prio2buffer[3], 1, "  priority 3 in buffer 1");
	tap_eq(b.buffer_size[1], r.size, "  buffer 1 gets the headroom size (%llu)",
	       (unsigned long long)r.size);
	tap_eq(b.buffer_size[0], 100000, "  buffer 0 (no PFC priority) left");

	/* with a total: lossy buffers share the rest, unused ones get 0 */
	b = b0;
	b.total_size = 262144;
	b.buffer_size[5] = 7;
	ret = rd_pfc_target(&c, 100000, 4096, &p, true, &b, true, why, sizeof(why));
	tap_ok(ret & RD_PFC_CHANGE_BUF && b.buffer_size[1] == r.size &&
	       b.buffer_size[0] == 262144 - r.size && b.buffer_size[5] == 0,
	       "target: auto with total_size: lossless %llu, lossy the rest, unused 0",
	       (unsigned long long)r.size);
	c.pfc_en = 0x18;	/* 4 is in buffer 0: both buffers lossless */
	b = b0;
	b.total_size = 262144;
	p = p0;
	ret = rd_pfc_target(&c, 100000, 4096, &p, true, &b, true, why, sizeof(why));
	tap_ok(ret > 0 && b.buffer_size[0] == r.size && b.buffer_size[1] == r.size &&
	       b.buffer_size[2] == 0, "target: auto, two lossless buffers, no lossy one");
	b = b0;
	b.total_size = 100000;
	ret = rd_pfc_target(&c, 100000, 4096, &p, true, &b, true, why, sizeof(why));
	tap_eq(ret, -EINVAL, "target: auto needing more than total_size: -EINVAL");
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "buffer_size = auto: 2 lossless buffers of %llu bytes need more than the device's total_size 100000",
			 (unsigned long long)r.size);
		tap_is_str(why, want, "  why");
	}
	c.pfc_en = 0x08;

	c.pfc_speed_mbps = 25000;
	c.pfc_mtu = 1500;
	c.pfc_cable_m = 100;
	hp.speed_mbps = 25000;
	hp.mtu = 1500;
	hp.cable_m = 100;
	headroom_calc(&hp, &r);
	b = b0;
	ret = rd_pfc_target(&c, 100000, 4096, &p, true, &b, true, why, sizeof(why));
	tap_ok(ret & RD_PFC_CHANGE_BUF && b.buffer_size[1] == r.size,
	       "target: [pfc] speed, mtu and cable_length win over the netdev's");

	c.pfc_speed_mbps = 0;
	b = b0;
	ret = rd_pfc_target(&c, 0, 1500, &p, true, &b, true, why, sizeof(why));
	tap_eq(ret, -EINVAL, "target: auto, speed unknown: -EINVAL");
	tap_is_str(why, "buffer_size = auto: the link speed is unknown (set [pfc] speed)",
		   "  why");
	ret = rd_pfc_target(&c, 1000, 1500, &p, true, &b, true, why, sizeof(why));
	tap_eq(ret, -EINVAL, "target: auto at 1G (no 802.3 delays): -EINVAL");
	ret = rd_pfc_target(&c, 100000, 1500, &p, true, &b, false, why, sizeof(why));
	tap_eq(ret, -EINVAL, "target: prio2buffer, a device without buffers: -EINVAL");
	tap_is_str(why, "the device has no DCB buffers, but [pfc] sets prio2buffer", "  why");

	rd_conf_defaults(&c);
	c.pfc_size_mask = 0x81;
	c.pfc_size[0] = 1;
	c.pfc_size[7] = 0xffffffff;
	b = b0;
	ret = rd_pfc_target(&c, 0, 0, &p, false, &b, true, why, sizeof(why));
	tap_ok(ret == RD_PFC_CHANGE_BUF && b.buffer_size[0] == 1 &&
	       b.buffer_size[1] == 200000 && b.buffer_size[7] == 0xffffffff,
	       "target: explicit sizes, others left");
}

/* [hw]: NICs that run DCQCN in firmware */
static void test_hw(void)
{
	struct rd_conf c;
	char *text;

	rd_conf_defaults(&c);
	tap_ok(!c.hw_apply && !c.hw_devices[0], "hw: apply = no, devices = all");
	text = print_str(&c);
	tap_ok(strstr(text, "\n[hw]\napply = no\ndevices = all\n") != NULL,
	       "print: [hw] of the defaults");
	free(text);
	if (expect_ok("[hw]\napply = yes\ndevices = eth2 eth3\n",
		      "hw: both keys load")) {
		tap_ok(loaded.hw_apply && !strcmp(loaded.hw_devices, "eth2 eth3"),
		       "hw: apply yes, devices eth2 eth3");
		text = print_str(&loaded);
		tap_ok(strstr(text, "\n[hw]\napply = yes\ndevices = eth2 eth3\n") != NULL,
		       "print: [hw] as loaded");
		free(text);
	}
	expect_err("[hw]\napply = maybe\n",
		   "t.conf:2: [hw] apply: 'maybe' is not yes, no, true, false, on, off, 1 or 0");
	expect_err("[hw]\nprofile = paper\n",
		   "t.conf:2: [hw] profile: unknown key (known: apply, devices)");
}

/* [datapath] engine, --datapath's key, and how [module] attach agrees */
static void test_engine(void)
{
	static const char *const names[] = { "none", "module", "bpf", "auto" };
	char text[128], err[ERRLEN];
	struct rd_conf c;
	unsigned int i;

	rd_conf_defaults(&c);
	tap_ok(c.dp_engine == -1 && rd_conf_engine(&c) == RD_ENGINE_NONE,
	       "engine: not set, no datapath by default");
	c.module_attach = true;
	tap_eq(rd_conf_engine(&c), RD_ENGINE_MODULE,
	       "engine: not set, [module] attach = yes: module");
	text[0] = '\0';
	for (i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "[datapath]\nengine = %s\n",
			 names[i]);
		if (!expect_ok(text, names[i]))
			continue;
		tap_ok(loaded.dp_engine == (int)i &&
		       rd_conf_engine(&loaded) == (int)i &&
		       !strcmp(rd_engine_name(loaded.dp_engine), names[i]),
		       "engine = %s", names[i]);
		round_trip(&loaded, names[i]);
	}
	expect_err("[datapath]\nengine = ebpf\n",
		   "t.conf:2: [datapath] engine: 'ebpf' is not none, module, bpf or auto");
	expect_err("[datapath]\nattach = yes\n",
		   "t.conf:2: [datapath] attach: unknown key (known: engine)");
	tap_ok(rd_engine_parse("BPF") < 0 && !rd_engine_name(RD_ENGINE_NR),
	       "engine names: case-sensitive, none out of range");

	/* attach = yes agrees with module and auto only */
	for (i = 0; i < 4; i++) {
		snprintf(text, sizeof(text),
			 "[datapath]\nengine = %s\n[module]\nattach = yes\n",
			 names[i]);
		if (!expect_ok(text, "engine with attach = yes loads"))
			continue;
		if (i == RD_ENGINE_MODULE || i == RD_ENGINE_AUTO) {
			tap_eq(rd_conf_check(&loaded, "t.conf", err, sizeof(err)),
			       0, "check: engine = %s, attach = yes", names[i]);
			continue;
		}
		tap_eq(rd_conf_check(&loaded, "t.conf", err, sizeof(err)),
		       -EINVAL, "check: engine = %s contradicts attach = yes",
		       names[i]);
		snprintf(text, sizeof(text),
			 "t.conf: [datapath] engine: %s, but [module] attach = yes asks for rocecc.ko (set one of them)",
			 names[i]);
		tap_is_str(err, text, "  message");
	}
	rd_conf_defaults(&c);
	tap_eq(rd_conf_set(&c, "--datapath", "datapath", "engine", "bpf", err,
			   sizeof(err)), 0, "rd_conf_set engine bpf");
	tap_eq(c.dp_engine, RD_ENGINE_BPF, "  engine bpf");
}

int main(void)
{
	test_defaults();
	test_full();
	test_values();
	test_comments();
	test_errors();
	test_print();
	test_check();
	test_set();
	test_flags();
	test_files();
	test_example_uncommented();
	test_pfc();
	test_pfc_target();
	test_hw();
	test_engine();
	return tap_done();
}
