// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware DCQCN on mlx5: the mapping table, device discovery, the
 * firmware's parameters and counters. See hwcc.h; what the driver does is
 * in docs/hw-mlx5.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "hwcc.h"
#include "msg.h"

_Static_assert(ROCECC_PARAM_MAX < 32, "parameter masks are 32 bits");
_Static_assert(__ROCECC_STAT_MAX <= 32, "counter masks are 32 bits");
_Static_assert(__HWCC_PC_MAX <= 32, "priority counter masks are 32 bits");

#define BIT(n)	(1U << (n))
/* A file in a hwcc_dev directory */
#define FILE_PATH_MAX	(HWCC_PATH_MAX + 64)

/* ---- the mapping table ----------------------------------------------- */

/* File indexes the table refers to */
enum {
	F_NP_CNP_PRIO_MODE = 18,
	F_NP_CNP_PRIO = 19,
	F_RTT_RESP_DSCP_VALID = 20,
	F_RTT_RESP_DSCP = 21,
};

#define RP(n, id, s, b) { n, ROCECC_PARAM_##id, HWCC_NODE_RP, s, b, 0, -1, 0 }

/*
 * cc_params, in the order of the driver's mlx5_ib_dbg_cc_name[] (cong.c).
 * sel is the bit mlx5_ib_set_cc_param_mask_val() sets in the command's
 * field select; bits the width of the field in mlx5_ifc.h
 * (cong_control_r_roce_ecn_rp / _np / _general). The rtt_resp pair is 6.12
 * only, and only with the roce_cc_general capability.
 */
static const struct hwcc_file hwcc_files[] = {
	RP("rp_clamp_tgt_rate", RP_CLAMP_TGT_RATE, 1, 1),
	RP("rp_clamp_tgt_rate_ati", RP_CLAMP_TGT_RATE_ATI, 2, 1),
	RP("rp_time_reset", RP_TIME_RESET, 3, 32),
	RP("rp_byte_reset", RP_BYTE_RESET, 4, 32),
	RP("rp_threshold", RP_THRESHOLD, 5, 32),
	RP("rp_ai_rate", RP_AI_RATE, 7, 32),
	RP("rp_max_rate", RP_MAX_RATE, 6, 32),
	RP("rp_hai_rate", RP_HAI_RATE, 8, 32),
	RP("rp_min_dec_fac", RP_MIN_DEC_FAC, 9, 32),
	RP("rp_min_rate", RP_MIN_RATE, 10, 32),
	RP("rp_rate_to_set_on_first_cnp", RP_RATE_TO_SET_ON_FIRST_CNP, 11, 32),
	RP("rp_dce_tcp_g", RP_DCE_TCP_G, 12, 32),
	RP("rp_dce_tcp_rtt", RP_DCE_TCP_RTT, 13, 32),
	RP("rp_rate_reduce_monitor_period", RP_RATE_REDUCE_MONITOR_PERIOD,
	   14, 32),
	RP("rp_initial_alpha_value", RP_INITIAL_ALPHA_VALUE, 15, 32),
	RP("rp_gd", RP_GD, 16, 32),
	{ "np_min_time_between_cnps", ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS,
	  HWCC_NODE_NP, 2, 32, 0, -1, 0 },
	{ "np_cnp_dscp", ROCECC_PARAM_NP_CNP_DSCP, HWCC_NODE_NP, 3, 6, 0,
	  -1, 0 },
	/* the driver writes only the mode; the prio shares its select bit */
	[F_NP_CNP_PRIO_MODE] = { "np_cnp_prio_mode", 0, HWCC_NODE_NP, 4, 1,
				 0, F_NP_CNP_PRIO, 0 },
	/* the driver writes the prio and mode 0 (use this prio) */
	[F_NP_CNP_PRIO] = { "np_cnp_prio", ROCECC_PARAM_NP_CNP_PRIO,
			    HWCC_NODE_NP, 4, 3, 0, F_NP_CNP_PRIO_MODE, 0 },
	[F_RTT_RESP_DSCP_VALID] = { "rtt_resp_dscp_valid", 0,
				    HWCC_NODE_GENERAL, 0, 1, HWCC_F_OPTIONAL,
				    F_RTT_RESP_DSCP, 0 },
	/* the driver writes the DSCP and valid = 1 */
	[F_RTT_RESP_DSCP] = { "rtt_resp_dscp", 0, HWCC_NODE_GENERAL, 0, 6,
			      HWCC_F_OPTIONAL, F_RTT_RESP_DSCP_VALID, 1 },
};

