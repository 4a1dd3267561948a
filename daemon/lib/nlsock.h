/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A netlink socket of the daemon and the CLI (libmnl), whatever the family
 * (rtnetlink, DCB, RDMA, rocecc.ko's generic netlink): open and bind it,
 * with the kernel's extended ACKs (messages with the errors) and without a
 * copy of the request in them; and one exchange, a request and the replies
 * run through callbacks until one of them stops.
 */
#ifndef _ROCECC_LIB_NLSOCK_H
#define _ROCECC_LIB_NLSOCK_H

#include <stddef.h>
#include <libmnl/libmnl.h>

struct nlsock {
	struct mnl_socket *sk;
	unsigned int portid;
	unsigned int seq;		/* the last one used; starts at the time */
	char *buf;			/* requests are built here, replies read */
	size_t bufsz;
};

/*
 * Open @s on netlink @bus with a buffer of @bufsz bytes. 0, or -errno with
 * @s closed (-EPROTONOSUPPORT: the kernel has no such netlink).
 */
int nlsock_open(struct nlsock *s, int bus, size_t bufsz);
void nlsock_close(struct nlsock *s);

/*
 * Receives one read of replies (@len bytes at @buf) for the request of
 * sequence number @seq: > 0 to read more, 0 when the exchange is over, or
 * a negative errno when it failed.
 */
typedef int (*nlsock_feed_t)(void *arg, const void *buf, size_t len,
			     unsigned int seq, unsigned int portid);

/*
 * Send @nlh (built in s->buf or elsewhere), then read the replies into
 * s->buf and hand each read to @feed until it says the exchange is over.
 * What @feed returned then (0 or -errno), or -errno of sending or
 * receiving.
 */
int nlsock_talk(struct nlsock *s, const struct nlmsghdr *nlh,
		nlsock_feed_t feed, void *arg);

/*
 * nlsock_talk() with the replies run through mnl_cb_run2(@cb, @data, @ctl,
 * @nctl) (@ctl NULL: libmnl's own handling of errors, ACKs and the end of
 * a dump): 0 when a callback stops the exchange, -errno when one fails
 * (the errno it left, or -EIO).
 */
int nlsock_call(struct nlsock *s, const struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data, mnl_cb_t *ctl, unsigned int nctl);

#endif /* _ROCECC_LIB_NLSOCK_H */
