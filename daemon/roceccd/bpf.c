// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: flowmon's BPF object, loaded with its flow table pinned (so a
 * restarted daemon carries on with every flow's counters).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"
#include "roceccd.h"

/*
 * The programs, with the maps that hold what was measured ("flows",
 * "stats" and "pending") pinned in the configured pin_dir (default /sys/fs/bpf/rocecc):
 * a restarted daemon finds them there and carries on with every flow's
 * counters and histograms (Prometheus sees no counter reset); the QP names
 * come back with the first poll. The pins outlive the daemon on purpose
 * (remove the directory to start afresh). Pinned maps of another layout
 * (an upgrade changed struct flowmon_flow) cannot be reused: they are
 * removed with a warning, and counting starts afresh. An existing
 * directory whose pins could have been planted by someone else
 * (pins.c) is refused: the daemon does not start.
 */
static const char *const rd_pinned_maps[] = { "flows", "stats", "pending" };

static void rd_unpin(const char *dir)
{
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(rd_pinned_maps) / sizeof(rd_pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rd_pinned_maps[i]);
		unlink(path);
	}
}

static struct flowmon *rd_bpf_open(struct rd *rd, const char *dir)
{
	struct flowmon *skel = flowmon__open();
	char path[512];
	size_t i;
	int err;

	if (!skel)
		return NULL;
	for (i = 0; dir[0] && i < sizeof(rd_pinned_maps) / sizeof(rd_pinned_maps[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj,
							rd_pinned_maps[i]);

		snprintf(path, sizeof(path), "%s/%s", dir, rd_pinned_maps[i]);
		if (!m || bpf_map__set_pin_path(m, path)) {
			flowmon__destroy(skel);
			errno = EINVAL;
			return NULL;
		}
	}
	err = flowmon__load(skel);
	if (err) {
		flowmon__destroy(skel);
		errno = -err;
		return NULL;
	}
	(void)rd;
	return skel;
}

/*
 * What the loader lacks of CAP_BPF, CAP_PERFMON (the verifier's rules for
 * unprivileged loaders reject flowmon's map-value arithmetic) and
 * CAP_NET_ADMIN (TC programs and their attachment), in words into @buf;
 * "" if it has them all. CAP_SYS_ADMIN stands in for the first two.
 */
static const char *rd_caps_missing(char *buf, size_t n)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint64_t eff;
	size_t len = 0;

	buf[0] = '\0';
	if (syscall(SYS_capget, &h, d))
		return buf;
	eff = (uint64_t)d[1].effective << 32 | d[0].effective;
#define RD_HAS(c) (eff & (1ULL << (c)))
	if (!RD_HAS(CAP_BPF) && !RD_HAS(CAP_SYS_ADMIN))
		len += (size_t)snprintf(buf + len, n - len, " CAP_BPF");
	if (!RD_HAS(CAP_PERFMON) && !RD_HAS(CAP_SYS_ADMIN) && len < n)
		len += (size_t)snprintf(buf + len, n - len, " CAP_PERFMON");
	if (!RD_HAS(CAP_NET_ADMIN) && len < n)
		snprintf(buf + len, n - len, " CAP_NET_ADMIN");
#undef RD_HAS
	return buf;
}

int rd_bpf_load(struct rd *rd)
{
	const char *dir = rd->conf.pin_dir;
	struct flowmon_key k, *prev = NULL;
	struct statfs sfs;
	unsigned int n = 0;
	bool existed;
	char path[512], why[600], caps[64];
	int err;

	rd->pinned[0] = '\0';
	if (dir[0]) {
		if (mkdir(dir, 0700) && errno != EEXIST) {
			err = -errno;
			rd_log(LOG_ERR_, "pin_dir: cannot create '%s': %s%s", dir,
			       strerror(-err), err == -EROFS ?
			       " (under systemd: in ReadWritePaths=, created by ExecStartPre=)" : "");
			return err;
		}
		err = rd_pin_dir_check(dir, rd_pinned_maps,
				       sizeof(rd_pinned_maps) / sizeof(rd_pinned_maps[0]),
				       geteuid(), why, sizeof(why));
		if (err) {
			rd_log(LOG_ERR_, "pin_dir: refusing the pins in '%s': %s, so someone else could have planted its maps; remove it (rm -r %s), make it root's with mode 0700, or set pin_dir = none",
			       dir, why, dir);
			return err;
		}
		if (statfs(dir, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
			rd_log(LOG_ERR_, "pin_dir: '%s' is not on a BPF filesystem (mount -t bpf bpf /sys/fs/bpf, or pin_dir = none)",
			       dir);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/flows", dir);
		existed = !access(path, F_OK);
		rd->skel = rd_bpf_open(rd, dir);
		/* EINVAL: libbpf found them incompatible; not EPERM/EACCES */
		if (!rd->skel && existed && errno == EINVAL) {
			rd_log(LOG_WARN_, "pinned maps in %s do not fit this roceccd (%s): removed, flows are counted afresh",
			       dir, strerror(errno));
			rd_unpin(dir);
			existed = false;
			rd->skel = rd_bpf_open(rd, dir);
		}
		if (rd->skel) {
			snprintf(rd->pinned, sizeof(rd->pinned), "%s", dir);
			while (existed && !bpf_map_get_next_key(
					bpf_map__fd(rd->skel->maps.flows), prev, &k) &&
			       n < 4 * FLOWMON_MAX_FLOWS) {
				prev = &k;
				n++;
			}
			if (existed)
				rd_log(LOG_INFO_, "adopted %u flows pinned in %s", n, dir);
		}
	} else {
		rd->skel = rd_bpf_open(rd, "");
	}
	if (!rd->skel) {
		err = -errno;
		rd_caps_missing(caps, sizeof(caps));
		if (caps[0])
			rd_log(LOG_ERR_, "cannot load the flowmon BPF programs: %s: missing capabilities:%s (it needs CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN)",
			       strerror(-err), caps);
		else
			rd_log(LOG_ERR_, "cannot load the flowmon BPF programs: %s (kernel >= 5.17?)",
			       strerror(-err));
		return err;
	}
	rd_events_open(rd);	/* without: new QPs wait for the next poll */
	return 0;
}
