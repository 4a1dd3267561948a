// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/bpf_dp.c, the BPF datapath's loader, on a veth netdev made
 * for the test (dqtest0) and a BPF filesystem mounted for it: attach and
 * detach (the clsact filters found by name, the maps filled and emptied),
 * parameters checked as the module checks them, the module asked first,
 * QPs, counters, a flow made by the programs and dumped in the module's
 * attributes, and a reload that adopts the pinned maps with the flow's
 * state, the pinned maps opened alone (the CLI's view) and a stop and
 * start (a daemon's restart). The programs run through BPF_PROG_TEST_RUN
 * on the veth, and for real once: a CE-marked packet sent into the veth's
 * peer comes back out of it as the CNP, through bpf_clone_redirect() and
 * the egress rewrite of this kernel.
 *
 * With ROCECC_TEST_MODULE_DEV naming a netdev rocecc.ko has attached (the
 * guest's run with the module loaded), the loader must refuse it.
 *
 * Needs root; skips without it (or without veth).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <libmnl/libmnl.h>

#include <rocecc/cnp.h>
#include "lib/bpf_dp.h"

#include "bpf_skip.h"
#include "dcqcn_lib.h"
#include "tap.h"

#define DEV	"dqtest0"

#ifndef ROCECC_CLI
#define ROCECC_CLI	"rocecc"
#endif
#define LQPN	0x11
#define RQPN	0x22

static const uint8_t A4[4] = { 10, 0, 0, 1 };
static const uint8_t B4[4] = { 10, 0, 0, 2 };

struct seen {
	unsigned int n;
	struct dcqcn_flow f;
	struct dcqcn_flow_key k;
};

static int seen_cb(const struct dcqcn_flow_key *k, const struct dcqcn_flow *f,
		   void *data)
{
	struct seen *s = data;

	s->n++;
	s->k = *k;
	s->f = *f;
	return 0;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_get_type(a) <= ROCECC_FLOW_A_MAX)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

/* The dump of the flow in @s: the attributes the CLI reads */
static void check_dump(const struct seen *s, const struct rocecc_params *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const struct nlattr *tb[ROCECC_FLOW_A_MAX + 1] = { NULL };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *a, *nest = NULL;
	uint32_t ifx = 0;

	bpf_dp_flow_put(nlh, &s->k, &s->f, p, s->f.rp.now);
	mnl_attr_for_each(a, nlh, 0) {
		if (mnl_attr_get_type(a) == ROCECC_A_DEV_IFINDEX)
			ifx = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == ROCECC_A_FLOW)
			nest = a;
	}
	if (nest)
		mnl_attr_parse_nested(nest, attr_cb, tb);
	tap_ok(ifx == s->k.ifindex && tb[ROCECC_FLOW_A_RADDR] &&
	       !memcmp(mnl_attr_get_payload(tb[ROCECC_FLOW_A_RADDR]),
		       s->k.raddr, 16) &&
	       tb[ROCECC_FLOW_A_RQPN] &&
	       mnl_attr_get_u32(tb[ROCECC_FLOW_A_RQPN]) == RQPN &&
	       tb[ROCECC_FLOW_A_LQPN] &&
	       mnl_attr_get_u32(tb[ROCECC_FLOW_A_LQPN]) == LQPN &&
	       tb[ROCECC_FLOW_A_RC] &&
	       mnl_attr_get_u32(tb[ROCECC_FLOW_A_RC]) == s->f.rp.rate &&
	       tb[ROCECC_FLOW_A_LIMITED] &&
	       mnl_attr_get_u8(tb[ROCECC_FLOW_A_LIMITED]) == 1 &&
	       tb[ROCECC_FLOW_A_CNP_HANDLED] &&
	       mnl_attr_get_u64(tb[ROCECC_FLOW_A_CNP_HANDLED]) == 1 &&
	       tb[ROCECC_FLOW_A_QP_TIMEOUT] &&
	       mnl_attr_get_u32(tb[ROCECC_FLOW_A_QP_TIMEOUT]) == 14 &&
	       tb[ROCECC_FLOW_A_STATE_NS] && tb[ROCECC_FLOW_A_PACING_BUDGET],
	       "the flow dumps as the module's FLOW_GET attributes (ifindex, key, LQPN, Rc, limited, handled, timeout)");
}

/* A netdev the module drives: refused, and named so */
static void module_dev(struct bpf_dp *dp, const char *name)
{
	uint32_t ifx = if_nametoindex(name);
	struct bpf_dp_dev_cfg c;
	char err[256] = "";
	int e;

	bpf_dp_dev_cfg_init(&c, ROCECC_PROFILE_MLX5);
	tap_eq(bpf_dp_module_has(ifx), 1, "rocecc.ko drives %s", name);
	e = bpf_dp_attach(dp, ifx, &c, err, sizeof(err));
	tap_ok(e == -EBUSY && strstr(err, "rocecc.ko") && strstr(err, name) &&
	       bpf_dp_on_netdev(ifx) == 0,
	       "the loader refuses %s, naming the module: %s", name, err);
}

/*
 * For real: a CE-marked WRITE from B sent into dqtest1 reaches dqtest0's
 * ingress program; the CNP made of its clone leaves dqtest0 and is read
 * on dqtest1. It must be cnp.h's, to B's QP, addresses swapped.
 */
static void live_cnp(struct bpf_dp *dp, uint32_t ifx)
{
	struct pkt k = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_WRITE_ONLY,
			 .qpn = LQPN, .payload = 256, .ecn = ROCECC_ECN_CE,
			 .ackreq = 1 };
	uint8_t f[FRAME_MAX], got[FRAME_MAX], want[FRAME_MAX];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct rocecc_cnp_params cp;
	struct pollfd pfd;
	uint64_t v[__DCQCN_STAT_MAX];
	ssize_t n = -1, r;
	size_t len;
	int sk, i, wn;

	if (system("ip link set " DEV " up && ip link set dqtest1 up")) {
		tap_ok(0, "veth up");
		return;
	}
	sk = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex("dqtest1");
	if (sk < 0 || bind(sk, (struct sockaddr *)&sll, sizeof(sll))) {
		tap_ok(0, "packet socket on dqtest1: %s", strerror(errno));
		return;
	}
	len = build(f, &k);
	if (send(sk, f, len, 0) != (ssize_t)len) {
		tap_ok(0, "send into dqtest1: %s", strerror(errno));
		close(sk);
		return;
	}
	/* the CNP: UDP to 4791, BTH opcode 0x81, not our own frame */
	for (i = 0; i < 50 && n < 0; i++) {
		pfd.fd = sk;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		r = recv(sk, got, sizeof(got), 0);
		if (r == 14 + ROCECC_CNP_LEN_IPV4 &&
		    got[14 + 20 + 8] == ROCECC_OP_CNP)
			n = r;
	}
	close(sk);
	memcpy(want, f + 6, 6);
	memcpy(want + 6, f, 6);
	memcpy(want + 12, f + 12, 2);
	memset(&cp, 0, sizeof(cp));
	dq_mapped(cp.saddr, A4);
	dq_mapped(cp.daddr, B4);
	cp.family = ROCECC_AF_INET;
	cp.dest_qp = RQPN;
	cp.sport = 0xc0de;
	cp.dscp = ROCECC_CNP_DEFAULT_DSCP;
	cp.prio = ROCECC_CNP_DEFAULT_PRIO;
	cp.ttl = ROCECC_CNP_DEFAULT_TTL;
	wn = rocecc_cnp_build(&cp, want + 14, FRAME_MAX - 14);
	tap_ok(n == 14 + wn && !memcmp(got, want, (size_t)n),
	       "live: the CE-marked packet came back as cnp.h's CNP to QP 0x%x (%zd bytes)",
	       RQPN, n);
	tap_ok(!bpf_dp_stats(dp, ifx, v) && v[ROCECC_STAT_NP_CNP_SENT] == 1 &&
	       v[DCQCN_STAT_CE_ANSWERED] == 1 &&
	       v[DCQCN_STAT_CNP_TX_ERRORS] == 0,
	       "live: np_cnp_sent 1, ce_answered 1, no CNP error");
}

/*
 * What the CLI opens: the pinned maps alone, without loading anything.
 * The same configuration, counters and flow; parameters can be set; the
 * programs cannot be attached from there.
 */
static void pinned_view(const char *dir, uint32_t ifx,
			const struct bpf_dp_dev_cfg *c)
{
	struct bpf_dp_dev_cfg got;
	struct bpf_dp *pv;
	struct seen s = { 0 };
	uint64_t v[__DCQCN_STAT_MAX];
	uint32_t devs[4];
	char err[256] = "";

	pv = bpf_dp_open_pinned("/nonexistent", err, sizeof(err));
	tap_ok(!pv && errno == ENOENT && strstr(err, "not loaded"),
	       "pinned view of an empty place: refused, %s", err);
	pv = bpf_dp_open_pinned(dir, err, sizeof(err));
	if (!tap_ok(pv != NULL, "pinned view opens: %s", err))
		return;
	tap_ok(bpf_dp_devs(pv, devs, 4) == 1 && devs[0] == ifx &&
	       !bpf_dp_dev_get(pv, ifx, &got) &&
	       !memcmp(&got.params, &c->params, sizeof(got.params)) &&
	       got.line_rate_kbps == c->line_rate_kbps && got.pace,
	       "pinned view: one netdev, its parameters, line rate, pacing");
	bpf_dp_flow_foreach(pv, ifx, seen_cb, &s);
	tap_ok(!bpf_dp_stats(pv, ifx, v) && v[ROCECC_STAT_RP_CNP_HANDLED] == 1 &&
	       s.n == 1 && s.f.rp.cnp_handled == 1,
	       "pinned view: the counters and the flow");
	got.params.v[ROCECC_PARAM_RP_AI_RATE] = 9;
	tap_ok(!bpf_dp_set_params(pv, ifx, &got.params, err, sizeof(err)),
	       "pinned view: parameters set");
	tap_ok(bpf_dp_attach(pv, ifx, c, err, sizeof(err)) == -EOPNOTSUPP &&
	       strstr(err, "roceccd"),
	       "pinned view: attaching needs the programs: %s", err);
	bpf_dp_close(pv);
	pv = bpf_dp_open(&(struct bpf_dp_opts){ .pin_dir = dir }, NULL, err,
			 sizeof(err));
	tap_ok(pv && !bpf_dp_dev_get(pv, ifx, &got) &&
	       got.params.v[ROCECC_PARAM_RP_AI_RATE] == 9,
	       "the loader sees the parameter the pinned view set");
	bpf_dp_close(pv);
}

/* dp_qps' timeout of @lqpn: the exponent, -1 unknown, -2 no entry */
static int qp_timeout(struct bpf_dp *dp, uint32_t ifx, uint32_t lqpn)
{
	struct dcqcn_qp_key k = { .ifindex = ifx, .lqpn = lqpn };
	struct dcqcn_qp v;

	if (bpf_map_lookup_elem(bpf_dp_map_fd(dp, DCQCN_PIN_QPS), &k, &v))
		return -2;
	return v.flags & DCQCN_QP_TIMEOUT ? v.timeout : -1;
}

/* dp_qps' flags of @lqpn, -1 no entry */
static int qp_flags(struct bpf_dp *dp, uint32_t ifx, uint32_t lqpn)
{
	struct dcqcn_qp_key k = { .ifindex = ifx, .lqpn = lqpn };
	struct dcqcn_qp v;

	if (bpf_map_lookup_elem(bpf_dp_map_fd(dp, DCQCN_PIN_QPS), &k, &v))
		return -1;
	return v.flags;
}

/* LQPN -> @raddr's RQPN, timeout 14, as the QP learner writes it */
static int qp_av_written(struct bpf_dp *dp, uint32_t ifx, const uint8_t *raddr)
{
	struct dcqcn_qp_key k = { .ifindex = ifx, .lqpn = LQPN };
	struct dcqcn_qp v = { .rqpn = RQPN, .timeout = 14,
			      .flags = DCQCN_QP_AV | DCQCN_QP_TIMEOUT };

	memcpy(v.raddr, raddr, 16);
	return bpf_map_update_elem(bpf_dp_map_fd(dp, DCQCN_PIN_QPS), &k, &v,
				   BPF_ANY);
}

/* The output of "rocecc --pin-dir @dir ARGS" (into @out), its exit status */
static int cli(const char *dir, char *out, size_t n, const char *args)
{
	char cmd[512];
	size_t got = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s --pin-dir %s %s 2>&1", ROCECC_CLI, dir,
		 args);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	got = fread(out, 1, n - 1, p);
	out[got] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The CLI on the BPF netdev, from the pinned maps: parameters with their
 * profile (mlx5 but for rp_ai_rate: custom), set and profile, counters
 * (the module's names, then the engine's own), the flow in the module's
 * keys, and attach refused naming the BPF datapath. Without the CLI
 * built: skipped.
 */
static void cli_view(const char *dir)
{
	char out[16384];
	int st, i;

	if (access(ROCECC_CLI, X_OK)) {
		for (i = 0; i < 8; i++)
			tap_ok(1, "# SKIP %s not built", ROCECC_CLI);
		return;
	}
	st = cli(dir, out, sizeof(out), "-j param show dev " DEV);
	tap_ok(!st && strstr(out, "\"dev\":\"" DEV "\"") &&
	       strstr(out, "\"engine\":\"bpf\"") &&
	       strstr(out, "\"profile\":\"custom\"") &&
	       strstr(out, "\"rp_ai_rate\":9") && strstr(out, "\"rp_gd\":11"),
	       "rocecc -j param show dev " DEV ": engine bpf, custom, rp_ai_rate 9");
	if (st)
		tap_diag("%s", out);
	st = cli(dir, out, sizeof(out), "param set dev " DEV " rp_ai_rate 10 rp_gd 12");
	tap_ok(!st && !cli(dir, out, sizeof(out), "param show dev " DEV " rp_gd") &&
	       strstr(out, "rp_gd 12"), "rocecc param set dev " DEV ": rp_gd 12");
	st = cli(dir, out, sizeof(out), "param set dev " DEV " rp_gd 16");
	tap_ok(st == 1 && strstr(out, "rp_gd") && strstr(out, "1..15"),
	       "rocecc param set rp_gd 16: refused with the range: %s", out);
	st = cli(dir, out, sizeof(out), "param profile dev " DEV " mlx5");
	tap_ok(!st && !cli(dir, out, sizeof(out), "-j param show dev " DEV) &&
	       strstr(out, "\"profile\":\"mlx5\""),
	       "rocecc param profile dev " DEV " mlx5: profile mlx5");
	st = cli(dir, out, sizeof(out), "-j -s dev show");
	tap_ok(!st && strstr(out, "\"engine\":\"bpf\"") &&
	       strstr(out, "\"rp_cnp_handled\":1") &&
	       strstr(out, "\"np_cnp_sent\":") &&
	       strstr(out, "\"ce_answered\":"),
	       "rocecc -j -s dev show: the counters, the module's names and the engine's");
	if (st)
		tap_diag("%s", out);
	st = cli(dir, out, sizeof(out), "-j flow show dev " DEV);
	tap_ok(!st && strstr(out, "\"engine\":\"bpf\"") &&
	       strstr(out, "\"raddr\":\"10.0.0.2\"") &&
	       strstr(out, "\"rqpn\":34") && strstr(out, "\"lqpn\":17") &&
	       strstr(out, "\"cnp_handled\":1") && strstr(out, "\"rate_kbps\":"),
	       "rocecc -j flow show dev " DEV ": the flow in the module's keys");
	tap_ok(!st && out[0] == '[' && strchr(out, '\n') &&
	       !strchr(out, '\n')[1],
	       "rocecc -j flow show dev " DEV ": one JSON document, one line");
	if (st)
		tap_diag("%s", out);
	st = cli(dir, out, sizeof(out), "dev attach " DEV);
	tap_ok(st == 1 && strstr(out, "BPF datapath"),
	       "rocecc dev attach " DEV ": refused, naming the BPF datapath: %s",
	       out);
}

/*
 * A daemon that exits stops, one that starts attaches again: nothing is
 * attached in between (dp_devs empty, no filter), the flow and the
 * counters stay.
 */
static void stop_start(struct bpf_dp *dp, uint32_t ifx,
		       const struct bpf_dp_dev_cfg *c)
{
	struct bpf_dp_dev_cfg got;
	struct seen s = { 0 };
	uint64_t v[__DCQCN_STAT_MAX];
	uint32_t devs[4];
	char err[256];

	tap_ok(!bpf_dp_stop(dp, ifx) && bpf_dp_on_netdev(ifx) == 0 &&
	       bpf_dp_devs(dp, devs, 4) == 0 &&
	       bpf_dp_dev_get(dp, ifx, &got) == -ENODEV,
	       "stopped: no filter, no dp_devs entry");
	bpf_dp_flow_foreach(dp, ifx, seen_cb, &s);
	tap_ok(s.n == 1 && !bpf_dp_stats(dp, ifx, v) &&
	       v[ROCECC_STAT_RP_CNP_HANDLED] == 1,
	       "stopped: the flow and the counters kept");
	tap_ok(!bpf_dp_attach(dp, ifx, c, err, sizeof(err)) &&
	       bpf_dp_on_netdev(ifx) == 1 && !bpf_dp_stats(dp, ifx, v) &&
	       v[ROCECC_STAT_RP_CNP_HANDLED] == 1,
	       "attached again: counters go on");
}

static int run(int fd, uint32_t ifindex, const uint8_t *f, size_t len)
{
	uint32_t retval = 0;

	return run_frame(fd, ifindex, f, len, &retval, NULL, NULL, NULL) ?
	       -1 : (int)retval;
}

/*
 * The learner pinned by @dp in @dir outlives its loader: the next one
 * adopts its links (no second attach), one of another layout is
 * replaced, the engine off for good unpins it. Where rdma_rxe is.
 */
static void learner_pins(const struct bpf_dp_opts *o, const char *dir)
{
	static const char *const pins[] = { DCQCN_PIN_QP_ATTR,
					    DCQCN_PIN_QP_MODIFY,
					    DCQCN_PIN_QP_DESTROY };
	struct bpf_map_info mi;
	struct bpf_dp *dp;
	char path[512], err[256] = "";
	uint32_t len;
	size_t i, n = 0;
	int fd;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i]);
		n += !access(path, F_OK);
	}
	tap_eq(n, 3, "the learner's map and two links pinned in %s", dir);

	dp = bpf_dp_open(o, NULL, err, sizeof(err));
	tap_ok(dp && !bpf_dp_learn_timeouts(dp, err, sizeof(err)) &&
	       bpf_dp_learner_adopted(dp) && !err[0],
	       "a second loader adopts the pinned learner (not a second attach)%s%s",
	       err[0] ? ": " : "", err);
	bpf_dp_close(dp);

	/* an older build's map: value 4 bytes */
	snprintf(path, sizeof(path), "%s/%s", dir, DCQCN_PIN_QP_ATTR);
	unlink(path);
	fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "dp_qp_attr",
			    sizeof(struct dcqcn_qp_key), 4, 16, NULL);
	tap_ok(fd >= 0 && !bpf_obj_pin(fd, path), "a learner map of another layout pinned");
	if (fd >= 0)
		close(fd);
	err[0] = '\0';
	dp = bpf_dp_open(o, NULL, err, sizeof(err));
	tap_ok(dp && !bpf_dp_learn_timeouts(dp, err, sizeof(err)) &&
	       !bpf_dp_learner_adopted(dp) && strstr(err, "replaced"),
	       "... replaced, with a message: %s", err);
	fd = bpf_obj_get(path);
	memset(&mi, 0, sizeof(mi));
	len = sizeof(mi);
	tap_ok(fd >= 0 && !bpf_obj_get_info_by_fd(fd, &mi, &len) &&
	       mi.value_size == sizeof(struct dcqcn_qp),
	       "... by this build's (value %u bytes)", mi.value_size);
	if (fd >= 0)
		close(fd);

	if (dp)
		bpf_dp_unlearn(dp);
	for (i = 0, n = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i]);
		n += !access(path, F_OK);
	}
	tap_ok(dp && !bpf_dp_learning(dp) && n == 0,
	       "the engine off for good: the learner unpinned and detached");
	bpf_dp_close(dp);
}