#define HWCC_NFILES	(sizeof(hwcc_files) / sizeof(hwcc_files[0]))
_Static_assert(HWCC_NFILES <= HWCC_NFILES_MAX, "room for every file");

const struct hwcc_file *hwcc_file(unsigned int i)
{
	return i < HWCC_NFILES ? &hwcc_files[i] : NULL;
}

unsigned int hwcc_nfiles(void)
{
	return HWCC_NFILES;
}

int hwcc_file_of(unsigned int id)
{
	unsigned int i;

	for (i = 0; id && i < HWCC_NFILES; i++)
		if (hwcc_files[i].param == id)
			return (int)i;
	return -1;
}

/* hw_counters, in the order of the driver's cong_cnts[] (counters.c) */
static const struct hwcc_stat hwcc_stats[] = {
	{ "rp_cnp_ignored", ROCECC_STAT_RP_CNP_IGNORED },
	{ "rp_cnp_handled", ROCECC_STAT_RP_CNP_HANDLED },
	{ "np_ecn_marked_roce_packets", ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS },
	{ "np_cnp_sent", ROCECC_STAT_NP_CNP_SENT },
};

#define HWCC_NSTATS	(sizeof(hwcc_stats) / sizeof(hwcc_stats[0]))

const struct hwcc_stat *hwcc_stat(unsigned int i)
{
	return i < HWCC_NSTATS ? &hwcc_stats[i] : NULL;
}

unsigned int hwcc_nstats(void)
{
	return HWCC_NSTATS;
}

/*
 * mlx5e's per-priority statistics (en_stats.c): the PFC group
 * pport_per_prio_pfc_stats_desc[] ("rx_prio%d_pause" ...) is listed only for
 * the priorities with PFC enabled; the traffic group
 * pport_per_prio_traffic_stats_desc[] for all eight.
 */
static const struct hwcc_prio_stat hwcc_prio_stats[__HWCC_PC_MAX] = {
	[HWCC_PC_RX_PAUSE] = { "rx", "pause", HWCC_PCF_PFC },
	[HWCC_PC_RX_PAUSE_DURATION] = { "rx", "pause_duration", HWCC_PCF_PFC },
	[HWCC_PC_RX_PAUSE_TRANSITION] = { "rx", "pause_transition",
					  HWCC_PCF_PFC },
	[HWCC_PC_TX_PAUSE] = { "tx", "pause", HWCC_PCF_PFC },
	[HWCC_PC_TX_PAUSE_DURATION] = { "tx", "pause_duration", HWCC_PCF_PFC },
	[HWCC_PC_RX_BYTES] = { "rx", "bytes", 0 },
	[HWCC_PC_RX_PACKETS] = { "rx", "packets", 0 },
	[HWCC_PC_TX_BYTES] = { "tx", "bytes", 0 },
	[HWCC_PC_TX_PACKETS] = { "tx", "packets", 0 },
};

const struct hwcc_prio_stat *hwcc_prio_stat(unsigned int pc)
{
	return pc < __HWCC_PC_MAX ? &hwcc_prio_stats[pc] : NULL;
}

void hwcc_prio_stat_name(unsigned int pc, unsigned int prio, char *buf,
			 size_t len)
{
	const struct hwcc_prio_stat *ps = hwcc_prio_stat(pc);

	if (ps)
		snprintf(buf, len, "%s_prio%u_%s", ps->dir, prio, ps->what);
	else if (len)
		buf[0] = '\0';
}

