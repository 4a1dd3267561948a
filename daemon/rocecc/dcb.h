/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc pfc / rocecc buffer: IEEE PFC and DCB buffers of a netdev over DCB
 * netlink (lib/dcbnl.h), and the PFC headroom calculator
 * (policy/headroom.h): the objects of pfc.c and buffer.c, and what they
 * share (dcb.c).
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
#ifndef _ROCECC_CLI_DCB_H
#define _ROCECC_CLI_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct dcbnl;

struct cli_pfc_opts {
	bool json;
	bool pretty;
};

/* After "pfc" / "buffer": the command and its arguments. Exit status. */
int cli_pfc(const struct cli_pfc_opts *o, int argc, char **argv);
int cli_buffer(const struct cli_pfc_opts *o, int argc, char **argv);

/*
 * What pfc.c and buffer.c share (dcb.c). Errors go to stderr and return
 * a CLI_EXIT_* code:
 * dcb_usage_err(): "rocecc: CMD: message";
 * dcb_err(): "rocecc: CMD: DEV: why (strerror)", why from the kernel's
 * extack when it gave one.
 */
int dcb_usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int dcb_err(const char *cmd, const char *dev, struct dcbnl *h, int err);

/* @obj as a one-element JSON array (-p: pretty), then a newline. */
void dcb_json_print(const struct cli_pfc_opts *o, json_object *obj);

/* Whether @s is one of the NULL-terminated @words. */
bool dcb_is_word(const char *s, const char *const *words);

/*
 * The value of keyword argv[*i]: argv[*i + 1], and if @list, the words
 * after it that are items ("N:X") and not keywords, joined by commas into
 * @buf. NULL if there is no value.
 */
const char *dcb_take(int argc, char **argv, int *i, bool list,
		     const char *const *keywords, char *buf, size_t n);

/* "dev IF" at argv[0..1] into *@dev: 0, or a usage error's exit code. */
int dcb_want_dev(const char *cmd, int argc, char **argv, const char **dev);

/* A DCB netlink socket into *@h: 0, or CLI_EXIT_FAIL (message printed). */
int dcb_open(const char *cmd, struct dcbnl **h);

#endif /* _ROCECC_CLI_DCB_H */
