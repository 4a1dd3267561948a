/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A netdev's driver statistics, what `ethtool -S` prints: the names
 * (string set ETH_SS_STATS) and the u64 values, over the SIOCETHTOOL
 * ioctl (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS).
 *
 * Why the ioctl: ethtool netlink (ETHTOOL_MSG_STATS_GET) carries only the
 * standard groups (IEEE 802.3 MAC/PHY/control, RMON), not a driver's own
 * statistics such as mlx5's rx_prio3_pause; Debian has no library for
 * either, and the ioctl is three calls.
 *
 * The set of statistics is not fixed: mlx5 lists the per-priority pause
 * counters only for the priorities with PFC enabled, so the count can change
 * between the calls. ethstats_read() reads the count, the names and the
 * values, and starts again (up to three times) when the strings or the
 * values come back with another count than the one asked for.
 */
#ifndef _ROCECC_ETHSTATS_H
#define _ROCECC_ETHSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ethtool.h>

struct ethstats {
	size_t n;
	char (*name)[ETH_GSTRING_LEN];	/* n names, NUL-terminated here */
	uint64_t *val;			/* n values */
};

/*
 * Read the statistics of @ifname into @st (allocated; ethstats_free()).
 * 0; -ENODEV (no such netdev), -EOPNOTSUPP (the driver has no
 * statistics), -EAGAIN (the set kept changing), -ENOMEM, or another
 * -errno of the ioctl. @st is empty after an error.
 */
int ethstats_read(const char *ifname, struct ethstats *st);
void ethstats_free(struct ethstats *st);

/* The value of the statistic named @name: 0 and *@v, or -ENOENT. */
int ethstats_get(const struct ethstats *st, const char *name, uint64_t *v);

#endif /* _ROCECC_ETHSTATS_H */