/* ---- I/O ------------------------------------------------------------- */

static ssize_t real_read(const struct hwcc_io *io, const char *path,
			 char *buf, size_t len)
{
	ssize_t n;
	int fd;

	(void)io;
	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static int real_write(const struct hwcc_io *io, const char *path,
		      const char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	(void)io;
	/* as `echo V > file` opens it (O_TRUNC: a no-op on debugfs) */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int real_ethtool(const struct hwcc_io *io, const char *ifname,
			struct ethstats *st)
{
	(void)io;
	return ethstats_read(ifname, st);
}

/* A test root's <root>/ethtool/<ifname>: "name value" lines */
static int file_ethtool(const struct hwcc_io *io, const char *ifname,
			struct ethstats *st)
{
	char path[HWCC_PATH_MAX], line[128];
	unsigned long long v;
	size_t cap = 0;
	void *a, *b;
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/ethtool/%.15s", io->root, ifname);
	f = fopen(path, "re");
	if (!f)
		return -ENODEV;
	while (fgets(line, sizeof(line), f)) {
		if (st->n == cap) {
			size_t ca = cap, cb = cap;

			a = array_grow(st->name, &ca, st->n + 1, ETH_GSTRING_LEN);
			if (a)
				st->name = a;
			b = a ? array_grow(st->val, &cb, st->n + 1,
					   sizeof(*st->val)) : NULL;
			if (!b) {
				fclose(f);
				ethstats_free(st);
				return -ENOMEM;
			}
			st->val = b;
			cap = ca;
		}
		if (sscanf(line, "%31s %llu", st->name[st->n], &v) == 2)
			st->val[st->n++] = v;
	}
	fclose(f);
	return st->n ? 0 : -EOPNOTSUPP;
}

static const struct hwcc_io_ops real_ops = {
	.read = real_read,
	.write = real_write,
	.ethtool = real_ethtool,
};

static const struct hwcc_io_ops root_ops = {
	.read = real_read,
	.write = real_write,
	.ethtool = file_ethtool,
};

int hwcc_io_init(struct hwcc_io *io, const char *root)
{
	int a, b;

	memset(io, 0, sizeof(*io));
	if (!root || !strcmp(root, "/"))
		root = "";
	io->ops = *root ? &root_ops : &real_ops;
	if (strlen(root) >= sizeof(io->root))
		return -ENAMETOOLONG;
	strcpy(io->root, root);
	a = snprintf(io->sysfs, sizeof(io->sysfs), "%s/sys", root);
	b = snprintf(io->debugfs, sizeof(io->debugfs), "%s/sys/kernel/debug",
		     root);
	if (a < 0 || b < 0 || (size_t)a >= sizeof(io->sysfs) ||
	    (size_t)b >= sizeof(io->debugfs))
		return -ENAMETOOLONG;
	return 0;
}

/* ---- helpers --------------------------------------------------------- */

/* An unsigned decimal as the driver prints it ("%u\n", "%llu\n") */
static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || x > max || (*end && strcmp(end, "\n")))
		return -EINVAL;
	*v = x;
	return 0;
}

