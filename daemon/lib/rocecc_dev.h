/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc.ko's answer to ROCECC_CMD_DEV_GET (one device; a dump sends one
 * per device), parsed once for both binaries: "rocecc dev show" and
 * roceccd's counters (/metrics) and PFC state (its watchdog and tuner).
 * What each attribute is: include/uapi/linux/rocecc.h.
 */
#ifndef _ROCECC_LIB_ROCECC_DEV_H
#define _ROCECC_LIB_ROCECC_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#include <uapi/linux/rocecc.h>

#define ROCECC_DEV_PRIOS	8

/*
 * A nest of unsigned values of any width (the kernel sends u8, u32 or u64
 * as each attribute is): by attribute type, with the width it had (0: not
 * there, or of no width 1, 4 or 8).
 */
struct rocecc_dev_prio {
	uint64_t v[ROCECC_PFC_PRIO_A_MAX + 1];
	uint8_t len[ROCECC_PFC_PRIO_A_MAX + 1];
};

struct rocecc_dev_info {
	const char *name;		/* NULL if not sent; in the message */
	uint32_t ifindex;		/* 0 if not sent */
	int sw_dcb;			/* -1 if not sent, else 0 or 1 */
	/* ROCECC_A_STATS: the u64 counters that have a name (cli_stat_name) */
	uint64_t stat[ROCECC_STAT_MAX + 1];
	bool have_stat[ROCECC_STAT_MAX + 1];
	/* ROCECC_A_PFC (rocecc.ko's software DCB) */
	bool have_pfc;
	uint64_t pfc[ROCECC_PFC_A_MAX + 1];
	uint8_t pfc_len[ROCECC_PFC_A_MAX + 1];
	bool have_prio[ROCECC_DEV_PRIOS];	/* by its ROCECC_PFC_PRIO_A_PRIO */
	struct rocecc_dev_prio prio[ROCECC_DEV_PRIOS];
	unsigned int bad_attr;		/* after -EBADMSG: its type */
};

/*
 * Parse the DEV_GET reply @nlh into @d. Attributes a newer kernel added are
 * skipped; so is a value of the wrong width and a priority nest without a
 * valid priority. 0, or -EBADMSG if a top-level attribute has the wrong
 * type (its type in @d->bad_attr).
 */
int rocecc_dev_parse(const struct nlmsghdr *nlh, struct rocecc_dev_info *d);

#endif /* _ROCECC_LIB_ROCECC_DEV_H */
