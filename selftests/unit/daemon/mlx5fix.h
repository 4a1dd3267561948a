/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake mlx5 driver for the tests of daemon/lib/hwcc.c: it builds, in a
 * temporary directory, the sysfs and debugfs files the upstream driver
 * makes for an mlx5 RDMA device (file names and value formats as in
 * docs/hw-mlx5.md, taken from the library's mapping table, not listed
 * again here), and stands in for the driver where plain files cannot:
 *
 *  - writes to cc_params go through the fixture io's write op, which does
 *    what the driver's set_param() and mlx5_ib_set_cc_params() do
 *    (6.1 and 6.12): more than 11 bytes is -EINVAL; the text is parsed as
 *    kstrtou32(base 0) does (a leading '+', 0x for hex, 0 for octal, one
 *    trailing newline), anything else or an overflow is -EINVAL; the value
 *    is cut to the firmware field's width (value & mask, silently); the
 *    fields under the same field-select bit are written too: the one the
 *    driver sets along (np_cnp_prio -> np_cnp_prio_mode = 0,
 *    rtt_resp_dscp -> rtt_resp_dscp_valid = 1) to that value, the others
 *    to 0, as the command buffer the driver sends holds them (this last
 *    part is the firmware's business, inferred). The file then holds the
 *    new value as "%u\n", what a read returns;
 *  - faults a real device can have: a file that fails its reads and/or
 *    writes with an errno (the firmware refusing a value: -EINVAL; a port
 *    not affiliated: -ENODEV; kernel lockdown: -EPERM), and a firmware
 *    that keeps at most some value of a parameter (to see the library
 *    catch a read back that differs);
 *  - the ethtool statistics: <root>/ethtool/<netdev>, one "name value"
 *    line per statistic in mlx5e's order and naming (the PFC group only
 *    for the priorities with PFC enabled), which the library reads under a
 *    test root (hwcc_io_init()).
 *
 * Everything else (discovery: directories, links) is real files, read
 * through the library's real code.
 *
 * The tool mlx5fix (mlx5fix_tool.c) builds such a tree for the tests of
 * the programs (test_hw_cli.sh), which read it with --hw-root.
 */
#ifndef _ROCECC_MLX5FIX_H
#define _ROCECC_MLX5FIX_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hwcc.h"

#define MLX5FIX_FAULTS	HWCC_NFILES_MAX

struct mlx5fix_fault {
	char file[64];		/* cc_params file name */
	int err;		/* -errno */
	bool on_read, on_write;
};

struct mlx5fix {
	char root[256];
	struct hwcc_io io;	/* the library's view, through the fake ops */
	const struct hwcc_io_ops *base;	/* the library's ops for the root */
	struct mlx5fix_fault fault[MLX5FIX_FAULTS];
	unsigned int nfault;
	int clamp_file;		/* file index the firmware clamps, -1 none */
	uint32_t clamp_max;
	unsigned int writes;	/* writes the fake driver accepted */
};

/* One mlx5 function with its RDMA device and netdev */
struct mlx5fix_dev {
	const char *ibdev;	/* "mlx5_0" */
	const char *netdev;	/* "eth0"; NULL: none (no GID 0 netdev) */
	const char *fn;		/* "0000:3b:00.0" or "mlx5_core.sf.2" */
	unsigned int port;	/* 0: 1 */
	bool sf;		/* a subfunction (driver mlx5_core.sf) */
	bool no_cc;		/* no cc_params (capabilities missing) */
	bool general;		/* rtt_resp_* (6.12, roce_cc_general) */
	bool no_cong_counters;	/* no congestion hw_counters */
	uint8_t pfc_en;		/* priorities with PFC on (ethtool) */
	bool storm;		/* the stall (storm) counters */
};

/* A fresh tree under $TMPDIR (or /tmp): 0 or -errno */
int mlx5fix_init(struct mlx5fix *fx);
/* The same in the existing directory @dir */
int mlx5fix_init_at(struct mlx5fix *fx, const char *dir);
/* Remove the tree */
void mlx5fix_fini(struct mlx5fix *fx);

/* Add an mlx5 device: 0 or -errno */
int mlx5fix_add(struct mlx5fix *fx, const struct mlx5fix_dev *d);
/*
 * Add an RDMA device of another driver: @driver NULL for one without a
 * parent device (rxe), else the parent's driver ("irdma").
 */
int mlx5fix_add_other(struct mlx5fix *fx, const char *ibdev,
		      const char *driver);

/* Faults of cc_params file @file (see above); -ENOSPC if full */
int mlx5fix_fault(struct mlx5fix *fx, const char *file, int err,
		  bool on_read, bool on_write);
/* The firmware keeps at most @max of @file */
int mlx5fix_clamp(struct mlx5fix *fx, const char *file, uint32_t max);

/* Set a counter: hw_counters file @name of @ibdev port @port */
int mlx5fix_set_stat(struct mlx5fix *fx, const char *ibdev,
		     unsigned int port, const char *name, uint64_t v);
/* Set ethtool statistic @name of @netdev (must be listed); the file is
 * replaced at once (rename) */
int mlx5fix_set_eth(struct mlx5fix *fx, const char *netdev,
		    const char *name, uint64_t v);

/* The fake driver's write, as the write op does it, for direct tests */
int mlx5fix_write(struct mlx5fix *fx, const char *path, const char *buf,
		  size_t len);

#endif /* _ROCECC_MLX5FIX_H */