static int read_u64(const struct hwcc_io *io, const char *path, uint64_t max,
		    uint64_t *v)
{
	char buf[32];
	ssize_t n;

	n = io->ops->read(io, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse_u64(buf, max, v) ? -EBADMSG : 0;
}

/* The last path component of the link target of @path into @out */
static int link_base(const char *path, char *out, size_t len)
{
	char *real = realpath(path, NULL);
	const char *b;
	int err = 0;

	if (!real)
		return -errno;
	b = strrchr(real, '/');
	b = b ? b + 1 : real;
	if (strlen(b) >= len)
		err = -ENAMETOOLONG;
	else
		strcpy(out, b);
	free(real);
	return err;
}

/* Why a cc_params file or directory could not be used, in words */
static const char *cc_why(int e)
{
	switch (e) {
	case -ENOENT:
		return "no such file: debugfs not mounted, or the function may not change its congestion control (the driver makes cc_params only with the cc_query_allowed and cc_modify_allowed capabilities)";
	case -EPERM:
		return "refused: the kernel is locked down (debugfs files that can be written are, see /sys/kernel/security/lockdown)";
	case -EACCES:
		return "permission denied (debugfs and cc_params are root's)";
	case -EROFS:
		return "read-only file system (roceccd.service: add ReadWritePaths=-/sys/kernel/debug/mlx5 in a drop-in for [hw] apply)";
	case -ENODEV:
		return "the port is not affiliated to an mlx5 function";
	case -EBADMSG:
		return "not a number as the driver prints it";
	case -EINVAL:
		return "refused by the driver or the firmware (EINVAL)";
	default:
		return strerror(-e);
	}
}

/* ---- devices --------------------------------------------------------- */

/* Whether RDMA device @ib's parent is an mlx5 function; its name in @fn */
static bool ib_is_mlx5(const struct hwcc_io *io, const char *ib, char *fn,
		       size_t fnlen)
{
	char path[HWCC_PATH_MAX], drv[64];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/driver",
		 io->sysfs, ib);
	/* the PCI driver mlx5_core, or mlx5_core.sf for a subfunction */
	if (link_base(path, drv, sizeof(drv)) ||
	    strncmp(drv, "mlx5_core", 9) || (drv[9] && drv[9] != '.'))
		return false;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device",
		 io->sysfs, ib);
	return !link_base(path, fn, fnlen);
}

/*
 * Fill @d for port @port of @ib, whose parent function is @fn: the port's
 * netdev is the one of its GID 0; the cc_params are those of the netdev's
 * function (another one than @fn for the second port of a multi-port
 * device), or @fn's without a netdev.
 */
static void dev_fill(const struct hwcc_io *io, const char *ib,
		     unsigned int port, const char *fn, struct hwcc_dev *d)
{
	char path[HWCC_PATH_MAX];
	ssize_t n;

	memset(d, 0, sizeof(*d));
	snprintf(d->ibdev, sizeof(d->ibdev), "%s", ib);
	d->port = port;
	snprintf(d->fn, sizeof(d->fn), "%s", fn);
	snprintf(path, sizeof(path),
		 "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		 io->sysfs, ib, port);
	n = io->ops->read(io, path, d->netdev, sizeof(d->netdev));
	if (n > 0) {
		d->netdev[strcspn(d->netdev, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/class/net/%s/device",
			 io->sysfs, d->netdev);
		link_base(path, d->fn, sizeof(d->fn));
	} else {
		d->netdev[0] = '\0';
	}
	snprintf(d->cc_dir, sizeof(d->cc_dir), "%s/mlx5/%s/cc_params",
		 io->debugfs, d->fn);
	snprintf(d->cnt_dir, sizeof(d->cnt_dir),
		 "%s/class/infiniband/%s/ports/%u/hw_counters", io->sysfs, ib,
		 port);
}

/* The ports of @ib into @out from index @n on; the new count */
static size_t ib_ports(const struct hwcc_io *io, const char *ib,
		       const char *fn, struct hwcc_dev *out, size_t n,
		       size_t max)
{
	char path[HWCC_PATH_MAX];
	struct dirent *de;
	unsigned long p;
	char *end;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports",
		 io->sysfs, ib);
	dir = opendir(path);
	if (!dir)
		return n;
	while ((de = readdir(dir))) {
		p = strtoul(de->d_name, &end, 10);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end ||
		    p > 255)
			continue;
		if (n < max)
			dev_fill(io, ib, (unsigned int)p, fn, &out[n]);
		n++;
	}
	closedir(dir);
	return n;
}

