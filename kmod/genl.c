// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the generic netlink family "rocecc" (include/uapi/linux/rocecc.h).
 *
 * Every operation has its own strict policy (resv_start_op is 0, so the
 * core also checks the genetlink header and the netlink flags of every
 * command, and refuses attributes an operation's policy does not list).
 * State-changing operations need CAP_NET_ADMIN (GENL_ADMIN_PERM: devices
 * live in init_net, whose owner is the initial user namespace). Reads and
 * the events group are open to every user (the uapi header says why).
 * The family is visible in every network namespace so that a request
 * from elsewhere gets a clear error instead of "family not found"; it
 * serves only init_net. parallel_ops: the handlers serialise on
 * rocecc_lock, not on the global genetlink mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "kcompat.h"
#include "rocecc.h"

enum rocecc_mcgrp {
	ROCECC_MCGRP_EVENTS,
};

static const struct genl_multicast_group rocecc_mcgrps[] = {
	/* Anybody may listen: events carry nothing a reader could not get. */
	[ROCECC_MCGRP_EVENTS] = { .name = ROCECC_GENL_MCGRP_EVENTS },
};

/*
 * "<name> out of range: valid <min>..<max> <unit>", one per parameter,
 * built at init: the 6.1 extack holds only a pointer to a message that
 * must outlive the request, and cannot format one.
 */
static char rocecc_range_msg[ROCECC_PARAM_MAX + 1][96];

static const struct nla_policy rocecc_param_nl_policy[ROCECC_PARAM_MAX + 1] = {
	[ROCECC_PARAM_UNSPEC + 1 ... ROCECC_PARAM_MAX] = { .type = NLA_U32 },
};

#define ROCECC_DEV_POLICY						\
	[ROCECC_A_DEV_IFINDEX]	= { .type = NLA_U32 },			\
	[ROCECC_A_DEV_NAME]	= { .type = NLA_NUL_STRING,		\
				    .len = IFNAMSIZ - 1 }

static const struct nla_policy rocecc_dev_policy[ROCECC_A_DEV_NAME + 1] = {
	ROCECC_DEV_POLICY,
};

static const struct nla_policy rocecc_param_set_policy[ROCECC_A_PARAMS + 1] = {
	ROCECC_DEV_POLICY,
	[ROCECC_A_PARAMS]	= NLA_POLICY_NESTED(rocecc_param_nl_policy),
};

static const struct nla_policy rocecc_profile_set_policy[ROCECC_A_PROFILE + 1] = {
	ROCECC_DEV_POLICY,
	[ROCECC_A_PROFILE]	= NLA_POLICY_MAX(NLA_U32,
						 __ROCECC_PROFILE_MAX - 1),
};

static struct genl_family rocecc_genl_family;

/*
 * Whether the family is registered, written under rocecc_lock: sysctl can
 * change parameters (and want to send events) before the family is
 * registered at load and after it is unregistered at unload. Flow events
 * read it without the lock (see rocecc_genl_flow_event_wanted()).
 */
static bool rocecc_genl_up;

/* The selector of a request: ifindex (0 if absent) and name (or NULL). */
static void rocecc_nl_sel(struct nlattr **attrs, u32 *ifindex,
			  const char **name)
{
	*ifindex = attrs[ROCECC_A_DEV_IFINDEX] ?
		   nla_get_u32(attrs[ROCECC_A_DEV_IFINDEX]) : 0;
	*name = attrs[ROCECC_A_DEV_NAME] ?
		nla_data(attrs[ROCECC_A_DEV_NAME]) : NULL;
}

/* A selector that must name a device. */
static int rocecc_nl_sel_dev(struct genl_info *info, u32 *ifindex,
			     const char **name)
{
	rocecc_nl_sel(info->attrs, ifindex, name);
	if (!*ifindex && !*name) {
		GENL_SET_ERR_MSG(info, "rocecc: no device given (ifindex or name)");
		return -EINVAL;
	}
	return 0;
}

/*
 * The parameter set a request names: a device, or NULL for the default
 * set (no selector, or ifindex 0). Caller holds rocecc_lock.
 */
static int rocecc_nl_scope(struct genl_info *info, struct rocecc_dev **rdev)
{
	const char *name;
	u32 ifindex;

	rocecc_nl_sel(info->attrs, &ifindex, &name);
	*rdev = NULL;
	if (!ifindex && !name)
		return 0;
	*rdev = rocecc_dev_find(ifindex, name, info->extack);
	return *rdev ? 0 : -ENODEV;
}

static bool rocecc_nl_net_ok(struct net *net, struct netlink_ext_ack *extack)
{
	if (net_eq(net, &init_net))
		return true;
	NL_SET_ERR_MSG_MOD(extack, "only the initial netns is supported (as by rdma_rxe)");
	return false;
}

static int rocecc_nl_pre_doit(const struct rocecc_genl_split_ops *ops,
			      struct sk_buff *skb, struct genl_info *info)
{
	return rocecc_nl_net_ok(genl_info_net(info), info->extack) ?
	       0 : -EOPNOTSUPP;
}

/*
 * For dumps the check runs in the dump callback itself: in 6.1 only there
 * does cb->extack reach the requester (in the NLMSG_DONE message).
 */
static bool rocecc_nl_dump_net_ok(struct netlink_callback *cb)
{
	return rocecc_nl_net_ok(sock_net(cb->skb->sk), cb->extack);
}

/* --- message builders ------------------------------------------------------ */

static int rocecc_nl_put_dev(struct sk_buff *skb, const struct rocecc_dev *rdev)
{
	if (nla_put_u32(skb, ROCECC_A_DEV_IFINDEX, rdev->ifindex) ||
	    nla_put_string(skb, ROCECC_A_DEV_NAME, rdev->name))
		return -EMSGSIZE;
	return 0;
}

static int rocecc_nl_put_stats(struct sk_buff *skb,
			       const struct rocecc_dev *rdev)
{
	u64 ctr[ROCECC_CTR_NUM];
	struct nlattr *nest;
	int i;

	rocecc_dev_read_ctrs(rdev, ctr);
	nest = nla_nest_start(skb, ROCECC_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ROCECC_CTR_NUM; i++) {
		if (nla_put_u64_64bit(skb, ROCECC_CTR_STAT(i), ctr[i],
				      ROCECC_STAT_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A parameter nest: every parameter, or (with @oldp) those that differ
 * from @oldp.
 */
static int rocecc_nl_put_params(struct sk_buff *skb,
				const struct rocecc_params *p,
				const struct rocecc_params *oldp)
{
	struct nlattr *nest;
	unsigned int id;

	nest = nla_nest_start(skb, ROCECC_A_PARAMS);
	if (!nest)
		return -EMSGSIZE;
	for (id = ROCECC_PARAM_UNSPEC + 1; id <= ROCECC_PARAM_MAX; id++) {
		if (oldp && oldp->v[id] == p->v[id])
			continue;
		if (nla_put_u32(skb, id, p->v[id])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* ROCECC_CMD_DEV_GET reply or dump entry. Caller holds rocecc_lock. */
static int rocecc_nl_fill_dev(struct sk_buff *skb, const struct rocecc_dev *rdev,
			      u32 portid, u32 seq, int flags,
			      struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rocecc_genl_family, flags,
			  ROCECC_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (rocecc_nl_put_dev(skb, rdev) || rocecc_nl_put_stats(skb, rdev) ||
	    rocecc_dcb_nl_put(skb, rdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* ROCECC_CMD_PARAM_GET reply or dump entry. Caller holds rocecc_lock. */
static int rocecc_nl_fill_params(struct sk_buff *skb, struct rocecc_dev *rdev,
				 u32 portid, u32 seq, int flags,
				 struct netlink_callback *cb)
{
	const struct rocecc_params *p = rocecc_params_locked(rdev);
	int prof = rocecc_params_profile(p);
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rocecc_genl_family, flags,
			  ROCECC_CMD_PARAM_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if ((rdev ? rocecc_nl_put_dev(skb, rdev) :
		    nla_put_u32(skb, ROCECC_A_DEV_IFINDEX, 0)) ||
	    rocecc_nl_put_params(skb, p, NULL) ||
	    (prof >= 0 && nla_put_u32(skb, ROCECC_A_PROFILE, prof))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* --- events ------------------------------------------------------------------ */

/* Whether to build an event at all. Caller holds rocecc_lock. */
static bool rocecc_nl_event_wanted(void)
{
	lockdep_assert_held(&rocecc_lock);
	return rocecc_genl_up &&
	       genl_has_listeners(&rocecc_genl_family, &init_net,
				  ROCECC_MCGRP_EVENTS);
}

static void rocecc_nl_event_send(struct sk_buff *skb)
{
	/* -ESRCH (nobody listening) is not an error. */
	genlmsg_multicast(&rocecc_genl_family, skb, 0, ROCECC_MCGRP_EVENTS,
			  GFP_KERNEL);
}

/* DEV_ATTACHED, DEV_DETACHED or DEV_GONE. Caller holds rocecc_lock. */
void rocecc_genl_notify_dev(u8 cmd, const struct rocecc_dev *rdev)
{
	struct sk_buff *skb;
	void *hdr;

	if (!rocecc_nl_event_wanted())
		return;
	/* One small message per event, sent and freed by netlink. */
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &rocecc_genl_family, 0, cmd);
	if (!hdr || rocecc_nl_put_dev(skb, rdev)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rocecc_nl_event_send(skb);
}

/* PARAM_CHANGED with the parameters that differ. Caller holds rocecc_lock. */
void rocecc_genl_notify_params(const struct rocecc_dev *rdev,
			       const struct rocecc_params *oldp,
			       const struct rocecc_params *newp)
{
	struct sk_buff *skb;
	void *hdr;

	if (!rocecc_nl_event_wanted())
		return;
	/* As above: one message per change. */
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &rocecc_genl_family, 0,
			  ROCECC_CMD_PARAM_CHANGED);
	if (!hdr ||
	    (rdev ? rocecc_nl_put_dev(skb, rdev) :
		    nla_put_u32(skb, ROCECC_A_DEV_IFINDEX, 0)) ||
	    rocecc_nl_put_params(skb, newp, oldp)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rocecc_nl_event_send(skb);
}

/*
 * Flow events. flow.c builds them (it alone knows a flow's attributes);
 * they come from the packet path (FLOW_CREATED, softirq, under the flow
 * table's spinlock) and from the maintenance work (FLOW_EXPIRED), neither
 * of which may take rocecc_lock. So they test rocecc_genl_up locklessly
 * under rcu_read_lock(), and rocecc_genl_exit() clears it and waits for a
 * grace period before the family goes: a sender that saw it set is done
 * with the family by then.
 */

/* Whether a flow event would reach anybody. Under rcu_read_lock(). */
bool rocecc_genl_flow_event_wanted(void)
{
	return READ_ONCE(rocecc_genl_up) &&
	       genl_has_listeners(&rocecc_genl_family, &init_net,
				  ROCECC_MCGRP_EVENTS) > 0;
}

/* The header of event @cmd in @skb, or NULL if @skb has no room. */
void *rocecc_genl_flow_event_put(struct sk_buff *skb, u8 cmd)
{
	return genlmsg_put(skb, 0, 0, &rocecc_genl_family, 0, cmd);
}

/*
 * Multicast a finished flow event (genlmsg_end() done); @skb is consumed.
 * Under rcu_read_lock(), any context: it never sleeps (the clones for the
 * listeners are allocated atomically), and failures only lose the event.
 */
void rocecc_genl_flow_event_send(struct sk_buff *skb)
{
	if (!rocecc_genl_flow_event_wanted()) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast(&rocecc_genl_family, skb, 0, ROCECC_MCGRP_EVENTS,
			  GFP_ATOMIC);
}

/* --- operations ---------------------------------------------------------- */

static int rocecc_nl_dev_attach(struct sk_buff *skb, struct genl_info *info)
{
	const char *name;
	u32 ifindex;
	int err;

	err = rocecc_nl_sel_dev(info, &ifindex, &name);
	if (err)
		return err;
	return rocecc_dev_attach(ifindex, name, info->extack);
}

static int rocecc_nl_dev_detach(struct sk_buff *skb, struct genl_info *info)
{
	const char *name;
	u32 ifindex;
	int err;

	err = rocecc_nl_sel_dev(info, &ifindex, &name);
	if (err)
		return err;
	return rocecc_dev_detach(ifindex, name, info->extack);
}

static int rocecc_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rocecc_dev *rdev;
	struct sk_buff *msg;
	const char *name;
	u32 ifindex;
	int err;

	err = rocecc_nl_sel_dev(info, &ifindex, &name);
	if (err)
		return err;
	/* The reply: one device with its counters, well under a page. */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rocecc_lock);
	rdev = rocecc_dev_find(ifindex, name, info->extack);
	err = rdev ? rocecc_nl_fill_dev(msg, rdev, info->snd_portid,
					info->snd_seq, 0, NULL) : -ENODEV;
	mutex_unlock(&rocecc_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the next ifindex to dump. */
static int rocecc_nl_dev_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct rocecc_dev *rdev;
	unsigned long idx;
	int err = 0;

	if (!rocecc_nl_dump_net_ok(cb))
		return -EOPNOTSUPP;
	mutex_lock(&rocecc_lock);
	cb->seq = rocecc_devs_gen;
	xa_for_each_start(&rocecc_devs, idx, rdev, cb->args[0]) {
		err = rocecc_nl_fill_dev(skb, rdev, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (err)
			break;
		cb->args[0] = idx + 1;
	}
	mutex_unlock(&rocecc_lock);
	/* A full skb ends this part of the dump; the next one resumes. */
	return err && !skb->len ? err : skb->len;
}

static int rocecc_nl_param_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rocecc_dev *rdev;
	struct sk_buff *msg;
	int err;

	/* The reply: one parameter set, well under a page. */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rocecc_lock);
	err = rocecc_nl_scope(info, &rdev);
	if (!err)
		err = rocecc_nl_fill_params(msg, rdev, info->snd_portid,
					    info->snd_seq, 0, NULL);
	mutex_unlock(&rocecc_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * The default set first (index 0: ifindexes start at 1), then every device.
 * cb->args[0]: the next index to dump.
 */
static int rocecc_nl_param_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct rocecc_dev *rdev;
	unsigned long idx;
	int err = 0;

	if (!rocecc_nl_dump_net_ok(cb))
		return -EOPNOTSUPP;
	mutex_lock(&rocecc_lock);
	cb->seq = rocecc_devs_gen;
	if (cb->args[0] == 0) {
		err = rocecc_nl_fill_params(skb, NULL,
					    NETLINK_CB(cb->skb).portid,
					    cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (!err)
			cb->args[0] = 1;
	}
	if (!err) {
		xa_for_each_start(&rocecc_devs, idx, rdev, cb->args[0]) {
			err = rocecc_nl_fill_params(skb, rdev,
						    NETLINK_CB(cb->skb).portid,
						    cb->nlh->nlmsg_seq,
						    NLM_F_MULTI, cb);
			if (err)
				break;
			cb->args[0] = idx + 1;
		}
	}
	mutex_unlock(&rocecc_lock);
	return err && !skb->len ? err : skb->len;
}

static int rocecc_nl_flow_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	if (!rocecc_nl_dump_net_ok(cb))
		return -EOPNOTSUPP;
	return rocecc_flow_dump(skb, cb, &rocecc_genl_family,
				ROCECC_CMD_FLOW_GET);
}

static int rocecc_nl_param_set(struct sk_buff *skb, struct genl_info *info)
{
	struct rocecc_params p;
	struct rocecc_dev *rdev;
	struct nlattr *a;
	unsigned int id, n = 0;
	int err, rem;
	u32 val;

	if (GENL_REQ_ATTR_CHECK(info, ROCECC_A_PARAMS)) {
		GENL_SET_ERR_MSG(info, "rocecc: no parameters given (ROCECC_A_PARAMS)");
		return -EINVAL;
	}

	mutex_lock(&rocecc_lock);
	err = rocecc_nl_scope(info, &rdev);
	if (err)
		goto out;

	/* Check every value on a copy; publish the copy only if all pass. */
	p = *rocecc_params_locked(rdev);
	nla_for_each_nested(a, info->attrs[ROCECC_A_PARAMS], rem) {
		/* The nested policy has checked the type and the length. */
		id = nla_type(a);
		val = nla_get_u32(a);
		if (rocecc_param_validate(id, val)) {
			/* A static string that outlives the request. */
			info->extack->_msg = rocecc_range_msg[id];
			NL_SET_BAD_ATTR(info->extack, a);
			err = -EINVAL;
			goto out;
		}
		p.v[id] = val;
		n++;
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ROCECC_A_PARAMS],
				    "rocecc: no parameter given");
		err = -EINVAL;
		goto out;
	}
	err = rocecc_params_commit(rdev, &p);
	if (err == -EINVAL)
		NL_SET_ERR_MSG_MOD(info->extack, "the parameters contradict each other");
out:
	mutex_unlock(&rocecc_lock);
	return err;
}

static int rocecc_nl_profile_set(struct sk_buff *skb, struct genl_info *info)
{
	struct rocecc_params p;
	struct rocecc_dev *rdev;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ROCECC_A_PROFILE)) {
		GENL_SET_ERR_MSG(info, "rocecc: no profile given (ROCECC_A_PROFILE)");
		return -EINVAL;
	}
	/* The policy has range-checked the profile. */
	if (rocecc_params_load(&p, nla_get_u32(info->attrs[ROCECC_A_PROFILE]))) {
		NL_SET_ERR_MSG_MOD(info->extack, "unknown profile");
		return -EINVAL;
	}

	mutex_lock(&rocecc_lock);
	err = rocecc_nl_scope(info, &rdev);
	if (!err)
		err = rocecc_params_commit(rdev, &p);
	mutex_unlock(&rocecc_lock);
	return err;
}

static const struct genl_ops rocecc_genl_ops[] = {
	{
		.cmd		= ROCECC_CMD_DEV_ATTACH,
		.flags		= GENL_ADMIN_PERM,
		.doit		= rocecc_nl_dev_attach,
		.policy		= rocecc_dev_policy,
		.maxattr	= ARRAY_SIZE(rocecc_dev_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_DEV_DETACH,
		.flags		= GENL_ADMIN_PERM,
		.doit		= rocecc_nl_dev_detach,
		.policy		= rocecc_dev_policy,
		.maxattr	= ARRAY_SIZE(rocecc_dev_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_DEV_GET,
		.doit		= rocecc_nl_dev_get_doit,
		.dumpit		= rocecc_nl_dev_get_dumpit,
		.policy		= rocecc_dev_policy,
		.maxattr	= ARRAY_SIZE(rocecc_dev_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_PARAM_GET,
		.doit		= rocecc_nl_param_get_doit,
		.dumpit		= rocecc_nl_param_get_dumpit,
		.policy		= rocecc_dev_policy,
		.maxattr	= ARRAY_SIZE(rocecc_dev_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_FLOW_GET,
		.dumpit		= rocecc_nl_flow_get_dumpit,
		.policy		= rocecc_dev_policy,
		.maxattr	= ARRAY_SIZE(rocecc_dev_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_PARAM_SET,
		.flags		= GENL_ADMIN_PERM,
		.doit		= rocecc_nl_param_set,
		.policy		= rocecc_param_set_policy,
		.maxattr	= ARRAY_SIZE(rocecc_param_set_policy) - 1,
	},
	{
		.cmd		= ROCECC_CMD_PROFILE_SET,
		.flags		= GENL_ADMIN_PERM,
		.doit		= rocecc_nl_profile_set,
		.policy		= rocecc_profile_set_policy,
		.maxattr	= ARRAY_SIZE(rocecc_profile_set_policy) - 1,
	},
};

static struct genl_family rocecc_genl_family = {
	.name		= ROCECC_GENL_NAME,
	.version	= ROCECC_GENL_VERSION,
	.maxattr	= ROCECC_A_MAX,
	.netnsok	= true,
	.parallel_ops	= true,
	.pre_doit	= rocecc_nl_pre_doit,
	.module		= THIS_MODULE,
	.ops		= rocecc_genl_ops,
	.n_ops		= ARRAY_SIZE(rocecc_genl_ops),
	.mcgrps		= rocecc_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rocecc_mcgrps),
};

int rocecc_genl_init(void)
{
	const struct rocecc_param_info *pi;
	unsigned int id;
	int err;

	for (id = ROCECC_PARAM_UNSPEC + 1; id <= ROCECC_PARAM_MAX; id++) {
		pi = rocecc_param_info(id);
		snprintf(rocecc_range_msg[id], sizeof(rocecc_range_msg[id]),
			 "%s out of range: valid %u..%u %s",
			 pi->name, pi->min, pi->max, pi->unit);
	}
	err = genl_register_family(&rocecc_genl_family);
	if (err)
		return err;
	mutex_lock(&rocecc_lock);
	WRITE_ONCE(rocecc_genl_up, true);
	mutex_unlock(&rocecc_lock);
	return 0;
}

void rocecc_genl_exit(void)
{
	mutex_lock(&rocecc_lock);
	WRITE_ONCE(rocecc_genl_up, false);
	mutex_unlock(&rocecc_lock);
	/* Flow event senders test the flag under RCU: let them finish. */
	synchronize_rcu();
	genl_unregister_family(&rocecc_genl_family);
}
