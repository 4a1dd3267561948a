// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: whether the maps pinned in an existing pin directory can be
 * adopted. A restarted daemon takes over the flow table it finds pinned
 * there (bpf.c); a map planted by someone else would then feed /metrics
 * and, through the "qps" names, whatever it holds. So the directory must
 * be a real directory (not a symlink), owned by root (or by the daemon's
 * own user), writable by no one else; and so must every pin in it that
 * roceccd would open. Where /sys/fs/bpf is world-writable (bpffs' default
 * mode is 1777), any user can create the directory before roceccd first
 * runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "roceccd.h"

/* One object: @what @path, lstat'ed into @st, of the wanted @kind. */
static int rd_pin_trust(const char *what, const char *path,
			const struct stat *st, mode_t kind, uid_t euid,
			char *why, size_t n)
{
	if (S_ISLNK(st->st_mode)) {
		snprintf(why, n, "%s '%s' is a symlink", what, path);
		return -EPERM;
	}
	if ((st->st_mode & S_IFMT) != kind) {
		snprintf(why, n, "%s '%s' is not a %s", what, path,
			 kind == S_IFDIR ? "directory" : "regular file");
		return -EPERM;
	}
	if (st->st_uid != 0 && st->st_uid != euid) {
		snprintf(why, n, "%s '%s' is owned by uid %u, not root",
			 what, path, (unsigned int)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, n, "%s '%s' is writable by %s (mode %04o)", what,
			 path, st->st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int rd_pin_dir_check(const char *dir, const char *const *pins, size_t npins,
		     uid_t euid, char *why, size_t n)
{
	char path[512];
	struct stat st;
	size_t i;
	int err;

	if (lstat(dir, &st)) {
		err = -errno;
		snprintf(why, n, "'%s': %s", dir, strerror(errno));
		return err;
	}
	err = rd_pin_trust("directory", dir, &st, S_IFDIR, euid, why, n);
	for (i = 0; !err && i < npins; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i]);
		if (lstat(path, &st)) {
			if (errno == ENOENT)
				continue;
			err = -errno;
			snprintf(why, n, "'%s': %s", path, strerror(errno));
			return err;
		}
		err = rd_pin_trust("pin", path, &st, S_IFREG, euid, why, n);
	}
	return err;
}