int hwcc_discover(const struct hwcc_io *io, struct hwcc_dev *out,
		  size_t max)
{
	char path[HWCC_PATH_MAX], fn[64], ib[64];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband", io->sysfs);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		/* RDMA device names are shorter than IB_DEVICE_NAME_MAX (64) */
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(ib))
			continue;
		strcpy(ib, de->d_name);
		if (ib_is_mlx5(io, ib, fn, sizeof(fn)))
			n = ib_ports(io, ib, fn, out, n, max);
	}
	closedir(dir);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int hwcc_find(const struct hwcc_io *io, const char *name,
	      struct hwcc_dev *d, char *err, size_t errlen)
{
	struct hwcc_dev *all;
	size_t i, n;
	int r;

	all = calloc(HWCC_DEVS_MAX, sizeof(*all));
	if (!all)
		return -ENOMEM;
	r = hwcc_discover(io, all, HWCC_DEVS_MAX);
	n = r < 0 ? 0 : (size_t)r > HWCC_DEVS_MAX ? HWCC_DEVS_MAX : (size_t)r;
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].netdev, name))
			break;
	if (i == n)
		for (i = 0; i < n; i++)
			if (!strcmp(all[i].ibdev, name) && all[i].port == 1)
				break;
	if (i < n)
		*d = all[i];
	free(all);
	if (i < n)
		return 0;
	if (r < 0)
		msgf(err, errlen, "%s: no RDMA devices (%s/class/infiniband: %s)",
		    name, io->sysfs, strerror(-r));
	else
		msgf(err, errlen,
		    "%s: not the netdev or RDMA device of an mlx5 port", name);
	return -ENODEV;
}

/* ---- parameters ------------------------------------------------------ */

static int cc_read(const struct hwcc_io *io, const struct hwcc_dev *d,
		   unsigned int i, uint32_t *v)
{
	char path[FILE_PATH_MAX];
	uint64_t x;
	int e;

	snprintf(path, sizeof(path), "%s/%s", d->cc_dir, hwcc_files[i].name);
	e = read_u64(io, path, UINT32_MAX, &x);
	if (!e)
		*v = (uint32_t)x;
	return e;
}

/* Derive the rocecc view of the files read in @out */
static void params_view(struct hwcc_params *out)
{
	const struct hwcc_file *f;
	unsigned int i, id;

	for (i = 0; i < HWCC_NFILES; i++) {
		f = &hwcc_files[i];
		id = f->param;
		if (!id || !(out->fw_have & BIT(i)))
			continue;
		out->p.v[id] = out->fw[i];
		out->have |= BIT(id);
		if (rocecc_param_validate(id, out->fw[i]))
			out->out_of_range |= BIT(id);
		if (f->also >= 0 && (!(out->fw_have & BIT(f->also)) ||
				     out->fw[f->also] != f->also_val))
			out->unused |= BIT(id);
	}
}

int hwcc_read_params(const struct hwcc_io *io, const struct hwcc_dev *d,
		     struct hwcc_params *out, char *err, size_t errlen)
{
	int first = 0, e;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < HWCC_NFILES; i++) {
		e = cc_read(io, d, i, &out->fw[i]);
		out->fw_err[i] = e;
		if (!e)
			out->fw_have |= BIT(i);
		else if (!first && !(e == -ENOENT &&
				     hwcc_files[i].flags & HWCC_F_OPTIONAL))
			first = e;
	}
	params_view(out);
	if (out->fw_have)
		return 0;
	msgf(err, errlen, "%s port %u: %s: %s", d->ibdev, d->port, d->cc_dir,
	    cc_why(first));
	return first ? first : -ENOENT;
}

