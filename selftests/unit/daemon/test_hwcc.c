// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of hardware DCQCN on mlx5 (daemon/lib/hwcc.c) against the fake
 * driver of mlx5fix.c: the mapping table's claims, discovery, reading the
 * firmware's parameters, writing a profile (only what differs, read back),
 * refused and failed writes with errors that name what failed, missing
 * files, the counters; and the SIOCETHTOOL reader (ethstats.c) on a real
 * veth in a network namespace of its own (as root; skipped otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/parse.h"
#include "lib/ethstats.h"
#include "lib/hwcc.h"
#include "mlx5fix.h"
#include "tap.h"

#define BIT(n)	(1U << (n))

static struct mlx5fix fx;
static char err[512];

static void bail(const char *why)
{
	printf("Bail out! %s\n", why);
	mlx5fix_fini(&fx);
	exit(1);
}

static void skip(const char *why)
{
	printf("ok %u # SKIP %s\n", ++tap_n, why);
}

static const struct mlx5fix_dev dev0 = {
	.ibdev = "mlx5_0", .netdev = "eth0", .fn = "0000:3b:00.0",
	.pfc_en = BIT(3), .storm = true,
};

static void fresh(void)
{
	mlx5fix_fini(&fx);
	if (mlx5fix_init(&fx) || mlx5fix_add(&fx, &dev0))
		bail("cannot build the fixture");
	fx.writes = 0;
	err[0] = '\0';
}

static bool has(const char *s, const char *sub)
{
	bool r = strstr(s, sub) != NULL;

	if (!r)
		tap_diag("\"%s\" lacks \"%s\"", s, sub);
	return r;
}

/* Write @text to cc_params file @name of dev0 through the fake driver */
static int drv_write(const char *name, const char *text)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/sys/kernel/debug/mlx5/%s/cc_params/%s",
		 fx.root, dev0.fn, name);
	return mlx5fix_write(&fx, p, text, strlen(text));
}

static uint32_t fw(const struct hwcc_params *hp, const char *name)
{
	unsigned int i;

	for (i = 0; hwcc_file(i); i++)
		if (!strcmp(hwcc_file(i)->name, name))
			return hp->fw[i];
	bail(name);
	return 0;
}

static void test_table(void)
{
	const struct hwcc_file *f;
	const struct hwcc_stat *s;
	unsigned int i, id, nomap = 0, nofile = 0;
	bool names = true, stats = true;

	for (i = 0; (f = hwcc_file(i)); i++) {
		if (!f->param) {
			nomap++;
			continue;
		}
		if (strcmp(f->name, rocecc_param_info(f->param)->name)) {
			tap_diag("file %s is parameter %s", f->name,
				 rocecc_param_info(f->param)->name);
			names = false;
		}
	}
	tap_ok(names, "every mapped cc_params file has its rocecc parameter's name");
	tap_eq(hwcc_nfiles(), 22, "the driver's 22 cc_params files (6.12)");
	tap_eq(nomap, 3, "np_cnp_prio_mode, rtt_resp_dscp_valid, rtt_resp_dscp have no rocecc parameter");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (hwcc_file_of(id) < 0) {
			nofile++;
			tap_ok(id == ROCECC_PARAM_RP_RATE_DIVISOR,
			       "%s has no firmware file",
			       rocecc_param_info(id)->name);
		}
	tap_eq(nofile, 1, "one rocecc parameter without a firmware file");
	for (i = 0; (s = hwcc_stat(i)); i++)
		if (strcmp(s->name, cli_stat_name(s->stat)))
			stats = false;
	tap_ok(stats && hwcc_nstats() == 4,
	       "the four congestion hw_counters are rocecc.ko's counters of the same name");
}

