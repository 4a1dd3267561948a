// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DEV_GET reply parser (daemon/lib/rocecc_dev.c) on
 * replies built here as rocecc.ko builds them (kmod/genl.c, kmod/dcb.c),
 * with what a newer or broken kernel could add.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "lib/rocecc_dev.h"
#include "tap.h"

static char buf[8192];

static struct nlmsghdr *reply(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
	return nlh;
}

static void put_prio(struct nlmsghdr *nlh, uint8_t prio, uint8_t en,
		     uint64_t requests)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, ROCECC_PFC_A_PRIO);

	mnl_attr_put_u8(nlh, ROCECC_PFC_PRIO_A_PRIO, prio);
	mnl_attr_put_u8(nlh, ROCECC_PFC_PRIO_A_EN, en);
	mnl_attr_put_u64(nlh, ROCECC_PFC_PRIO_A_REQUESTS, requests);
	mnl_attr_put_u32(nlh, ROCECC_PFC_PRIO_A_XOFF, 1000 + prio);
	mnl_attr_put_u8(nlh, ROCECC_PFC_PRIO_A_TX_PAUSED, 1);
	mnl_attr_put_u64(nlh, ROCECC_PFC_PRIO_A_TX_BYTES, 7);
	mnl_attr_put_u16(nlh, ROCECC_PFC_PRIO_A_TX_PACKETS, 3);	/* no width */
	mnl_attr_put_u64(nlh, ROCECC_PFC_PRIO_A_MAX + 1, 99);	/* newer */
	mnl_attr_nest_end(nlh, n);
}

static void test_full(void)
{
	struct nlmsghdr *nlh = reply();
	struct rocecc_dev_info d;
	struct nlattr *n;

	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, 7);
	mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, "eth1");
	mnl_attr_put_u8(nlh, ROCECC_A_DEV_SW_DCB, 2);
	n = mnl_attr_nest_start(nlh, ROCECC_A_STATS);
	mnl_attr_put_u64(nlh, ROCECC_STAT_NP_CNP_SENT, 11);
	mnl_attr_put_u64(nlh, ROCECC_STAT_FLOWS, 12);
	mnl_attr_put_u32(nlh, ROCECC_STAT_MALFORMED, 13);	/* not a u64 */
	mnl_attr_put_u64(nlh, ROCECC_STAT_PAD, 14);		/* no name */
	mnl_attr_put_u64(nlh, ROCECC_STAT_MAX + 1, 15);		/* newer */
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, ROCECC_A_PFC);
	mnl_attr_put_u64(nlh, ROCECC_PFC_A_PAUSE_RX, 21);
	mnl_attr_put_u32(nlh, ROCECC_PFC_A_SPEED, 25000);
	put_prio(nlh, 0, 0, 0);
	put_prio(nlh, 3, 1, 5);
	put_prio(nlh, 8, 1, 6);					/* no such */
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, ROCECC_A_MAX + 1, 1);		/* newer */

	tap_eq(rocecc_dev_parse(nlh, &d), 0, "a full reply parses");
	tap_is_str(d.name, "eth1", "name");
	tap_eq(d.ifindex, 7, "ifindex");
	tap_eq(d.sw_dcb, 1, "sw_dcb");
	tap_ok(d.have_stat[ROCECC_STAT_NP_CNP_SENT] &&
	       d.stat[ROCECC_STAT_NP_CNP_SENT] == 11, "np_cnp_sent 11");
	tap_ok(d.have_stat[ROCECC_STAT_FLOWS] && d.stat[ROCECC_STAT_FLOWS] == 12,
	       "flows 12");
	tap_ok(!d.have_stat[ROCECC_STAT_MALFORMED], "a u32 counter is left out");
	tap_ok(!d.have_stat[ROCECC_STAT_PAD], "a counter without a name is left out");
	tap_ok(!d.have_stat[ROCECC_STAT_RP_CNP_HANDLED], "a counter not sent is not there");
	tap_ok(d.have_pfc, "the PFC nest");
	tap_ok(d.pfc_len[ROCECC_PFC_A_PAUSE_RX] == 8 &&
	       d.pfc[ROCECC_PFC_A_PAUSE_RX] == 21, "pause_rx, u64");
	tap_ok(d.pfc_len[ROCECC_PFC_A_SPEED] == 4 &&
	       d.pfc[ROCECC_PFC_A_SPEED] == 25000, "speed, u32");
	tap_eq(d.pfc_len[ROCECC_PFC_A_UNENFORCED], 0, "a value not sent");
	tap_eq(d.pfc_len[ROCECC_PFC_A_PRIO], 0, "the priority nests are no value");
	tap_ok(d.have_prio[0] && d.have_prio[3] && !d.have_prio[1],
	       "priorities 0 and 3, not 1");
	tap_ok(d.prio[3].v[ROCECC_PFC_PRIO_A_EN] == 1 &&
	       d.prio[3].len[ROCECC_PFC_PRIO_A_EN] == 1 &&
	       d.prio[3].v[ROCECC_PFC_PRIO_A_REQUESTS] == 5 &&
	       d.prio[3].v[ROCECC_PFC_PRIO_A_XOFF] == 1003 &&
	       d.prio[3].len[ROCECC_PFC_PRIO_A_XOFF] == 4, "priority 3's values");
	tap_ok(d.prio[3].len[ROCECC_PFC_PRIO_A_TX_PAUSED] == 1 &&
	       d.prio[3].len[ROCECC_PFC_PRIO_A_TX_BYTES] == 8,
	       "their widths");
	tap_ok(!d.prio[3].len[ROCECC_PFC_PRIO_A_TX_PACKETS] &&
	       !d.prio[3].v[ROCECC_PFC_PRIO_A_TX_PACKETS],
	       "a u16 value is left out");
}

static void test_short(void)
{
	struct nlmsghdr *nlh = reply();
	struct rocecc_dev_info d;

	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, 3);
	tap_eq(rocecc_dev_parse(nlh, &d), 0, "a reply without name, stats or PFC");
	tap_ok(!d.name && d.ifindex == 3 && d.sw_dcb == -1 && !d.have_pfc,
	       "  nothing more is there");
}

static void test_malformed(void)
{
	struct nlmsghdr *nlh = reply();
	struct rocecc_dev_info d;

	mnl_attr_put(nlh, ROCECC_A_DEV_NAME, 4, "eth1");	/* no NUL */
	tap_eq(rocecc_dev_parse(nlh, &d), -EBADMSG,
	       "a name without its NUL is refused");
	tap_eq(d.bad_attr, ROCECC_A_DEV_NAME, "  naming the attribute");
	nlh = reply();
	mnl_attr_put_u16(nlh, ROCECC_A_DEV_IFINDEX, 3);
	tap_eq(rocecc_dev_parse(nlh, &d), -EBADMSG, "a u16 ifindex is refused");
	tap_eq(d.bad_attr, ROCECC_A_DEV_IFINDEX, "  naming the attribute");
}

int main(void)
{
	test_full();
	test_short();
	test_malformed();
	return tap_done();
}