int hwcc_check(const struct rocecc_params *want, uint32_t mask, char *err,
	       size_t errlen)
{
	const struct rocecc_param_info *pi;
	unsigned int id;

	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (!(mask & BIT(id)))
			continue;
		pi = rocecc_param_info(id);
		if (rocecc_param_validate(id, want->v[id])) {
			msgf(err, errlen, "%s %u: out of range %u..%u %s",
			    pi->name, want->v[id], pi->min, pi->max, pi->unit);
			return -EINVAL;
		}
		if (hwcc_file_of(id) < 0 &&
		    want->v[id] != pi->def[ROCECC_PROFILE_MLX5]) {
			msgf(err, errlen,
			    "%s %u: the mlx5 firmware has no such parameter; only %u (rocecc's default) can run on the hardware",
			    pi->name, want->v[id],
			    pi->def[ROCECC_PROFILE_MLX5]);
			return -EINVAL;
		}
	}
	return 0;
}

size_t hwcc_plan(const struct hwcc_params *cur,
		 const struct rocecc_params *want, uint32_t mask,
		 struct hwcc_write *w)
{
	unsigned int i, id;
	size_t n = 0;
	bool known;

	for (i = 0; i < HWCC_NFILES; i++) {
		id = hwcc_files[i].param;
		if (!id || !(mask & BIT(id)))
			continue;
		known = (cur->have & BIT(id)) && !(cur->unused & BIT(id));
		if (known && cur->p.v[id] == want->v[id])
			continue;
		w[n].id = id;
		w[n].from = known ? cur->p.v[id] : 0;
		w[n].from_known = known;
		w[n].to = want->v[id];
		n++;
	}
	return n;
}

/* Write @v to file @i and read it back */
static int cc_write(const struct hwcc_io *io, const struct hwcc_dev *d,
		    unsigned int i, uint32_t v, char *err, size_t errlen)
{
	const char *name = hwcc_files[i].name;
	char path[FILE_PATH_MAX], buf[16];
	uint32_t back;
	int e, len;

	snprintf(path, sizeof(path), "%s/%s", d->cc_dir, name);
	len = snprintf(buf, sizeof(buf), "%u\n", v);
	e = io->ops->write(io, path, buf, (size_t)len);
	if (e) {
		msgf(err, errlen, "%s %u: writing %s: %s", name, v, path,
		    cc_why(e));
		return e;
	}
	e = cc_read(io, d, i, &back);
	if (e) {
		msgf(err, errlen, "%s %u: reading it back from %s: %s", name,
		    v, path, cc_why(e));
		return e;
	}
	if (back != v) {
		msgf(err, errlen,
		    "%s %u: written, but the firmware holds %u (%s)", name, v,
		    back, path);
		return -EIO;
	}
	return 0;
}

int hwcc_apply(const struct hwcc_io *io, const struct hwcc_dev *d,
	       const struct rocecc_params *want, uint32_t mask,
	       struct hwcc_write *done, size_t *ndone, char *err,
	       size_t errlen)
{
	struct hwcc_write plan[HWCC_NFILES_MAX];
	struct hwcc_params cur;
	size_t n, k;
	int e;

	*ndone = 0;
	e = hwcc_check(want, mask, err, errlen);
	if (e)
		return e;
	e = hwcc_read_params(io, d, &cur, err, errlen);
	if (e)
		return e;
	n = hwcc_plan(&cur, want, mask, plan);
	for (k = 0; k < n; k++) {
		e = cc_write(io, d, (unsigned int)hwcc_file_of(plan[k].id),
			     plan[k].to, err, errlen);
		if (e)
			return e;
		done[(*ndone)++] = plan[k];
	}
	return (int)n;
}

/* ---- counters -------------------------------------------------------- */

static void read_hw_counters(const struct hwcc_io *io,
			     const struct hwcc_dev *d,
			     struct hwcc_counters *out)
{
	char path[FILE_PATH_MAX];
	unsigned int i, s;
	int e, first = 0;

	for (i = 0; i < HWCC_NSTATS; i++) {
		s = hwcc_stats[i].stat;
		snprintf(path, sizeof(path), "%s/%s", d->cnt_dir,
			 hwcc_stats[i].name);
		e = read_u64(io, path, UINT64_MAX, &out->stat[s]);
		if (!e)
			out->stat_have |= BIT(s);
		else if (!first)
			first = e;
	}
	out->stat_err = out->stat_have ? 0 : first;
}