static void test_discover(void)
{
	static const struct mlx5fix_dev sf = {
		.ibdev = "mlx5_1", .netdev = "eth1", .fn = "mlx5_core.sf.2",
		.sf = true,
	};
	static const struct mlx5fix_dev bare = {
		.ibdev = "mlx5_2", .fn = "0000:3b:00.1", .no_cc = true,
	};
	struct hwcc_dev d[HWCC_DEVS_MAX], one;
	int n, i, seen = 0;

	fresh();
	if (mlx5fix_add(&fx, &sf) || mlx5fix_add(&fx, &bare) ||
	    mlx5fix_add_other(&fx, "rxe0", NULL) ||
	    mlx5fix_add_other(&fx, "irdma0", "irdma"))
		bail("fixture");
	n = hwcc_discover(&fx.io, d, HWCC_DEVS_MAX);
	tap_eq(n, 3, "three mlx5 ports found, rxe0 and irdma0 left out");
	for (i = 0; i < n; i++) {
		if (!strcmp(d[i].ibdev, "mlx5_0")) {
			seen |= 1;
			tap_ok(!strcmp(d[i].netdev, "eth0") && d[i].port == 1 &&
			       !strcmp(d[i].fn, "0000:3b:00.0"),
			       "mlx5_0 port 1: netdev eth0, function 0000:3b:00.0");
			tap_ok(has(d[i].cc_dir,
				   "/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params") &&
			       has(d[i].cnt_dir,
				   "/sys/class/infiniband/mlx5_0/ports/1/hw_counters"),
			       "its cc_params and hw_counters directories");
		} else if (!strcmp(d[i].ibdev, "mlx5_1")) {
			seen |= 2;
			tap_ok(!strcmp(d[i].fn, "mlx5_core.sf.2") &&
			       has(d[i].cc_dir, "/mlx5/mlx5_core.sf.2/cc_params"),
			       "a subfunction's debugfs directory is its device name");
		} else if (!strcmp(d[i].ibdev, "mlx5_2")) {
			seen |= 4;
			tap_ok(!d[i].netdev[0] && !strcmp(d[i].fn, "0000:3b:00.1"),
			       "a port without netdev keeps its RDMA device's function");
		}
	}
	tap_eq(seen, 7, "each of mlx5_0, mlx5_1, mlx5_2 once");
	tap_ok(!hwcc_find(&fx.io, "eth1", &one, err, sizeof(err)) &&
	       !strcmp(one.ibdev, "mlx5_1"), "find by netdev");
	tap_ok(!hwcc_find(&fx.io, "mlx5_0", &one, err, sizeof(err)) &&
	       !strcmp(one.netdev, "eth0"), "find by RDMA device");
	tap_ok(hwcc_find(&fx.io, "rxe0", &one, err, sizeof(err)) == -ENODEV &&
	       has(err, "rxe0") && has(err, "mlx5"),
	       "rxe0 is not mlx5: -ENODEV, named");
}

static void test_driver_writes(void)
{
	struct hwcc_dev d;
	struct hwcc_params hp;

	fresh();
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	tap_ok(!drv_write("rp_ai_rate", "0x10\n") &&
	       !drv_write("rp_hai_rate", "010") &&
	       !drv_write("rp_min_rate", "+7\n"),
	       "the driver takes hex, octal (leading 0) and a leading +");
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	tap_ok(hp.p.v[ROCECC_PARAM_RP_AI_RATE] == 16 &&
	       hp.p.v[ROCECC_PARAM_RP_HAI_RATE] == 8 &&
	       hp.p.v[ROCECC_PARAM_RP_MIN_RATE] == 7,
	       "0x10 is 16, 010 is 8, +7 is 7");
	tap_eq(-drv_write("rp_ai_rate", "4294967296"), EINVAL,
	       "an overflow is -EINVAL");
	tap_eq(-drv_write("rp_ai_rate", "5 "), EINVAL,
	       "trailing blank: -EINVAL");
	tap_eq(-drv_write("rp_ai_rate", "000000000005"), EINVAL,
	       "more than 11 bytes: -EINVAL");
	tap_ok(!drv_write("rp_time_reset", "12345678901"),
	       "11 digits: accepted, the driver cuts the last byte (6.1, 6.12)");
	tap_ok(!drv_write("rp_clamp_tgt_rate", "2") &&
	       !drv_write("np_cnp_dscp", "65") &&
	       !drv_write("np_cnp_prio_mode", "1") &&
	       !drv_write("rp_gd", "4294967295"),
	       "values wider than the field are accepted");
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	tap_eq(hp.p.v[ROCECC_PARAM_RP_TIME_RESET], 1234567890,
	       "and read back as the first 10 digits");
	tap_ok(hp.p.v[ROCECC_PARAM_RP_CLAMP_TGT_RATE] == 0 &&
	       hp.p.v[ROCECC_PARAM_NP_CNP_DSCP] == 1 &&
	       hp.p.v[ROCECC_PARAM_RP_GD] == 4294967295U,
	       "cut to the field's width: 2 -> 0 (1 bit), 65 -> 1 (6 bits)");
	tap_ok(hp.out_of_range & BIT(ROCECC_PARAM_RP_GD) &&
	       hp.out_of_range & BIT(ROCECC_PARAM_RP_TIME_RESET) &&
	       !(hp.out_of_range & BIT(ROCECC_PARAM_RP_AI_RATE)),
	       "firmware values outside rocecc's range are flagged");
	tap_ok(fw(&hp, "np_cnp_prio_mode") == 1 &&
	       hp.unused & BIT(ROCECC_PARAM_NP_CNP_PRIO),
	       "np_cnp_prio_mode 1: np_cnp_prio is not in force");
	tap_ok(!drv_write("np_cnp_prio", "11\n"), "np_cnp_prio 11 accepted");
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	tap_ok(hp.p.v[ROCECC_PARAM_NP_CNP_PRIO] == 3 &&
	       fw(&hp, "np_cnp_prio_mode") == 0 &&
	       !(hp.unused & BIT(ROCECC_PARAM_NP_CNP_PRIO)),
	       "writing np_cnp_prio sets the mode to 0 (and 11 & 7 = 3)");
}

