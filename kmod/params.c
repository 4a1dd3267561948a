// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: parameter sets. The default set and each attached device's own
 * set are immutable blocks behind RCU pointers, replaced whole on every
 * change (rocecc.h says why); the profiles (mlx5, paper) are the shared
 * table's (include/rocecc/params.h). Writers hold rocecc_lock; the
 * datapath reads through rocecc_dev_params_rcu().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rocecc.h"

/* The default parameter set; never NULL between init and exit. */
struct rocecc_pset __rcu *rocecc_default_pset;

static struct rocecc_pset __rcu **rocecc_pset_slot(struct rocecc_dev *rdev)
{
	return rdev ? &rdev->params : &rocecc_default_pset;
}

/* The current set of @rdev (NULL: default); caller holds rocecc_lock. */
const struct rocecc_params *rocecc_params_locked(struct rocecc_dev *rdev)
{
	return &rcu_dereference_protected(*rocecc_pset_slot(rdev),
					  lockdep_is_held(&rocecc_lock))->p;
}

/* Copy the current set of @rdev (NULL: default); any process context. */
void rocecc_params_read(struct rocecc_dev *rdev, struct rocecc_params *out)
{
	/* Like the datapath: the block stays valid until the unlock. */
	rcu_read_lock();
	*out = rcu_dereference(*rocecc_pset_slot(rdev))->p;
	rcu_read_unlock();
}

/*
 * Publish @newp as the set of @rdev (NULL: default), which must be valid.
 * Caller holds rocecc_lock. Sends ROCECC_CMD_PARAM_CHANGED if anything
 * changed. The old block is freed after a grace period: datapath readers
 * may still be using it.
 */
int rocecc_params_commit(struct rocecc_dev *rdev,
			 const struct rocecc_params *newp)
{
	struct rocecc_pset __rcu **slot = rocecc_pset_slot(rdev);
	struct rocecc_pset *old, *new;

	lockdep_assert_held(&rocecc_lock);
	/* Callers check each value; this also catches cross-field rules. */
	if (rocecc_params_validate(newp))
		return -EINVAL;
	old = rcu_dereference_protected(*slot, lockdep_is_held(&rocecc_lock));
	if (!memcmp(&old->p, newp, sizeof(*newp)))
		return 0;

	/* One small block per update; updates are rare (an operator). */
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->p = *newp;
	rcu_assign_pointer(*slot, new);
	rocecc_genl_notify_params(rdev, &old->p, &new->p);
	kfree_rcu(old, rcu);
	return 0;
}

/* The profile @p equals exactly, or -1 ("custom"). */
int rocecc_params_profile(const struct rocecc_params *p)
{
	struct rocecc_params def;
	unsigned int prof;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		if (rocecc_params_load(&def, prof))
			continue;
		if (!memcmp(&def, p, sizeof(def)))
			return prof;
	}
	return -1;
}

const char *rocecc_profile_name(unsigned int profile)
{
	switch (profile) {
	case ROCECC_PROFILE_MLX5:
		return ROCECC_PROFILE_NAME_MLX5;
	case ROCECC_PROFILE_PAPER:
		return ROCECC_PROFILE_NAME_PAPER;
	}
	return NULL;
}

int rocecc_params_init(void)
{
	struct rocecc_pset *ps;

	/* The default set, for the module's lifetime (until replaced). */
	ps = kmalloc(sizeof(*ps), GFP_KERNEL);
	if (!ps)
		return -ENOMEM;
	if (rocecc_params_load(&ps->p, ROCECC_PROFILE_MLX5) ||
	    rocecc_params_validate(&ps->p)) {
		pr_err("built-in mlx5 profile is invalid\n");
		kfree(ps);
		return -EINVAL;
	}
	RCU_INIT_POINTER(rocecc_default_pset, ps);
	return 0;
}

/* After every device is gone and no sysctl or netlink user is left. */
void rocecc_params_exit(void)
{
	kfree(rcu_dereference_protected(rocecc_default_pset, 1));
	RCU_INIT_POINTER(rocecc_default_pset, NULL);
}