/* "rx_prio3_pause" -> priority 3, HWCC_PC_RX_PAUSE; false if not ours */
static bool prio_stat_parse(const char *name, unsigned int *prio,
			    unsigned int *pc)
{
	const struct hwcc_prio_stat *ps;
	unsigned int k;

	if ((name[0] != 'r' && name[0] != 't') || name[1] != 'x' ||
	    strncmp(name + 2, "_prio", 5) || name[7] < '0' || name[7] > '7' ||
	    name[8] != '_')
		return false;
	for (k = 0; k < __HWCC_PC_MAX; k++) {
		ps = &hwcc_prio_stats[k];
		if (!strncmp(name, ps->dir, 2) && !strcmp(name + 9, ps->what)) {
			*prio = (unsigned int)(name[7] - '0');
			*pc = k;
			return true;
		}
	}
	return false;
}

static void read_eth(const struct hwcc_io *io, const struct hwcc_dev *d,
		     struct hwcc_counters *out)
{
	struct ethstats st;
	unsigned int prio, pc;
	size_t i;
	int e;

	if (!d->netdev[0]) {
		out->eth_err = -ENODEV;
		return;
	}
	e = io->ops->ethtool(io, d->netdev, &st);
	if (e) {
		out->eth_err = e;
		return;
	}
	for (i = 0; i < st.n; i++)
		if (prio_stat_parse(st.name[i], &prio, &pc)) {
			out->pc[prio][pc] = st.val[i];
			out->pc_have[prio] |= BIT(pc);
		}
	out->have_storm =
		!ethstats_get(&st, HWCC_ETH_STORM_WARNING,
			      &out->storm_warning) &&
		!ethstats_get(&st, HWCC_ETH_STORM_ERROR, &out->storm_error);
	ethstats_free(&st);
}

int hwcc_read_counters(const struct hwcc_io *io, const struct hwcc_dev *d,
		       struct hwcc_counters *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	read_hw_counters(io, d, out);
	read_eth(io, d, out);
	if (!out->stat_err || !out->eth_err)
		return 0;
	msgf(err, errlen, "%s port %u: %s: %s; netdev %s: %s", d->ibdev,
	    d->port, d->cnt_dir, strerror(-out->stat_err),
	    d->netdev[0] ? d->netdev : "(none)", strerror(-out->eth_err));
	return out->stat_err;
}

void hwcc_pfc(const struct hwcc_counters *c, unsigned int prio,
	      struct hwcc_pfc *out)
{
	const uint64_t *v = c->pc[prio % HWCC_PRIOS];
	uint32_t have = c->pc_have[prio % HWCC_PRIOS];

	memset(out, 0, sizeof(*out));
	if (prio >= HWCC_PRIOS)
		return;
	out->listed = have & BIT(HWCC_PC_RX_PAUSE) &&
		      have & BIT(HWCC_PC_TX_PAUSE);
	out->indications = v[HWCC_PC_RX_PAUSE];
	out->requests = v[HWCC_PC_TX_PAUSE];
	out->have_paused_ns = have & BIT(HWCC_PC_RX_PAUSE_DURATION);
	/* microseconds; saturate rather than wrap (584 000 years) */
	out->paused_ns = v[HWCC_PC_RX_PAUSE_DURATION] > UINT64_MAX / 1000 ?
			 UINT64_MAX : v[HWCC_PC_RX_PAUSE_DURATION] * 1000;
	out->have_tx = have & BIT(HWCC_PC_TX_PACKETS) &&
		       have & BIT(HWCC_PC_TX_BYTES);
	out->tx_packets = v[HWCC_PC_TX_PACKETS];
	out->tx_bytes = v[HWCC_PC_TX_BYTES];
}
