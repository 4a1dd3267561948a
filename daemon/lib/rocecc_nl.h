/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing of the rocecc CLI (libmnl): resolve the "rocecc"
 * family, send a request, run the replies through a callback, and keep the
 * kernel's extack message of a failed request.
 */
#ifndef _ROCECC_LIB_ROCECC_NL_H
#define _ROCECC_LIB_ROCECC_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <uapi/linux/rocecc.h>

#include "nlsock.h"

struct rnl {
	struct nlsock nl;		/* its buffer: one request, replies */
	uint16_t family;		/* genetlink family id of "rocecc" */
	uint32_t mcgrp_events;		/* id of its "events" group, 0 if none */
	/* Of the last failed request: */
	char ext_msg[512];		/* extack message, "" if none */
	uint32_t ext_offs;		/* offset of the bad attribute, or 0 */
	/*
	 * Of the last dump: a message carried NLM_F_DUMP_INTR (what it
	 * lists changed meanwhile; it may have missed or repeated entries).
	 */
	bool dump_intr;
};

/*
 * Open a socket and resolve the family. Returns 0, -ENOENT if the family
 * does not exist (module not loaded), or another -errno.
 */
int rnl_open(struct rnl *r);
void rnl_close(struct rnl *r);

/* Start a request in r->nl.buf: ROCECC @cmd with NLM_F_REQUEST | @flags. */
struct nlmsghdr *rnl_msg(struct rnl *r, uint8_t cmd, uint16_t flags);

/*
 * Send @nlh and run every reply through @cb (may be NULL) until the ACK,
 * the end of a dump or an error. Returns 0 or -errno (and sets ext_msg);
 * sets dump_intr.
 */
int rnl_talk(struct rnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * The top-level attributes of a rocecc.ko message (after its genetlink
 * header) into @tb by type, each checked against its type in the uapi
 * (u32, u8, string, nest); what a newer kernel added is skipped. 0, or
 * -EBADMSG with the type of the first malformed attribute in *@bad.
 */
int rnl_parse(const struct nlmsghdr *nlh,
	      const struct nlattr *tb[ROCECC_A_MAX + 1], unsigned int *bad);

/* Join the "events" group and run @cb on every message, forever. */
int rnl_listen(struct rnl *r, mnl_cb_t cb, void *data);

#endif /* _ROCECC_LIB_ROCECC_NL_H */