static void test_read(void)
{
	static const struct mlx5fix_dev gen = {
		.ibdev = "mlx5_3", .netdev = "eth3", .fn = "0000:5e:00.0",
		.general = true,
	};
	struct rocecc_params def;
	struct hwcc_params hp;
	struct hwcc_dev d;
	unsigned int id;
	bool same = true;

	fresh();
	rocecc_params_load(&def, ROCECC_PROFILE_MLX5);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	tap_ok(!hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err)),
	       "read the parameters");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (hwcc_file_of(id) >= 0 && hp.p.v[id] != def.v[id])
			same = false;
	tap_ok(same, "the firmware defaults are rocecc's mlx5 profile");
	tap_eq(hp.have, HWCC_MASK_ALL & ~BIT(ROCECC_PARAM_RP_RATE_DIVISOR),
	       "every parameter read but rp_rate_divisor (no file)");
	tap_eq(__builtin_popcount(hp.fw_have), 20,
	       "20 files without the roce_cc_general capability (6.1's set)");
	tap_ok(!hp.unused && !hp.out_of_range, "all in force, all in range");
	if (mlx5fix_add(&fx, &gen))
		bail("fixture");
	hwcc_find(&fx.io, "eth3", &d, err, sizeof(err));
	tap_ok(!hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err)) &&
	       __builtin_popcount(hp.fw_have) == 22,
	       "22 files with it (6.12: rtt_resp_dscp_valid, rtt_resp_dscp)");
}

/* Apply @want (all parameters) to dev0; the return value */
static int apply(const struct rocecc_params *want, struct hwcc_write *done,
		 size_t *ndone)
{
	struct hwcc_dev d;

	if (hwcc_find(&fx.io, "eth0", &d, err, sizeof(err)))
		bail(err);
	err[0] = '\0';
	return hwcc_apply(&fx.io, &d, want, HWCC_MASK_ALL, done, ndone, err,
			  sizeof(err));
}

static void test_apply(void)
{
	struct hwcc_write done[HWCC_NFILES_MAX];
	struct rocecc_params paper, mlx5;
	struct hwcc_params hp;
	struct hwcc_dev d;
	unsigned int id, differ = 0;
	size_t nd;
	bool same = true;
	int n;

	fresh();
	rocecc_params_load(&paper, ROCECC_PROFILE_PAPER);
	rocecc_params_load(&mlx5, ROCECC_PROFILE_MLX5);
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (hwcc_file_of(id) >= 0 && paper.v[id] != mlx5.v[id])
			differ++;
	n = apply(&paper, done, &nd);
	tap_eq(n, differ, "the paper profile: one write per parameter that differs (%u)",
	       differ);
	tap_eq(fx.writes, differ, "the driver saw exactly those writes");
	tap_ok(nd == (size_t)n && done[0].from_known &&
	       done[0].from == mlx5.v[done[0].id] &&
	       done[0].to == paper.v[done[0].id],
	       "each write says from what to what (%s %u -> %u)",
	       rocecc_param_info(done[0].id)->name, done[0].from, done[0].to);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (hwcc_file_of(id) >= 0 && hp.p.v[id] != paper.v[id])
			same = false;
	tap_ok(same, "the firmware now holds the paper profile, unit for unit");
	tap_eq(apply(&paper, done, &nd), 0, "applying it again writes nothing");
	tap_eq(fx.writes, differ, "not a single write more");
	drv_write("np_cnp_prio_mode", "1");
	drv_write("np_cnp_prio", "6");
	drv_write("np_cnp_prio_mode", "1");
	tap_ok(apply(&paper, done, &nd) == 1 &&
	       done[0].id == ROCECC_PARAM_NP_CNP_PRIO && !done[0].from_known,
	       "np_cnp_prio equal but not in force (mode 1) is written");
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	tap_ok(fw(&hp, "np_cnp_prio_mode") == 0 &&
	       hp.p.v[ROCECC_PARAM_NP_CNP_PRIO] == 6,
	       "and is in force after it");
}

