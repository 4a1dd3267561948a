/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small libmnl client of the kernel's DCB netlink (rtnetlink
 * RTM_GETDCB / RTM_SETDCB, <linux/dcbnl.h>), as iproute2's `dcb` talks it:
 * IEEE 802.1Qbb PFC (struct ieee_pfc) and the DCB buffers (struct
 * dcbnl_buffer) of any netdev that implements dcbnl_rtnl_ops (mlx5 and
 * other real NICs, rocecc.ko's software DCB).
 *
 * Messages. A request is an rtnetlink header, struct dcbmsg { AF_UNSPEC,
 * cmd }, DCB_ATTR_IFNAME (NUL-terminated string) and, to set, a nested
 * DCB_ATTR_IEEE with DCB_ATTR_IEEE_PFC and/or DCB_ATTR_DCB_BUFFER (the
 * whole structs). NLM_F_ACK is set, so the kernel answers a request with
 * one reply message (type and dcbmsg.cmd as the request's) and then an
 * ACK, or with an error (with its extack message, if any) alone:
 *  - DCB_CMD_IEEE_GET's reply holds DCB_ATTR_IEEE nesting, among others,
 *    DCB_ATTR_IEEE_PFC if the driver has ieee_getpfc and
 *    DCB_ATTR_DCB_BUFFER if it has dcbnl_getbuffer;
 *  - DCB_CMD_IEEE_SET's reply holds DCB_ATTR_IEEE as a u8: the driver's
 *    status, a negative errno truncated to 8 bits (-95 arrives as 161),
 *    which dcbnl_parse_set() turns back into -errno. A netdev without DCB
 *    at all fails the request itself with -EOPNOTSUPP.
 * Setting replaces the whole struct: read, modify, write (what `dcb pfc
 * set` does too).
 *
 * The message builders and parsers are pure (no socket) and unit-tested
 * byte for byte by test_dcbnl.c; so are the parsers of the textual forms
 * the CLI and roceccd's [pfc] section share ("3:on,4:off", "0:0,3:1",
 * "1:64K", "3,4").
 *
 * Errors are -errno; after a failed call dcbnl_errmsg() says why in words
 * (the kernel's extack message if it sent one).
 */
#ifndef _ROCECC_DCBNL_H
#define _ROCECC_DCBNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/dcbnl.h>
#include <libmnl/libmnl.h>

#define DCBNL_PRIOS	IEEE_8021Q_MAX_PRIORITIES	/* 8 */
#define DCBNL_BUFFERS	DCBX_MAX_BUFFERS		/* 8 */
/* Receive buffer: the kernel's replies are at most a page or two. */
#define DCBNL_BUFSZ	(32768)
/* The longest request: header, dcbmsg, name, PFC and buffer; rounded up. */
#define DCBNL_MSG_MAX	512

/* What a DCB_CMD_IEEE_GET reply said about PFC, buffers and APP DSCP. */
struct dcbnl_ieee {
	bool have_pfc;			/* the driver reports IEEE PFC */
	bool have_buffer;		/* the driver reports DCB buffers */
	struct ieee_pfc pfc;
	struct dcbnl_buffer buf;
	/*
	 * The APP table's DSCP entries (selector IEEE_8021QAZ_APP_SEL_DSCP):
	 * bit d of dscp_app[p] says DSCP d maps to priority p, the shape of
	 * the kernel's struct dcb_ieee_app_prio_map (rocecc_dscp_map() in
	 * rocecc/pfc.h makes the whole map of it). Entries of other
	 * selectors are skipped.
	 */
	__u64 dscp_app[DCBNL_PRIOS];
};

struct dcbnl;

/* A DCB netlink socket into *@h. 0 or -errno. */
int dcbnl_open(struct dcbnl **h);
void dcbnl_close(struct dcbnl *h);

/*
 * Why the last call on @h failed, in words, without the netdev's name
 * ("no DCB support (the netdev has no dcbnl_ops)", the kernel's extack
 * message, ...); "" after a success.
 */
const char *dcbnl_errmsg(const struct dcbnl *h);

/*
 * DCB_CMD_IEEE_GET of @ifname into @out. 0; -ENODEV (no such netdev),
 * -EOPNOTSUPP (the netdev has no DCB), -EINVAL (bad name), -EBADMSG (a
 * malformed reply), or another -errno.
 */
int dcbnl_get(struct dcbnl *h, const char *ifname, struct dcbnl_ieee *out);

/* The same, PFC or buffers only: -EOPNOTSUPP if the driver has none. */
int dcbnl_get_pfc(struct dcbnl *h, const char *ifname, struct ieee_pfc *pfc);
int dcbnl_get_buffer(struct dcbnl *h, const char *ifname,
		     struct dcbnl_buffer *buf);

/*
 * DCB_CMD_IEEE_SET of the whole struct (requests, indications and
 * total_size are ignored by drivers). 0 or -errno (the driver's status
 * too: -EOPNOTSUPP if it cannot set PFC or buffers, -EINVAL ...).
 * Needs CAP_NET_ADMIN (-EPERM).
 */
int dcbnl_set_pfc(struct dcbnl *h, const char *ifname,
		  const struct ieee_pfc *pfc);
int dcbnl_set_buffer(struct dcbnl *h, const char *ifname,
		     const struct dcbnl_buffer *buf);

/* ---- pure: messages ------------------------------------------------------ */

/*
 * Build a request in @buf (at least DCBNL_MSG_MAX bytes): GET, or
 * SET with @pfc and/or @b (NULL: not sent). NLM_F_REQUEST | NLM_F_ACK,
 * sequence number @seq, port 0. The message is nlh->nlmsg_len bytes long.
 * NULL if @ifname is empty or longer than 15 characters, or a SET has
 * neither struct.
 */
struct nlmsghdr *dcbnl_msg_get(void *buf, uint32_t seq, const char *ifname);
struct nlmsghdr *dcbnl_msg_set(void *buf, uint32_t seq, const char *ifname,
			       const struct ieee_pfc *pfc,
			       const struct dcbnl_buffer *b);

/*
 * Parse one DCB_CMD_IEEE_GET reply message into @out. 0, or -EBADMSG with
 * the reason in @msg (@n 0: none) for a wrong type or command, a short
 * header, a malformed or truncated attribute, a DCB_ATTR_IEEE that is not
 * a nest, a PFC / buffer struct shorter than ours, or an APP entry that is
 * not a struct dcb_app or maps a DSCP above 63 or to a priority above 7. Unknown attributes
 * are skipped; a longer struct (a newer kernel) is cut to ours.
 */
int dcbnl_parse_get(const struct nlmsghdr *nlh, struct dcbnl_ieee *out,
		    char *msg, size_t n);

/*
 * Parse one DCB_CMD_IEEE_SET reply: 0 if the driver's status is 0, its
 * -errno otherwise, or -EBADMSG (@msg says why) for a malformed reply or
 * one without the status.
 */
int dcbnl_parse_set(const struct nlmsghdr *nlh, char *msg, size_t n);

/*
 * The state of one request's answer, fed buffer by buffer to
 * dcbnl_feed() (what the socket receives).
 */
struct dcbnl_answer {
	uint8_t cmd;			/* DCB_CMD_IEEE_GET or _SET */
	struct dcbnl_ieee *ieee;	/* GET: the result */
	bool replied;			/* the reply message was seen */
	int err;			/* the answer: 0 or -errno */
	char msg[512];			/* why, if err; extack if any */
};

/*
 * Run the messages of @buf (@len bytes, as received) for the request
 * @seq from port @portid. 1 (MNL_CB_OK): more to receive; 0: the answer is
 * complete, its result in a->err (an ACK without a reply, or a second
 * reply, is -EBADMSG); -1: a message that is not ours or malformed
 * (a->err set).
 */
int dcbnl_feed(struct dcbnl_answer *a, const void *buf, size_t len,
	       uint32_t seq, uint32_t portid);

/* ---- pure: text ----------------------------------------------------------- */

/*
 * The parsers below read comma-separated lists (no blanks). On error they
 * return -EINVAL and fill @e: the offending item ("9:on") and why
 * ("priority must be 0..7").
 */
struct dcbnl_perr {
	char item[64];
	char why[128];
};

/*
 * "P:on|off[,...]" with P 0..7 or "all": into @en (bits turned on) and
 * @mask (bits given). Later items win.
 */
int dcbnl_parse_prio_onoff(const char *s, uint8_t *en, uint8_t *mask,
			   struct dcbnl_perr *e);

/* "P[,...]" with P 0..7, or "none": a bitmap into @mask. */
int dcbnl_parse_prio_list(const char *s, uint8_t *mask, struct dcbnl_perr *e);

/* "P:B[,...]" with P 0..7 or "all", B 0..7: @p2b[P] = B, @mask bit P. */
int dcbnl_parse_prio2buffer(const char *s, uint8_t p2b[DCBNL_PRIOS],
			    uint8_t *mask, struct dcbnl_perr *e);

/*
 * "B:SIZE[,...]" with B 0..7 or "all", SIZE as dcbnl_parse_size(): into
 * @size[B], @mask bit B.
 */
int dcbnl_parse_buffer_sizes(const char *s, uint32_t size[DCBNL_BUFFERS],
			     uint8_t *mask, struct dcbnl_perr *e);

/*
 * A size in bytes: decimal digits, optionally followed by K (KiB, 1024)
 * or M (MiB); at most 4294967295 bytes. 0, -EINVAL, or -ERANGE.
 */
int dcbnl_parse_size(const char *s, uint32_t *bytes);

/*
 * A link speed: "100G" / "100g" (Gb/s), "25000M" or "25000" (Mb/s), 1 Mb/s
 * to 1600G, into @mbps. 0 or -EINVAL.
 */
int dcbnl_parse_speed(const char *s, unsigned int *mbps);

/* A cable length in metres: "5", "5m", "2.5m", 0..10000. 0 or -EINVAL. */
int dcbnl_parse_length(const char *s, double *m);

/* "3,4" / "none" for a priority bitmap, into @buf. */
const char *dcbnl_prio_str(uint8_t mask, char *buf, size_t n);

/* A size as dcbnl_parse_size() reads it: "65536" -> "64K", "1000". */
const char *dcbnl_size_str(uint32_t bytes, char *buf, size_t n);

#endif /* _ROCECC_DCBNL_H */
