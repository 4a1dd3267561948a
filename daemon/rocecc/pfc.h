/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc pfc / rocecc buffer: IEEE PFC and DCB buffers of a netdev over DCB
 * netlink (lib/dcbnl.h), and the PFC headroom calculator
 * (policy/headroom.h).
 *
 *   rocecc [-j [-p]] pfc show dev IF
 *   rocecc pfc set dev IF [prio-pfc P:on|off[,...]] [delay BITS]
 *                         [mbc on|off]
 *   rocecc [-j [-p]] pfc headroom speed SPEED mtu BYTES cable LENGTH
 *                         [peer-response NS] [prios P[,...]] [cell BYTES]
 *   rocecc [-j [-p]] buffer show dev IF
 *   rocecc buffer set dev IF [prio-buffer P:B[,...]]
 *                            [buffer-size B:SIZE[K|M][,...]]
 *
 * P is a priority 0..7 or "all", B a buffer 0..7; a list may also be given
 * as several words ("prio-pfc 3:on 4:off", as iproute2's dcb takes it).
 * Setting reads the device's struct, changes what was asked, writes it back
 * and reads it again to check.
 */
#ifndef _ROCECC_CLI_PFC_H
#define _ROCECC_CLI_PFC_H

#include <stdbool.h>

struct cli_pfc_opts {
	bool json;
	bool pretty;
};

/* After "pfc" / "buffer": the command and its arguments. Exit status. */
int cli_pfc(const struct cli_pfc_opts *o, int argc, char **argv);
int cli_buffer(const struct cli_pfc_opts *o, int argc, char **argv);

#endif /* _ROCECC_CLI_PFC_H */
