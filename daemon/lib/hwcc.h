/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardware DCQCN on NVIDIA ConnectX (mlx5): the firmware runs DCQCN itself,
 * and the upstream driver lets a host read and write its parameters and
 * read its counters. This library finds such devices and does that, in
 * rocecc's names and units. docs/hw-mlx5.md says what the driver does
 * (6.1 and 6.12, file and function by name) and that none of this has run
 * on a real NIC: it is tested against a fixture built from the driver's
 * source (selftests/unit/daemon/mlx5fix.c).
 *
 * Three interfaces of the driver:
 *  - the parameters: one debugfs file per firmware parameter in
 *    <debugfs>/mlx5/<function>/cc_params/ (mlx5_ib's cong.c), where
 *    <function> is the mlx5 function's device name (its PCI address, or
 *    "mlx5_core.sf.N" for a subfunction). A read asks the firmware and
 *    returns "%u\n"; a write of a number (kstrtou32, base 0) sends one
 *    MODIFY_CONG_PARAMS command at once, for the whole function (every
 *    priority, every QP). The driver checks nothing but the number's
 *    syntax and keeps value & mask for the narrow fields: range checks
 *    are ours (rocecc's table, include/rocecc/params.h), and every write
 *    is read back;
 *  - the congestion counters: <sysfs>/class/infiniband/<dev>/ports/<p>/
 *    hw_counters/{np_cnp_sent,np_ecn_marked_roce_packets,rp_cnp_handled,
 *    rp_cnp_ignored} (mlx5_ib's counters.c), "%llu\n", the names of
 *    rocecc.ko's counters ROCECC_STAT_*;
 *  - the per-priority pause and traffic counters: the ethtool statistics
 *    of the netdev (mlx5e's en_stats.c), e.g. rx_prio3_pause,
 *    rx_prio3_pause_duration (microseconds), tx_prio3_packets.
 *
 * The mapping table (hwcc.c) holds what the research found, once: every
 * cc_params file with its rocecc parameter, firmware node, field width and
 * the field the driver writes along with it; every hw_counters file with
 * its rocecc counter; every ethtool statistic read. The fixture builds its
 * tree from the same table through the accessors below.
 *
 * I/O goes through struct hwcc_io: the reads and writes of files and the
 * ethtool statistics are calls of its ops (hwcc_io_init() gives the real
 * ones), so that the tests stand a fake driver in; directories are listed
 * and links resolved on the filesystem under the io's roots.
 *
 * Errors are -errno; the functions that take @err, @errlen write there
 * why, naming the parameter, value, file or device.
 */
#ifndef _ROCECC_HWCC_H
#define _ROCECC_HWCC_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rocecc/params.h>

#include "ethstats.h"

#define HWCC_PRIOS	8
#define HWCC_PATH_MAX	512
/* Devices hwcc_discover() reports at most */
#define HWCC_DEVS_MAX	32

/* ---- I/O ------------------------------------------------------------- */

struct hwcc_io;

struct hwcc_io_ops {
	/*
	 * Read the file @path from its start, at most @len - 1 bytes, into
	 * @buf, NUL-terminated: the bytes read, or -errno.
	 */
	ssize_t (*read)(const struct hwcc_io *io, const char *path, char *buf,
			size_t len);
	/* Write @len bytes to @path from its start, in one write: 0 or -errno */
	int (*write)(const struct hwcc_io *io, const char *path,
		     const char *buf, size_t len);
	/* The ethtool statistics of @ifname (ethstats_read()'s contract) */
	int (*ethtool)(const struct hwcc_io *io, const char *ifname,
		       struct ethstats *st);
};

struct hwcc_io {
	const struct hwcc_io_ops *ops;
	void *ctx;				/* the ops' own */
	char root[HWCC_PATH_MAX / 2 - 32];	/* "" for / */
	char sysfs[HWCC_PATH_MAX / 2];		/* "/sys" */
	char debugfs[HWCC_PATH_MAX / 2];	/* "/sys/kernel/debug" */
};

/*
 * The real files under @root ("" or NULL: "/"): <root>/sys and
 * <root>/sys/kernel/debug, and the ethtool ioctl. A root other than "/" is
 * for tests, a fixture tree, where a netdev's ethtool statistics are the
 * "name value" lines of the file <root>/ethtool/<netdev>.
 * -ENAMETOOLONG if @root does not fit.
 */
int hwcc_io_init(struct hwcc_io *io, const char *root);

/* ---- the mapping table ----------------------------------------------- */

/* The firmware's congestion-control nodes (MODIFY_CONG_PARAMS protocol) */
enum hwcc_node {
	HWCC_NODE_RP = 1,	/* reaction point (sender) */
	HWCC_NODE_NP = 2,	/* notification point (receiver) */
	HWCC_NODE_GENERAL = 3,	/* general RoCE CC (6.12, capability) */
};

#define HWCC_F_OPTIONAL	0x1	/* only with a firmware capability: absent
				 * files are not an error */

/* One file of cc_params */
struct hwcc_file {
	const char *name;	/* the driver's file name */
	unsigned int param;	/* enum rocecc_param, same unit; 0: none */
	unsigned char node;	/* enum hwcc_node */
	unsigned char sel;	/* field-select bit of the command */
	unsigned char bits;	/* width of the firmware field (1..32) */
	unsigned char flags;	/* HWCC_F_* */
	/*
	 * The field the driver sets along with this one (the index of its
	 * file, or -1) and the value it gives it: writing np_cnp_prio sets
	 * np_cnp_prio_mode to 0. The parameter is in force only while that
	 * field holds that value.
	 */
	signed char also;
	unsigned char also_val;
};

/* The files, in the driver's order; NULL past the last */
const struct hwcc_file *hwcc_file(unsigned int i);
unsigned int hwcc_nfiles(void);
/* The file of rocecc parameter @id: its index, or -1 (no firmware file) */
int hwcc_file_of(unsigned int id);

/* One hw_counters file and the rocecc.ko counter it is */
struct hwcc_stat {
	const char *name;	/* the driver's file name */
	unsigned int stat;	/* enum rocecc_stat of the same name */
};

const struct hwcc_stat *hwcc_stat(unsigned int i);
unsigned int hwcc_nstats(void);

/* Per-priority ethtool statistics read: "<dir>_prio<p>_<what>" */
enum hwcc_pc {
	HWCC_PC_RX_PAUSE,		/* PFC frames received (peer pauses us) */
	HWCC_PC_RX_PAUSE_DURATION,	/* us we were paused by the peer */
	HWCC_PC_RX_PAUSE_TRANSITION,	/* XOFF -> XON transitions received */
	HWCC_PC_TX_PAUSE,		/* PFC frames sent */
	HWCC_PC_TX_PAUSE_DURATION,	/* us we paused the peer */
	HWCC_PC_RX_BYTES,
	HWCC_PC_RX_PACKETS,
	HWCC_PC_TX_BYTES,
	HWCC_PC_TX_PACKETS,
	__HWCC_PC_MAX
};

#define HWCC_PCF_PFC	0x1	/* listed only for priorities with PFC on */

struct hwcc_prio_stat {
	const char *dir;	/* "rx" or "tx" */
	const char *what;	/* "pause", "pause_duration", ... */
	unsigned int flags;	/* HWCC_PCF_* */
};

/* enum hwcc_pc @pc's statistic; NULL past the last */
const struct hwcc_prio_stat *hwcc_prio_stat(unsigned int pc);
/* Its ethtool name for priority @prio into @buf ("rx_prio3_pause") */
void hwcc_prio_stat_name(unsigned int pc, unsigned int prio, char *buf,
			 size_t len);

/* The port-wide PFC storm statistics (firmware's stall detection) */
#define HWCC_ETH_STORM_WARNING	"tx_pause_storm_warning_events"
#define HWCC_ETH_STORM_ERROR	"tx_pause_storm_error_events"

/* ---- devices --------------------------------------------------------- */

/* One port of an mlx5 RDMA device */
struct hwcc_dev {
	char ibdev[64];			/* "mlx5_0" */
	unsigned int port;		/* 1-based */
	char netdev[IF_NAMESIZE];	/* the port's netdev, "" if none */
	char fn[64];			/* mlx5 function: "0000:3b:00.0" */
	char cc_dir[HWCC_PATH_MAX];	/* .../mlx5/<fn>/cc_params */
	char cnt_dir[HWCC_PATH_MAX];	/* .../ports/<port>/hw_counters */
};

/*
 * Every port of every RDMA device driven by mlx5 (its parent device's
 * driver is mlx5_core): up to @max into @out. Returns how many there are
 * (possibly more than @max), or -errno (no RDMA class directory).
 */
int hwcc_discover(const struct hwcc_io *io, struct hwcc_dev *out,
		  size_t max);

/*
 * The port whose netdev is @name, or port 1 of the RDMA device @name.
 * 0, or -ENODEV with @err saying why (none such, or not mlx5).
 */
int hwcc_find(const struct hwcc_io *io, const char *name,
	      struct hwcc_dev *d, char *err, size_t errlen);

/* ---- parameters ------------------------------------------------------ */

#define HWCC_NFILES_MAX	32

/* What the firmware holds */
struct hwcc_params {
	struct rocecc_params p;		/* by enum rocecc_param */
	uint32_t have;			/* BIT(id): p.v[id] read */
	uint32_t unused;		/* BIT(id): read, but not in force (the
					 * field written along is not its
					 * value: np_cnp_prio_mode 1) */
	uint32_t out_of_range;		/* BIT(id): outside rocecc's range */
	uint32_t fw[HWCC_NFILES_MAX];	/* every file's value, by index */
	uint32_t fw_have;		/* BIT(index): read */
	int fw_err[HWCC_NFILES_MAX];	/* -errno for a file not read */
};

/*
 * Read every cc_params file of @d. 0 if at least one was read (the others
 * have their fw_err); -errno with @err if none could be: -ENOENT (no
 * cc_params: debugfs not mounted, or the function may not change its
 * congestion control), -EPERM (kernel lockdown), -EACCES (not root), ...
 */
int hwcc_read_params(const struct hwcc_io *io, const struct hwcc_dev *d,
		     struct hwcc_params *out, char *err, size_t errlen);

/* Every rocecc parameter, for @mask arguments */
#define HWCC_MASK_ALL	(((1U << ROCECC_PARAM_MAX) - 1) << 1)

/*
 * Whether @want's parameters in @mask can go to the firmware: in rocecc's
 * range, and rp_rate_divisor (no firmware file) 1. 0, or -EINVAL with
 * @err naming the first one that cannot and why.
 */
int hwcc_check(const struct rocecc_params *want, uint32_t mask, char *err,
	       size_t errlen);

/* One write of a parameter to the firmware */
struct hwcc_write {
	unsigned int id;	/* enum rocecc_param */
	uint32_t from, to;
	bool from_known;	/* from was read (and was in force) */
};

/*
 * The writes that make the firmware hold @want's parameters in @mask, in
 * table order: those that differ from @cur, could not be read, or are not
 * in force. Parameters without a file are left out. Returns how many were
 * written into @w (room for HWCC_NFILES_MAX).
 */
size_t hwcc_plan(const struct hwcc_params *cur,
		 const struct rocecc_params *want, uint32_t mask,
		 struct hwcc_write *w);

/*
 * Make @d's firmware hold @want's parameters in @mask: hwcc_check(), read,
 * hwcc_plan(), write each, read each back. Returns the number of writes
 * (0: nothing differed) with them in @done (room for HWCC_NFILES_MAX),
 * or -errno with @err; *@ndone says how many writes were made before a
 * failure (the firmware applies each write at once: they stay made).
 * A read back that differs from what was written is -EIO.
 */
int hwcc_apply(const struct hwcc_io *io, const struct hwcc_dev *d,
	       const struct rocecc_params *want, uint32_t mask,
	       struct hwcc_write *done, size_t *ndone, char *err,
	       size_t errlen);

/* ---- counters -------------------------------------------------------- */

struct hwcc_counters {
	uint64_t stat[__ROCECC_STAT_MAX];	/* by enum rocecc_stat */
	uint32_t stat_have;		/* BIT(stat) */
	int stat_err;			/* -errno if none could be read */
	uint64_t pc[HWCC_PRIOS][__HWCC_PC_MAX];	/* by enum hwcc_pc */
	uint32_t pc_have[HWCC_PRIOS];	/* BIT(enum hwcc_pc) */
	uint64_t storm_warning, storm_error;
	bool have_storm;
	int eth_err;			/* -errno of the ethtool statistics */
};

/*
 * Read @d's congestion counters (hw_counters) and its netdev's ethtool
 * statistics. 0 if anything was read (stat_err / eth_err say what was
 * not), else -errno with @err.
 */
int hwcc_read_counters(const struct hwcc_io *io, const struct hwcc_dev *d,
		       struct hwcc_counters *out, char *err, size_t errlen);

/*
 * What the PFC watchdog and the buffer tuner read of one priority, in
 * their terms: the peer pausing us is mlx5's rx side (rx_prio<p>_pause
 * frames, rx_prio<p>_pause_duration, the time the port sent nothing on the
 * priority), us pausing the peer its tx side.
 */
struct hwcc_pfc {
	bool listed;		/* PFC statistics listed: PFC on (rx or tx) */
	uint64_t indications;	/* PFC frames received */
	uint64_t requests;	/* PFC frames sent */
	bool have_paused_ns;
	uint64_t paused_ns;	/* time paused by the peer, ns */
	bool have_tx;
	uint64_t tx_packets, tx_bytes;	/* sent on the priority */
};

void hwcc_pfc(const struct hwcc_counters *c, unsigned int prio,
	      struct hwcc_pfc *out);

#endif /* _ROCECC_HWCC_H */