static void test_refused(void)
{
	struct hwcc_write done[HWCC_NFILES_MAX];
	struct rocecc_params want;
	struct hwcc_params hp;
	struct hwcc_dev d;
	size_t nd = 99;

	fresh();
	rocecc_params_load(&want, ROCECC_PROFILE_MLX5);
	want.v[ROCECC_PARAM_RP_AI_RATE] = 5000000;
	tap_eq(-apply(&want, done, &nd), EINVAL,
	       "rp_ai_rate above 4 Tb/s: -EINVAL");
	tap_ok(has(err, "rp_ai_rate 5000000") && has(err, "0..4000000 Mb/s") &&
	       nd == 0 && fx.writes == 0,
	       "the error names parameter, value and range; nothing written");
	rocecc_params_load(&want, ROCECC_PROFILE_MLX5);
	want.v[ROCECC_PARAM_RP_RATE_DIVISOR] = 5000;
	tap_eq(-apply(&want, done, &nd), EINVAL, "rp_rate_divisor 5000: -EINVAL");
	tap_ok(has(err, "rp_rate_divisor 5000") && has(err, "no such parameter") &&
	       fx.writes == 0, "the firmware has no rate divisor, and says so");

	/* the firmware refuses rp_hai_rate; rp_time_reset comes before it */
	rocecc_params_load(&want, ROCECC_PROFILE_PAPER);
	mlx5fix_fault(&fx, "rp_hai_rate", -EINVAL, false, true);
	tap_eq(-apply(&want, done, &nd), EINVAL,
	       "a value the firmware refuses: -EINVAL");
	tap_ok(has(err, "rp_hai_rate 200") && has(err, "refused") &&
	       has(err, "cc_params/rp_hai_rate"),
	       "named, with its value and file: %s", err);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err));
	tap_ok(nd == fx.writes && nd >= 1 &&
	       done[nd - 1].id == ROCECC_PARAM_RP_AI_RATE &&
	       hp.p.v[ROCECC_PARAM_RP_TIME_RESET] == 55 &&
	       hp.p.v[ROCECC_PARAM_RP_HAI_RATE] == 50 &&
	       hp.p.v[ROCECC_PARAM_RP_DCE_TCP_RTT] == 1,
	       "the %zu writes before it are made and reported, none after",
	       nd);

	fresh();
	mlx5fix_clamp(&fx, "rp_time_reset", 50);
	tap_eq(-apply(&want, done, &nd), EIO,
	       "a firmware that keeps another value: -EIO");
	tap_ok(has(err, "rp_time_reset 55") && has(err, "holds 50"),
	       "the read back is compared: %s", err);

	fresh();
	mlx5fix_fault(&fx, "rp_ai_rate", -ENODEV, true, true);
	tap_eq(-apply(&want, done, &nd), ENODEV,
	       "an unaffiliated port: -ENODEV");
	tap_ok(has(err, "rp_ai_rate") && has(err, "not affiliated"),
	       "named: %s", err);
}

