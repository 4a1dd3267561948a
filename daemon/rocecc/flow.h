/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "rocecc flow show" (do_flow(), cli.h): the datapath's flows
 * (ROCECC_CMD_FLOW_GET dump, and the BPF datapath's in its attributes).
 */
#ifndef _ROCECC_CLI_FLOW_H
#define _ROCECC_CLI_FLOW_H

#include <stdbool.h>

#include "lib/rocecc_nl.h"

struct cli_flow_opts {
	bool json;	/* -j: one JSON array, every attribute */
	bool pretty;	/* -p */
	bool stats;	/* -s: pacing, CNP and increase statistics too */
};


/*
 * Print a flow event (FLOW_CREATED, FLOW_EXPIRED) for rocecc monitor:
 * "EV dev DEV ifindex N raddr ADDR rqpn 0xQPN [lqpn 0xQPN] [counters]",
 * or (@json) one JSON object, "event": EV and the keys of flow show -j.
 * Returns 0, or -1 (nothing printed) if the message has no flow.
 */
int cli_flow_event(const struct nlmsghdr *nlh, const char *ev, bool json);

#endif /* _ROCECC_CLI_FLOW_H */