int main(void)
{
	char dir[] = "/tmp/rocecc-bpf-dp.XXXXXX", err[256] = "";
	struct bpf_dp_opts o = { 0 };
	struct bpf_dp_dev_cfg c;
	struct bpf_dp *dp;
	uint64_t v[__DCQCN_STAT_MAX];
	uint8_t f[FRAME_MAX], raddr[16];
	struct seen s = { 0 };
	uint32_t ifx;
	bool adopted = true;
	size_t n;
	int e;

	e = bpf_load_denied();
	if (e) {
		printf("1..0 # SKIP cannot load BPF programs: %s\n", strerror(e));
		return 0;
	}
	if (!mkdtemp(dir) || mount("bpf", dir, "bpf", 0, NULL)) {
		printf("1..0 # SKIP cannot mount a BPF filesystem: %s\n",
		       strerror(errno));
		return 0;
	}
	/* a leftover of a run that died goes first */
	if (system("ip link del " DEV " 2>/dev/null; "
		   "ip link add " DEV " type veth peer name dqtest1") ||
	    !(ifx = if_nametoindex(DEV))) {
		umount(dir);
		rmdir(dir);
		printf("1..0 # SKIP cannot make a veth pair\n");
		return 0;
	}
	libbpf_set_print(bpf_test_log);

	o.pin_dir = dir;
	dp = bpf_dp_open(&o, &adopted, err, sizeof(err));
	tap_ok(dp && !adopted, "opens, maps pinned afresh in a new directory%s%s",
	       err[0] ? ": " : "", err);
	if (!dp) {
		fputs(bpf_test_log_buf, stdout);
		goto out;
	}
	tap_eq(bpf_dp_module_has(ifx), 0, "rocecc.ko does not drive " DEV);
	if (getenv("ROCECC_TEST_MODULE_DEV"))
		module_dev(dp, getenv("ROCECC_TEST_MODULE_DEV"));
	tap_eq(bpf_dp_on_netdev(ifx), 0, "no filter of ours on " DEV " yet");

	bpf_dp_dev_cfg_init(&c, ROCECC_PROFILE_MLX5);
	c.params.v[ROCECC_PARAM_RP_GD] = 16;
	e = bpf_dp_attach(dp, ifx, &c, err, sizeof(err));
	tap_ok(e == -EINVAL && strstr(err, "rp_gd = 16") &&
	       strstr(err, "1..15") && bpf_dp_on_netdev(ifx) == 0,
	       "rp_gd 16 refused, by name and range: %s", err);
	c.params.v[ROCECC_PARAM_RP_GD] = 11;
	c.line_rate_kbps = 10000000;
	err[0] = '\0';
	e = bpf_dp_attach(dp, ifx, &c, err, sizeof(err));
	tap_ok(!e && bpf_dp_on_netdev(ifx) == 1, "attached: both filters on " DEV "%s%s",
	       err[0] ? ": " : "", err);
	tap_ok(!bpf_dp_stats(dp, ifx, v) && v[ROCECC_STAT_FLOWS] == 0 &&
	       v[ROCECC_STAT_RP_CNP_HANDLED] == 0, "counters, all zero");

	dq_mapped(raddr, B4);
	tap_ok(!bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN, 14),
	       "QP 0x%x -> B's 0x%x, timeout 14", LQPN, RQPN);
	tap_ok(!bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN, -1) &&
	       qp_timeout(dp, ifx, LQPN) == 14,
	       "set again with the timeout unknown (a restarted daemon): 14 stays");
	tap_ok(!bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN + 1, -1) &&
	       qp_timeout(dp, ifx, LQPN) == -1 &&
	       !bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN, 14),
	       "... but not for another remote QP");
	tap_ok(!qp_av_written(dp, ifx, raddr) &&
	       !bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN, 14) &&
	       qp_flags(dp, ifx, LQPN) == (DCQCN_QP_AV | DCQCN_QP_TIMEOUT),
	       "the learner's entry (DCQCN_QP_AV) written again for its peer keeps the flag");
	tap_ok(!bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN + 1, 14) &&
	       qp_flags(dp, ifx, LQPN) == DCQCN_QP_TIMEOUT &&
	       !bpf_dp_qp_set(dp, ifx, LQPN, raddr, RQPN, 14),
	       "... and loses it for another remote QP");
	tap_eq(bpf_dp_learn_timeouts(dp, err, sizeof(err)),
	       access("/sys/kernel/btf/rdma_rxe", F_OK) ? -ENOENT : 0,
	       "the timeout learner loads where rdma_rxe is, says why not elsewhere: %s",
	       err);
	if (bpf_dp_learning(dp))
		learner_pins(&o, dir);
	n = dq_cnp_frame(f, 0, B4, A4, LQPN);
	tap_eq(run(bpf_dp_prog_fd(dp, false), ifx, f, n), TC_ACT_STOLEN,
	       "a CNP from B on " DEV " is consumed");
	tap_ok(!bpf_dp_stats(dp, ifx, v) && v[ROCECC_STAT_RP_CNP_HANDLED] == 1 &&
	       v[ROCECC_STAT_FLOWS] == 1,
	       "rp_cnp_handled 1, flows 1 (the gauge counts the map)");
	bpf_dp_flow_foreach(dp, ifx, seen_cb, &s);
	tap_ok(s.n == 1 && s.k.rqpn == RQPN && s.f.rp.limited &&
	       s.f.lqpn == LQPN && s.f.budget_known,
	       "the flow: B's QP, limited, its QP and budget known");
	check_dump(&s, &c.params);
	live_cnp(dp, ifx);

	c.params.v[ROCECC_PARAM_RP_AI_RATE] = 7;
	tap_ok(!bpf_dp_set_params(dp, ifx, &c.params, err, sizeof(err)),
	       "parameters changed");
	c.params.v[ROCECC_PARAM_NP_CNP_PRIO] = 8;
	tap_eq(bpf_dp_set_params(dp, ifx, &c.params, err, sizeof(err)),
	       (unsigned long long)-EINVAL, "np_cnp_prio 8 refused: %s", err);

	/* a restart: the pinned maps, with the flow, are adopted */
	bpf_dp_close(dp);
	dp = bpf_dp_open(&o, &adopted, err, sizeof(err));
	memset(&s, 0, sizeof(s));
	if (dp)
		bpf_dp_flow_foreach(dp, ifx, seen_cb, &s);
	tap_ok(dp && adopted && s.n == 1 && s.f.rp.limited &&
	       s.f.rp.cnp_handled == 1, "reopened: the pinned flow adopted with its RP state");
	if (!dp)
		goto out;
	c.params.v[ROCECC_PARAM_NP_CNP_PRIO] = 6;
	tap_ok(!bpf_dp_attach(dp, ifx, &c, err, sizeof(err)) &&
	       !bpf_dp_stats(dp, ifx, v) && v[ROCECC_STAT_RP_CNP_HANDLED] == 1,
	       "re-attached by the new loader, counters kept");
	pinned_view(dir, ifx, &c);
	cli_view(dir);
	stop_start(dp, ifx, &c);
	tap_eq(bpf_dp_flows_expire(dp, 1000000000ULL, s.f.last_active + 500000000ULL),
	       0, "not idle for 1 s: kept");
	tap_eq(bpf_dp_flows_expire(dp, 1000000000ULL, s.f.last_active + 2000000000ULL),
	       1, "idle for 2 s: expired");

	tap_ok(!bpf_dp_detach(dp, ifx) && bpf_dp_on_netdev(ifx) == 0 &&
	       bpf_dp_stats(dp, ifx, v) == -ENODEV,
	       "detached: filters off, its counters gone");
	bpf_dp_close(dp);
out:
	if (system("ip link del " DEV " 2>/dev/null"))
		tap_diag("could not remove " DEV);
	umount(dir);
	rmdir(dir);
	return tap_done();
}
