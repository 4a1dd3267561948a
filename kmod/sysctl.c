// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: sysctl view of the parameter sets.
 *
 *   net.rocecc.default.<param>   the set devices attached later start with
 *   net.rocecc.<dev>.<param>     the set of attached device <dev>
 *   net.rocecc.{default,<dev>}.profile
 *
 * <param> is every parameter of include/rocecc/params.h by its mlx5 name
 * (rp_ai_rate, np_cnp_dscp, ...), a decimal u32 in the unit that table
 * gives. A value outside the parameter's range, a negative number or
 * anything that is not a number is refused with EINVAL and changes
 * nothing.
 *
 * "profile" reads "mlx5" or "paper" when the set equals that profile
 * exactly, else "custom"; writing "mlx5" or "paper" loads the whole profile
 * into the set (anything else: EINVAL).
 *
 * The files only view the store in dev.c that generic netlink uses too: a
 * value written here is what ROCECC_CMD_PARAM_GET returns, and a change
 * sends ROCECC_CMD_PARAM_CHANGED like a netlink change does. A renamed
 * device's directory follows its new name (dev.c). The files live in the
 * initial network namespace only, mode 0644: everybody reads, root (or
 * CAP_NET_ADMIN) writes.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "kcompat.h"
#include "rocecc.h"

/*
 * One file per parameter and "profile"; the table has one more, empty,
 * entry that only 6.1 reads (rocecc_register_net_sysctl()).
 */
#define ROCECC_SYSCTL_PROFILE	ROCECC_PARAM_MAX
#define ROCECC_SYSCTL_FILES	(ROCECC_PARAM_MAX + 1)
#define ROCECC_SYSCTL_ENTRIES	(ROCECC_SYSCTL_FILES + 1)

static struct ctl_table_header *rocecc_default_hdr;
static struct ctl_table *rocecc_default_tbl;

/*
 * table->extra1: the device (NULL: the default set);
 * table->extra2: the enum rocecc_param of the file.
 */
static int rocecc_sysctl_param(ROCECC_CTL_TABLE_CONST struct ctl_table *table,
			       int write, void *buffer, size_t *lenp,
			       loff_t *ppos)
{
	struct rocecc_dev *rdev = table->extra1;
	unsigned int id = (uintptr_t)table->extra2;
	struct rocecc_params p;
	u32 val;
	struct ctl_table tmp = {
		.procname	= table->procname,
		.data		= &val,
		.maxlen		= sizeof(val),
		.mode		= table->mode,
	};
	int err;

	if (!write) {
		rocecc_params_read(rdev, &p);
		val = p.v[id];
		return proc_douintvec(&tmp, 0, buffer, lenp, ppos);
	}

	/*
	 * Parse under the lock: the value starts as the current one (a write
	 * the parser ignores, e.g. at a non-zero offset, then changes
	 * nothing) and nobody can change the set in between. The buffer is a
	 * kernel copy, so parsing does not fault.
	 */
	mutex_lock(&rocecc_lock);
	if (rdev && rdev->dead) {
		err = -ENODEV;
		goto out;
	}
	p = *rocecc_params_locked(rdev);
	val = p.v[id];
	err = proc_douintvec(&tmp, 1, buffer, lenp, ppos);
	if (err)
		goto out;
	if (rocecc_param_validate(id, val)) {
		err = -EINVAL;
		goto out;
	}
	p.v[id] = val;
	err = rocecc_params_commit(rdev, &p);
out:
	mutex_unlock(&rocecc_lock);
	return err;
}

static int rocecc_sysctl_profile(ROCECC_CTL_TABLE_CONST struct ctl_table *table,
				 int write, void *buffer, size_t *lenp,
				 loff_t *ppos)
{
	struct rocecc_dev *rdev = table->extra1;
	struct rocecc_params p;
	char buf[16] = "";
	struct ctl_table tmp = {
		.procname	= table->procname,
		.data		= buf,
		.maxlen		= sizeof(buf),
		.mode		= table->mode,
	};
	const char *name;
	int err, prof;

	if (!write) {
		rocecc_params_read(rdev, &p);
		prof = rocecc_params_profile(&p);
		name = prof < 0 ? "custom" : rocecc_profile_name(prof);
		strscpy(buf, name, sizeof(buf));
		return proc_dostring(&tmp, 0, buffer, lenp, ppos);
	}

	err = proc_dostring(&tmp, 1, buffer, lenp, ppos);
	if (err)
		return err;
	name = strim(buf);
	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++)
		if (!strcmp(name, rocecc_profile_name(prof)))
			break;
	if (prof == __ROCECC_PROFILE_MAX || rocecc_params_load(&p, prof))
		return -EINVAL;

	mutex_lock(&rocecc_lock);
	if (rdev && rdev->dead)
		err = -ENODEV;
	else
		err = rocecc_params_commit(rdev, &p);
	mutex_unlock(&rocecc_lock);
	return err;
}

/*
 * Register net/rocecc/@name for @rdev (NULL: the default set). The table is
 * allocated per directory (the sysctl core keeps pointing at it) and freed
 * by rocecc_sysctl_unregister(). Process context; may be called with
 * rocecc_lock held.
 */
int rocecc_sysctl_register(struct rocecc_dev *rdev, const char *name,
			   struct ctl_table_header **hdr,
			   struct ctl_table **tbl)
{
	char path[sizeof("net/rocecc/") + IFNAMSIZ];
	struct ctl_table *t;
	unsigned int id;

	/* ROCECC_SYSCTL_ENTRIES * 64 bytes: 1.4 KiB per directory. */
	t = kcalloc(ROCECC_SYSCTL_ENTRIES, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (id = ROCECC_PARAM_UNSPEC + 1; id <= ROCECC_PARAM_MAX; id++) {
		t[id - 1].procname = rocecc_param_info(id)->name;
		t[id - 1].mode = 0644;
		t[id - 1].proc_handler = rocecc_sysctl_param;
		t[id - 1].extra1 = rdev;
		t[id - 1].extra2 = (void *)(uintptr_t)id;
	}
	t[ROCECC_SYSCTL_PROFILE].procname = "profile";
	t[ROCECC_SYSCTL_PROFILE].mode = 0644;
	t[ROCECC_SYSCTL_PROFILE].proc_handler = rocecc_sysctl_profile;
	t[ROCECC_SYSCTL_PROFILE].extra1 = rdev;

	snprintf(path, sizeof(path), "net/rocecc/%s", name);
	*hdr = rocecc_register_net_sysctl(&init_net, path, t,
					  ROCECC_SYSCTL_FILES);
	if (!*hdr) {
		kfree(t);
		return -ENOMEM;
	}
	*tbl = t;
	return 0;
}

/*
 * Waits for running handlers of this directory, so the caller must not
 * hold rocecc_lock.
 */
void rocecc_sysctl_unregister(struct ctl_table_header *hdr,
			      struct ctl_table *tbl)
{
	if (hdr)
		unregister_net_sysctl_table(hdr);
	kfree(tbl);
}

int rocecc_sysctl_init(void)
{
	return rocecc_sysctl_register(NULL, "default", &rocecc_default_hdr,
				      &rocecc_default_tbl);
}

void rocecc_sysctl_exit(void)
{
	rocecc_sysctl_unregister(rocecc_default_hdr, rocecc_default_tbl);
	rocecc_default_hdr = NULL;
	rocecc_default_tbl = NULL;
}
