// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's pin directory check (daemon/roceccd/pins.c) on
 * real directories and files under a scratch directory: a root-owned
 * 0700 directory with 0600 pins is adopted; a symlink, a file, a
 * directory owned by someone else or writable by its group or everyone,
 * and pins likewise, are refused with the path named. As root the foreign
 * owner is uid 4242 (chown); otherwise the test's own uid plays it, the
 * daemon being told it runs as uid 4242 for that check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "roceccd/roceccd.h"
#include "tap.h"

static const char *const pins[] = { "flows", "stats" };
static char top[] = "/tmp/test_pins.XXXXXX";
static uid_t daemon_uid;	/* as the daemon runs, for the next check */
static char dir[600], why[700];

/* Make @path foreign: chown it away (root), or run the next check as 4242. */
static void foreign(const char *path)
{
	if (geteuid())
		daemon_uid = 4242;
	else if (lchown(path, 4242, 4242))
		tap_diag("lchown %s: %s", path, strerror(errno));
}

/* A fresh pin directory @name with mode @mode, and pins of mode 0600. */
static const char *mkpin(const char *name, mode_t mode, unsigned int npins)
{
	char p[700];
	unsigned int i;

	snprintf(dir, sizeof(dir), "%s/%s", top, name);
	if (mkdir(dir, 0700) || chmod(dir, mode))
		tap_diag("mkdir %s: %s", dir, strerror(errno));
	for (i = 0; i < npins; i++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s", dir, pins[i]);
		f = fopen(p, "w");
		if (!f || fclose(f) || chmod(p, 0600))
			tap_diag("create %s: %s", p, strerror(errno));
	}
	return dir;
}

static int check(const char *d)
{
	int err;

	why[0] = '\0';
	err = rd_pin_dir_check(d, pins, 2, daemon_uid, why, sizeof(why));
	daemon_uid = geteuid();
	return err;
}

static void good(const char *d, const char *what)
{
	int err = check(d);

	tap_ok(err == 0, "%s: adopted", what);
	if (err)
		tap_diag("%d: %s", err, why);
}

/* Refused, and the reason names @path and says @reason. */
static void bad(const char *d, const char *path, const char *reason,
		const char *what)
{
	int err = check(d);

	tap_ok(err == -EPERM, "%s: refused (%d)", what, err);
	tap_ok(strstr(why, path) && strstr(why, reason),
	       "%s: the reason names '%s' and says '%s': %s", what, path,
	       reason, why);
}

static void test_dirs(void)
{
	char link[700], file[700];

	good(mkpin("fresh", 0700, 0), "new root-owned 0700 directory, no pins");
	good(mkpin("pinned", 0700, 2), "0700 directory with two 0600 pins");
	good(mkpin("readable", 0755, 1), "0755 directory (others may read)");
	mkpin("group", 0770, 1);
	bad(dir, dir, "writable by its group", "0770 directory");
	mkpin("world", 0777, 1);
	bad(dir, dir, "writable by everyone", "0777 directory");
	mkpin("sticky", 01777, 0);
	bad(dir, dir, "(mode 1777)", "1777 directory (as bpffs' root)");
	mkpin("theirs", 0700, 1);
	foreign(dir);
	bad(dir, dir, "owned by uid", "directory owned by another user");

	snprintf(link, sizeof(link), "%s/link", top);
	mkpin("target", 0700, 1);
	if (symlink(dir, link))
		tap_diag("symlink: %s", strerror(errno));
	bad(link, link, "is a symlink", "symlink to a good directory");

	snprintf(file, sizeof(file), "%s/file", top);
	fclose(fopen(file, "w"));
	chmod(file, 0600);
	bad(file, file, "is not a directory", "a regular file");

	snprintf(file, sizeof(file), "%s/absent", top);
	tap_ok(check(file) == -ENOENT && strstr(why, file),
	       "a directory that does not exist: -ENOENT, named: %s", why);
}

static void test_pins(void)
{
	char p[700];

	mkpin("pin_theirs", 0700, 2);
	snprintf(p, sizeof(p), "%s/flows", dir);
	foreign(p);
	/* not root: the whole tree is "foreign", the directory named first */
	bad(dir, geteuid() ? dir : p, "owned by uid",
	    "pin 'flows' owned by another user");

	mkpin("pin_world", 0700, 2);
	snprintf(p, sizeof(p), "%s/stats", dir);
	chmod(p, 0666);
	bad(dir, p, "writable by everyone", "pin 'stats' mode 0666");

	mkpin("pin_group", 0700, 1);
	snprintf(p, sizeof(p), "%s/flows", dir);
	chmod(p, 0620);
	bad(dir, p, "writable by its group", "pin 'flows' mode 0620");

	mkpin("pin_link", 0700, 0);
	snprintf(p, sizeof(p), "%s/flows", dir);
	if (symlink("/tmp", p))
		tap_diag("symlink: %s", strerror(errno));
	bad(dir, p, "is a symlink", "pin 'flows' a symlink");

	mkpin("pin_dir", 0700, 1);
	snprintf(p, sizeof(p), "%s/stats", dir);
	mkdir(p, 0700);
	bad(dir, p, "is not a regular file", "pin 'stats' a directory");

	mkpin("pin_other", 0700, 2);
	snprintf(p, sizeof(p), "%s/unrelated", dir);
	fclose(fopen(p, "w"));
	chmod(p, 0666);
	if (!geteuid())
		foreign(p);
	good(dir, "a file roceccd does not open is not its business");
}

int main(void)
{
	char cmd[100];

	if (!mkdtemp(top))
		return tap_skip_all("mkdtemp: %s", strerror(errno));
	daemon_uid = geteuid();
	tap_diag("scratch %s, %s", top, geteuid() ? "not root: the test's uid is the foreign owner" : "root: uid 4242 is the foreign owner");
	test_dirs();
	test_pins();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		tap_diag("could not remove %s", top);
	return tap_done();
}