static void test_missing(void)
{
	static const struct mlx5fix_dev nocc = {
		.ibdev = "mlx5_4", .netdev = "eth4", .fn = "0000:af:00.0",
		.no_cc = true, .no_cong_counters = true,
	};
	struct hwcc_write done[HWCC_NFILES_MAX];
	struct rocecc_params want;
	struct hwcc_params hp;
	struct hwcc_dev d;
	char p[1024];
	unsigned int i;
	size_t nd;

	fresh();
	if (mlx5fix_add(&fx, &nocc))
		bail("fixture");
	hwcc_find(&fx.io, "eth4", &d, err, sizeof(err));
	tap_eq(-hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err)), ENOENT,
	       "no cc_params directory: -ENOENT");
	tap_ok(has(err, "mlx5_4") && has(err, "0000:af:00.0/cc_params") &&
	       has(err, "debugfs not mounted"),
	       "says where it looked and what may be wrong");

	snprintf(p, sizeof(p), "%s/sys/kernel/debug/mlx5/%s/cc_params/rp_gd",
		 fx.root, dev0.fn);
	unlink(p);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	tap_ok(!hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err)) &&
	       !(hp.have & BIT(ROCECC_PARAM_RP_GD)) &&
	       hp.have & BIT(ROCECC_PARAM_RP_AI_RATE) &&
	       hp.fw_err[hwcc_file_of(ROCECC_PARAM_RP_GD)] == -ENOENT,
	       "one file missing: the others are read, it is unavailable");
	rocecc_params_load(&want, ROCECC_PROFILE_MLX5);
	want.v[ROCECC_PARAM_RP_GD] = 10;
	tap_eq(-apply(&want, done, &nd), ENOENT,
	       "writing the missing one: -ENOENT");
	tap_ok(has(err, "rp_gd 10"), "named: %s", err);

	fresh();
	for (i = 0; hwcc_file(i); i++)
		mlx5fix_fault(&fx, hwcc_file(i)->name, -EPERM, true, false);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	tap_eq(-hwcc_read_params(&fx.io, &d, &hp, err, sizeof(err)), EPERM,
	       "kernel lockdown: -EPERM");
	tap_ok(has(err, "locked down"), "says lockdown: %s", err);
}

static void test_counters(void)
{
	static const struct mlx5fix_dev quiet = {
		.ibdev = "mlx5_5", .fn = "0000:d8:00.0", .no_cong_counters = true,
	};
	struct hwcc_counters c;
	struct hwcc_pfc pf;
	struct hwcc_dev d;

	fresh();
	mlx5fix_set_stat(&fx, "mlx5_0", 1, "np_cnp_sent", 11);
	mlx5fix_set_stat(&fx, "mlx5_0", 1, "np_ecn_marked_roce_packets", 22);
	mlx5fix_set_stat(&fx, "mlx5_0", 1, "rp_cnp_handled", 33);
	mlx5fix_set_stat(&fx, "mlx5_0", 1, "rp_cnp_ignored",
			 18446744073709551615ULL);
	mlx5fix_set_eth(&fx, "eth0", "rx_prio3_pause", 40);
	mlx5fix_set_eth(&fx, "eth0", "rx_prio3_pause_duration", 41);
	mlx5fix_set_eth(&fx, "eth0", "tx_prio3_pause", 42);
	mlx5fix_set_eth(&fx, "eth0", "tx_prio3_packets", 43);
	mlx5fix_set_eth(&fx, "eth0", "tx_prio0_bytes", 44);
	mlx5fix_set_eth(&fx, "eth0", HWCC_ETH_STORM_ERROR, 2);
	hwcc_find(&fx.io, "eth0", &d, err, sizeof(err));
	tap_ok(!hwcc_read_counters(&fx.io, &d, &c, err, sizeof(err)),
	       "read the counters");
	tap_ok(c.stat[ROCECC_STAT_NP_CNP_SENT] == 11 &&
	       c.stat[ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS] == 22 &&
	       c.stat[ROCECC_STAT_RP_CNP_HANDLED] == 33 &&
	       c.stat[ROCECC_STAT_RP_CNP_IGNORED] == 18446744073709551615ULL &&
	       __builtin_popcount(c.stat_have) == 4,
	       "hw_counters by rocecc counter, all 64 bits");
	tap_ok(c.pc[3][HWCC_PC_RX_PAUSE] == 40 &&
	       c.pc[3][HWCC_PC_RX_PAUSE_DURATION] == 41 &&
	       c.pc[3][HWCC_PC_TX_PAUSE] == 42 &&
	       c.pc[3][HWCC_PC_TX_PACKETS] == 43 &&
	       c.pc[0][HWCC_PC_TX_BYTES] == 44,
	       "per-priority pause and traffic counters from ethtool");
	tap_eq(c.pc_have[3], (1U << __HWCC_PC_MAX) - 1,
	       "priority 3 (PFC on) has all nine");
	tap_ok(!(c.pc_have[0] & BIT(HWCC_PC_RX_PAUSE)) &&
	       c.pc_have[0] & BIT(HWCC_PC_TX_BYTES),
	       "priority 0 (PFC off): traffic only, as mlx5e lists them");
	tap_ok(c.have_storm && c.storm_error == 2 && c.storm_warning == 0,
	       "the firmware's storm counters");
	hwcc_pfc(&c, 3, &pf);
	tap_ok(pf.listed && pf.indications == 40 && pf.requests == 42 &&
	       pf.have_paused_ns && pf.paused_ns == 41000 && pf.have_tx &&
	       pf.tx_packets == 43,
	       "for the watchdog: the peer pausing us is rx, 41 us is 41000 ns");
	hwcc_pfc(&c, 0, &pf);
	tap_ok(!pf.listed && !pf.have_paused_ns && pf.have_tx &&
	       pf.tx_bytes == 44, "priority 0: not listed, traffic only");

	if (mlx5fix_add(&fx, &quiet))
		bail("fixture");
	hwcc_find(&fx.io, "mlx5_5", &d, err, sizeof(err));
	tap_ok(hwcc_read_counters(&fx.io, &d, &c, err, sizeof(err)) ==
	       -ENOENT && c.stat_err == -ENOENT && c.eth_err == -ENODEV &&
	       has(err, "mlx5_5") && has(err, "(none)"),
	       "no congestion counters, no netdev: -ENOENT, both said");
}

