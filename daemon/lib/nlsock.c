// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink sockets. See nlsock.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/netlink.h>

#include "nlsock.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK	11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK	10
#endif

int nlsock_open(struct nlsock *s, int bus, size_t bufsz)
{
	int one = 1, err;

	memset(s, 0, sizeof(*s));
	s->buf = malloc(bufsz);
	if (!s->buf)
		return -ENOMEM;
	s->bufsz = bufsz;
	s->sk = mnl_socket_open(bus);
	if (!s->sk) {
		err = -errno;
		goto err;
	}
	if (mnl_socket_bind(s->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto err;
	}
	/* Extack messages, and errors without a copy of our request. */
	mnl_socket_setsockopt(s->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	s->portid = mnl_socket_get_portid(s->sk);
	s->seq = (unsigned int)time(NULL);
	return 0;
err:
	nlsock_close(s);
	return err;
}

void nlsock_close(struct nlsock *s)
{
	if (s->sk)
		mnl_socket_close(s->sk);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

int nlsock_talk(struct nlsock *s, const struct nlmsghdr *nlh,
		nlsock_feed_t feed, void *arg)
{
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(s->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(s->sk, s->buf, s->bufsz);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		ret = feed(arg, s->buf, (size_t)n, seq, s->portid);
		if (ret <= 0)
			return ret;
	}
}

struct mnl_feed {
	mnl_cb_t cb;
	void *data;
	mnl_cb_t *ctl;
	unsigned int nctl;
};

static int mnl_feed(void *arg, const void *buf, size_t len, unsigned int seq,
		    unsigned int portid)
{
	const struct mnl_feed *m = arg;
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, m->cb, m->data, m->ctl,
			  m->nctl);
	if (ret == MNL_CB_ERROR)
		return errno ? -errno : -EIO;
	return ret == MNL_CB_STOP ? 0 : 1;
}

int nlsock_call(struct nlsock *s, const struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data, mnl_cb_t *ctl, unsigned int nctl)
{
	struct mnl_feed m = { cb, data, ctl, nctl };

	return nlsock_talk(s, nlh, mnl_feed, &m);
}
