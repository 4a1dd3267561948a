// SPDX-License-Identifier: GPL-2.0
/*
 * A fake mlx5 driver for the tests of hwcc.c: see mlx5fix.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlx5fix.h"

#define PATH	768

/* ---- files ----------------------------------------------------------- */

/* A path into @buf (PATH bytes); a test fixture gives up on a long one */
static void pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH)
		abort();
}

static int mkdir_p(const char *path)
{
	char tmp[PATH];
	char *p;

	pathf(tmp, "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int put(const char *path, mode_t mode, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put(const char *path, mode_t mode, const char *fmt, ...)
{
	va_list ap;
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) ? -errno : 0;
}

static int link_to(const char *target, const char *path)
{
	return symlink(target, path) && errno != EEXIST ? -errno : 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* ---- the fake driver: cc_params writes ------------------------------- */

/* kstrtou32(s, 0, &v) as lib/kstrtox.c does it: 0 or -EINVAL / -ERANGE */
static int k_strtou32(const char *s, uint32_t *v)
{
	unsigned int base = 10, d, digits = 0;
	uint64_t x = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		base = 8;
		if ((s[1] == 'x' || s[1] == 'X') &&
		    strchr("0123456789abcdefABCDEF", s[2]) && s[2]) {
			base = 16;
			s += 2;
		}
	}
	for (; *s; s++, digits++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			break;
		x = x * base + d;
		if (x > UINT32_MAX)
			return -ERANGE;
	}
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int file_index(const char *name)
{
	const struct hwcc_file *f;
	unsigned int i;

	for (i = 0; (f = hwcc_file(i)); i++)
		if (!strcmp(f->name, name))
			return (int)i;
	return -1;
}

static const struct mlx5fix_fault *fault_of(const struct mlx5fix *fx,
					    const char *path, bool write)
{
	const char *base = strrchr(path, '/');
	unsigned int k;

	base = base ? base + 1 : path;
	for (k = 0; k < fx->nfault; k++)
		if (!strcmp(fx->fault[k].file, base) &&
		    (write ? fx->fault[k].on_write : fx->fault[k].on_read))
			return &fx->fault[k];
	return NULL;
}

/* Whether @path is in a cc_params directory; its file index in *@i */
static bool in_cc_params(const char *path, int *i)
{
	const char *base = strrchr(path, '/');

	if (!base || base - path < 10 || strncmp(base - 10, "/cc_params", 10))
		return false;
	*i = file_index(base + 1);
	return true;
}

/* Store @v in file @i of the cc_params directory of @path */
static int fw_store(const char *path, unsigned int i, uint32_t v)
{
	const struct hwcc_file *f = hwcc_file(i);
	char p[PATH];
	int n = (int)(strrchr(path, '/') - path);

	pathf(p, "%.*s/%s", n, path, f->name);
	if (access(p, F_OK))
		return 0;	/* a field without a file (capability) */
	return put(p, 0600, "%u\n", v);
}

/*
 * What mlx5_ib_set_cc_params() sends for file @i and value @v: the field,
 * and the fields under the same select bit.
 */
static int fw_modify(struct mlx5fix *fx, const char *path, unsigned int i,
		     uint32_t v)
{
	const struct hwcc_file *f = hwcc_file(i), *g;
	unsigned int j;
	int e;

	if (f->bits < 32)
		v &= (1U << f->bits) - 1;
	if (fx->clamp_file == (int)i && v > fx->clamp_max)
		v = fx->clamp_max;
	e = fw_store(path, i, v);
	for (j = 0; !e && (g = hwcc_file(j)); j++)
		if (j != i && g->node == f->node && g->sel == f->sel)
			e = fw_store(path, j, (int)j == f->also ?
					      f->also_val : 0);
	return e;
}

int mlx5fix_write(struct mlx5fix *fx, const char *path, const char *buf,
		  size_t len)
{
	const struct mlx5fix_fault *ft;
	char lbuf[11];
	uint32_t v;
	int i;

	if (!in_cc_params(path, &i)) {
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return -errno;
		n = write(fd, buf, len);
		close(fd);
		return n == (ssize_t)len ? 0 : -EIO;
	}
	if (i < 0 || access(path, F_OK))
		return -ENOENT;
	/* set_param(): at most sizeof(lbuf), the last byte cut */
	if (len > sizeof(lbuf))
		return -EINVAL;
	memset(lbuf, 0, sizeof(lbuf));
	memcpy(lbuf, buf, len);
	lbuf[sizeof(lbuf) - 1] = '\0';
	if (k_strtou32(lbuf, &v))
		return -EINVAL;
	ft = fault_of(fx, path, true);
	if (ft)
		return ft->err;
	fx->writes++;
	return fw_modify(fx, path, (unsigned int)i, v);
}

/* ---- the fake ops ---------------------------------------------------- */

static ssize_t fix_read(const struct hwcc_io *io, const char *path,
			char *buf, size_t len)
{
	const struct mlx5fix *fx = io->ctx;
	const struct mlx5fix_fault *ft = fault_of(fx, path, false);

	if (ft)
		return ft->err;
	return fx->base->read(io, path, buf, len);
}

static int fix_write(const struct hwcc_io *io, const char *path,
		     const char *buf, size_t len)
{
	return mlx5fix_write(io->ctx, path, buf, len);
}

/* the test root's ethtool files, as the library reads them */
static int fix_ethtool(const struct hwcc_io *io, const char *ifname,
		       struct ethstats *st)
{
	const struct mlx5fix *fx = io->ctx;

	return fx->base->ethtool(io, ifname, st);
}

static const struct hwcc_io_ops fix_ops = {
	.read = fix_read,
	.write = fix_write,
	.ethtool = fix_ethtool,
};

/* ---- the tree -------------------------------------------------------- */

int mlx5fix_init(struct mlx5fix *fx)
{
	const char *tmp = getenv("TMPDIR");
	char root[sizeof(fx->root)];

	snprintf(root, sizeof(root), "%s/mlx5fix.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -errno;
	return mlx5fix_init_at(fx, root);
}

int mlx5fix_init_at(struct mlx5fix *fx, const char *dir)
{
	char p[PATH];
	int e;

	memset(fx, 0, sizeof(*fx));
	fx->clamp_file = -1;
	if (strlen(dir) >= sizeof(fx->root))
		return -ENAMETOOLONG;
	strcpy(fx->root, dir);
	e = hwcc_io_init(&fx->io, fx->root);
	if (e)
		return e;
	fx->base = fx->io.ops;
	fx->io.ops = &fix_ops;
	fx->io.ctx = fx;
	pathf(p, "%s/sys/class/infiniband", fx->root);
	e = mkdir_p(p);
	pathf(p, "%s/sys/class/net", fx->root);
	e = e ? e : mkdir_p(p);
	pathf(p, "%s/sys/kernel/debug/mlx5", fx->root);
	e = e ? e : mkdir_p(p);
	pathf(p, "%s/ethtool", fx->root);
	return e ? e : mkdir_p(p);
}

void mlx5fix_fini(struct mlx5fix *fx)
{
	if (fx->root[0])
		nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fx->root[0] = '\0';
}

/* The function's device directory and its driver link */
static int add_function(struct mlx5fix *fx, const struct mlx5fix_dev *d,
			char *fdir)
{
	const char *drv = d->sf ? "auxiliary/drivers/mlx5_core.sf" :
				  "pci/drivers/mlx5_core";
	char p[PATH], t[PATH];
	int e;

	if (d->sf)
		pathf(fdir, "%s/sys/devices/pci0000:00/0000:3b:00.0/%s",
			 fx->root, d->fn);
	else
		pathf(fdir, "%s/sys/devices/pci0000:00/%s", fx->root,
			 d->fn);
	pathf(t, "%s/sys/bus/%s", fx->root, drv);
	pathf(p, "%s/driver", fdir);
	e = mkdir_p(fdir);
	e = e ? e : mkdir_p(t);
	return e ? e : link_to(t, p);
}

/* The RDMA device under @fdir and its class link; its directory in @ib */
static int add_ibdev(struct mlx5fix *fx, const char *fdir, const char *name,
		     char *ib)
{
	char p[PATH];
	int e;

	pathf(ib, "%s/infiniband/%s", fdir, name);
	e = mkdir_p(ib);
	pathf(p, "%s/device", ib);
	e = e ? e : link_to(fdir, p);
	pathf(p, "%s/sys/class/infiniband/%s", fx->root, name);
	return e ? e : link_to(ib, p);
}

/* A port: hw_counters as counters.c lists them, and GID 0's netdev */
static int add_port(const struct mlx5fix_dev *d, const char *ib,
		    unsigned int port)
{
	static const char *const q_cnts[] = {
		"rx_write_requests", "rx_read_requests", "rx_atomic_requests",
		"out_of_buffer", "out_of_sequence", "duplicate_request",
		"local_ack_timeout_err",
	};
	char p[PATH];
	unsigned int k;
	int e;

	pathf(p, "%s/ports/%u/hw_counters", ib, port);
	e = mkdir_p(p);
	for (k = 0; !e && k < sizeof(q_cnts) / sizeof(q_cnts[0]); k++) {
		pathf(p, "%s/ports/%u/hw_counters/%s", ib, port,
			 q_cnts[k]);
		e = put(p, 0444, "0\n");
	}
	for (k = 0; !e && !d->no_cong_counters && hwcc_stat(k); k++) {
		pathf(p, "%s/ports/%u/hw_counters/%s", ib, port,
			 hwcc_stat(k)->name);
		e = put(p, 0444, "0\n");
	}
	pathf(p, "%s/ports/%u/hw_counters/lifespan", ib, port);
	e = e ? e : put(p, 0644, "10\n");
	if (e || !d->netdev)
		return e;
	pathf(p, "%s/ports/%u/gid_attrs/ndevs", ib, port);
	e = mkdir_p(p);
	pathf(p, "%s/ports/%u/gid_attrs/ndevs/0", ib, port);
	return e ? e : put(p, 0444, "%s\n", d->netdev);
}

/* The netdev under @fdir, its class link and its ethtool statistics */
static int add_netdev(struct mlx5fix *fx, const struct mlx5fix_dev *d,
		      const char *fdir)
{
	char p[PATH], nd[PATH], name[ETH_GSTRING_LEN];
	unsigned int prio, pc;
	FILE *f;
	int e;

	pathf(nd, "%s/net/%s", fdir, d->netdev);
	e = mkdir_p(nd);
	pathf(p, "%s/device", nd);
	e = e ? e : link_to(fdir, p);
	pathf(p, "%s/sys/class/net/%s", fx->root, d->netdev);
	e = e ? e : link_to(nd, p);
	pathf(p, "%s/ethtool/%s", fx->root, d->netdev);
	f = e ? NULL : fopen(p, "we");
	if (!f)
		return e ? e : -errno;
	/* en_stats.c: the port counters, then per prio traffic, then PFC */
	fprintf(f, "rx_packets 0\ntx_packets 0\nrx_pause_ctrl_phy 0\n");
	for (prio = 0; prio < HWCC_PRIOS; prio++)
		for (pc = 0; hwcc_prio_stat(pc); pc++) {
			if (hwcc_prio_stat(pc)->flags & HWCC_PCF_PFC)
				continue;
			hwcc_prio_stat_name(pc, prio, name, sizeof(name));
			fprintf(f, "%s 0\n", name);
		}
	for (prio = 0; prio < HWCC_PRIOS; prio++)
		for (pc = 0; d->pfc_en & (1U << prio) && hwcc_prio_stat(pc);
		     pc++) {
			if (!(hwcc_prio_stat(pc)->flags & HWCC_PCF_PFC))
				continue;
			hwcc_prio_stat_name(pc, prio, name, sizeof(name));
			fprintf(f, "%s 0\n", name);
		}
	if (d->storm)
		fprintf(f, "%s 0\n%s 0\n", HWCC_ETH_STORM_WARNING,
			HWCC_ETH_STORM_ERROR);
	return fclose(f) ? -errno : 0;
}

/* cc_params with the firmware defaults (rocecc's mlx5 profile) */
static int add_cc_params(struct mlx5fix *fx, const struct mlx5fix_dev *d)
{
	const struct hwcc_file *f;
	char p[PATH];
	unsigned int i;
	uint32_t v;
	int e;

	pathf(p, "%s/sys/kernel/debug/mlx5/%s/cc_params",
		 fx->root, d->fn);
	e = mkdir_p(p);
	for (i = 0; !e && (f = hwcc_file(i)); i++) {
		if (f->flags & HWCC_F_OPTIONAL && !d->general)
			continue;
		v = f->param ?
		    rocecc_param_info(f->param)->def[ROCECC_PROFILE_MLX5] : 0;
		pathf(p, "%s/sys/kernel/debug/mlx5/%s/cc_params/%s",
			 fx->root, d->fn, f->name);
		e = put(p, 0600, "%u\n", v);
	}
	return e;
}

int mlx5fix_add(struct mlx5fix *fx, const struct mlx5fix_dev *d)
{
	char fdir[PATH], ib[PATH], p[PATH];
	int e;

	e = add_function(fx, d, fdir);
	e = e ? e : add_ibdev(fx, fdir, d->ibdev, ib);
	e = e ? e : add_port(d, ib, d->port ? d->port : 1);
	if (!e && d->netdev)
		e = add_netdev(fx, d, fdir);
	/* the function's own debugfs directory exists without cc_params */
	pathf(p, "%s/sys/kernel/debug/mlx5/%s", fx->root, d->fn);
	e = e ? e : mkdir_p(p);
	if (!e && !d->no_cc)
		e = add_cc_params(fx, d);
	return e;
}

int mlx5fix_add_other(struct mlx5fix *fx, const char *ibdev,
		      const char *driver)
{
	char fdir[PATH], ib[PATH], p[PATH], t[PATH];
	int e;

	if (!driver) {
		/* rxe: a virtual device, no parent */
		pathf(ib, "%s/sys/devices/virtual/infiniband/%s",
			 fx->root, ibdev);
		e = mkdir_p(ib);
		pathf(p, "%s/sys/class/infiniband/%s", fx->root,
			 ibdev);
		e = e ? e : link_to(ib, p);
	} else {
		pathf(fdir, "%s/sys/devices/pci0000:00/%s",
			 fx->root, ibdev);
		pathf(t, "%s/sys/bus/pci/drivers/%s", fx->root,
			 driver);
		pathf(p, "%s/driver", fdir);
		e = mkdir_p(fdir);
		e = e ? e : mkdir_p(t);
		e = e ? e : link_to(t, p);
		e = e ? e : add_ibdev(fx, fdir, ibdev, ib);
	}
	pathf(p, "%s/ports/1/hw_counters", ib);
	return e ? e : mkdir_p(p);
}

/* ---- faults and counters --------------------------------------------- */

int mlx5fix_fault(struct mlx5fix *fx, const char *file, int err,
		  bool on_read, bool on_write)
{
	struct mlx5fix_fault *ft;

	if (fx->nfault == MLX5FIX_FAULTS)
		return -ENOSPC;
	ft = &fx->fault[fx->nfault++];
	snprintf(ft->file, sizeof(ft->file), "%s", file);
	ft->err = err;
	ft->on_read = on_read;
	ft->on_write = on_write;
	return 0;
}

int mlx5fix_clamp(struct mlx5fix *fx, const char *file, uint32_t max)
{
	fx->clamp_file = file_index(file);
	fx->clamp_max = max;
	return fx->clamp_file < 0 ? -ENOENT : 0;
}

int mlx5fix_set_stat(struct mlx5fix *fx, const char *ibdev,
		     unsigned int port, const char *name, uint64_t v)
{
	char p[PATH];

	pathf(p, "%s/sys/class/infiniband/%s/ports/%u/hw_counters/%s",
		 fx->root, ibdev, port, name);
	if (access(p, F_OK))
		return -ENOENT;
	return put(p, 0444, "%llu\n", (unsigned long long)v);
}

int mlx5fix_set_eth(struct mlx5fix *fx, const char *netdev,
		    const char *name, uint64_t v)
{
	struct ethstats st;
	char p[PATH], t[PATH];
	int e, found = 0;
	size_t i;
	FILE *f;

	e = fix_ethtool(&fx->io, netdev, &st);
	if (e)
		return e;
	/* a new file renamed over the old one: readers see one or the other */
	pathf(p, "%s/ethtool/.%s", fx->root, netdev);
	f = fopen(p, "we");
	for (i = 0; f && i < st.n; i++) {
		if (!strcmp(st.name[i], name)) {
			st.val[i] = v;
			found = 1;
		}
		fprintf(f, "%s %llu\n", st.name[i],
			(unsigned long long)st.val[i]);
	}
	ethstats_free(&st);
	if (!f || fclose(f))
		return -EIO;
	pathf(t, "%s/ethtool/%s", fx->root, netdev);
	if (rename(p, t))
		return -errno;
	return found ? 0 : -ENOENT;
}