/* The real io under the fixture's root: discovery and plain files */
static void test_real_io(void)
{
	struct hwcc_write done[HWCC_NFILES_MAX];
	struct rocecc_params want;
	struct hwcc_params hp;
	struct hwcc_io io;
	struct hwcc_dev d;
	size_t nd;

	fresh();
	tap_ok(!hwcc_io_init(&io, fx.root) &&
	       !hwcc_find(&io, "eth0", &d, err, sizeof(err)) &&
	       !hwcc_read_params(&io, &d, &hp, err, sizeof(err)) &&
	       hp.p.v[ROCECC_PARAM_RP_AI_RATE] == 5,
	       "the real files under a root: found and read");
	rocecc_params_load(&want, ROCECC_PROFILE_PAPER);
	tap_ok(hwcc_apply(&io, &d, &want, BIT(ROCECC_PARAM_RP_AI_RATE) |
			  BIT(ROCECC_PARAM_RP_TIME_RESET), done, &nd, err,
			  sizeof(err)) == 2 &&
	       !hwcc_read_params(&io, &d, &hp, err, sizeof(err)) &&
	       hp.p.v[ROCECC_PARAM_RP_AI_RATE] == 40 &&
	       hp.p.v[ROCECC_PARAM_RP_TIME_RESET] == 55 &&
	       hp.p.v[ROCECC_PARAM_RP_HAI_RATE] == 50,
	       "a mask writes only its parameters, through write(2) (300 -> 55: truncated)");
	tap_ok(!hwcc_io_init(&io, NULL) && !strcmp(io.sysfs, "/sys") &&
	       !strcmp(io.debugfs, "/sys/kernel/debug"),
	       "the default roots");
}

/* In a network namespace of our own: a veth pair, its statistics */
static int veth_child(void)
{
	struct ethstats st;
	uint64_t peer = 0;
	int e;

	if (unshare(CLONE_NEWNET))
		return 10;
	if (system("ip link add name hwcc0 type veth peer name hwcc1"))
		return 11;
	e = ethstats_read("hwcc0", &st);
	if (e)
		return 12;
	if (ethstats_get(&st, "peer_ifindex", &peer) ||
	    peer != if_nametoindex("hwcc1"))
		return 13;
	ethstats_free(&st);
	return ethstats_read("nosuch0", &st) == -ENODEV ? 0 : 14;
}

static void test_ethstats(void)
{
	struct ethstats st;
	int status = 0;
	pid_t pid;

	tap_eq(-ethstats_read("a-name-longer-than-ifnamsiz", &st), EINVAL,
	       "a name longer than IFNAMSIZ is refused, not cut");
	if (geteuid()) {
		skip("needs root for a network namespace");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(veth_child());
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
	       "a veth's statistics over SIOCETHTOOL (peer_ifindex is the peer's index), -ENODEV for none (child %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	test_table();
	test_discover();
	test_driver_writes();
	test_read();
	test_apply();
	test_refused();
	test_missing();
	test_counters();
	test_real_io();
	test_ethstats();
	mlx5fix_fini(&fx);
	return tap_done();
}
