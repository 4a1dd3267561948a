// SPDX-License-Identifier: GPL-2.0
/*
 * A netdev's driver statistics over the SIOCETHTOOL ioctl: see ethstats.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "ethstats.h"

#define ETHSTATS_TRIES	3

static int eth_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* How many ETH_SS_STATS strings the driver has now: >= 0, or -errno. */
static long eth_count(int fd, const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 data[1];
	} si;
	struct ethtool_drvinfo di;
	int err;

	memset(&si, 0, sizeof(si));
	si.hdr.cmd = ETHTOOL_GSSET_INFO;
	si.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	err = eth_ioctl(fd, ifname, &si);
	if (!err)
		return si.hdr.sset_mask & (1ULL << ETH_SS_STATS) ?
		       (long)si.data[0] : 0;
	if (err != -EOPNOTSUPP)
		return err;
	/* drivers older than GSSET_INFO: the count is in the driver info */
	memset(&di, 0, sizeof(di));
	di.cmd = ETHTOOL_GDRVINFO;
	err = eth_ioctl(fd, ifname, &di);
	return err ? err : (long)di.n_stats;
}

/*
 * Names and values of @n statistics into @st; -EAGAIN if the driver
 * answered with another count.
 */
static int eth_fetch(int fd, const char *ifname, size_t n, struct ethstats *st)
{
	struct ethtool_gstrings *gs;
	struct ethtool_stats *gv;
	int err = -ENOMEM;
	size_t i;

	gs = calloc(1, sizeof(*gs) + n * ETH_GSTRING_LEN);
	gv = calloc(1, sizeof(*gv) + n * sizeof(__u64));
	st->name = calloc(n, ETH_GSTRING_LEN);
	st->val = calloc(n, sizeof(*st->val));
	if (!gs || !gv || !st->name || !st->val)
		goto out;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	err = eth_ioctl(fd, ifname, gs);
	if (err)
		goto out;
	gv->cmd = ETHTOOL_GSTATS;
	gv->n_stats = n;
	err = eth_ioctl(fd, ifname, gv);
	if (err)
		goto out;
	if (gs->len != n || gv->n_stats != n) {
		err = -EAGAIN;
		goto out;
	}
	for (i = 0; i < n; i++) {
		memcpy(st->name[i], gs->data + i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		st->name[i][ETH_GSTRING_LEN - 1] = '\0';
		st->val[i] = gv->data[i];
	}
	st->n = n;
out:
	free(gs);
	free(gv);
	if (err)
		ethstats_free(st);
	return err;
}

int ethstats_read(const char *ifname, struct ethstats *st)
{
	int fd, err = -EAGAIN, tries;
	long n;

	memset(st, 0, sizeof(*st));
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (tries = 0; tries < ETHSTATS_TRIES && err == -EAGAIN; tries++) {
		n = eth_count(fd, ifname);
		if (n <= 0) {
			err = n ? (int)n : -EOPNOTSUPP;
			break;
		}
		err = eth_fetch(fd, ifname, (size_t)n, st);
	}
	close(fd);
	return err;
}

void ethstats_free(struct ethstats *st)
{
	free(st->name);
	free(st->val);
	memset(st, 0, sizeof(*st));
}

int ethstats_get(const struct ethstats *st, const char *name, uint64_t *v)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->name[i], name)) {
			*v = st->val[i];
			return 0;
		}
	return -ENOENT;
}
