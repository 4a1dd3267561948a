// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: what the module reads of rdma_rxe's internals, and the check, on
 * the running kernel, that it reads the right thing.
 *
 * The reaction point needs the local QP of each packet rxe transmits (its
 * ACK timeout bounds pacing: rp.c). rxe sends a QP's packets through the
 * QP's own kernel UDP socket (skb->sk), keeps its struct rxe_qp in that
 * socket's sk_user_data, and a struct rxe_qp starts with its struct ib_qp
 * (ib_core's INIT_RDMA_OBJ_SIZE() enforces that). rocecc_rxe_lqpn() reads
 * the QPN from there.
 *
 * sk_user_data is rxe's own business, and it has changed: "RDMA/rxe: Let
 * destroy qp succeed with stuck packet" (6.10) stored the QP's pool index
 * there instead of a pointer, until "RDMA/rxe: Flush delayed SKBs while
 * releasing RXE resources" (2025, also in the 6.12 stable series) stored
 * the QP again. Debian's 6.1 and 6.12.117 store the QP; Debian 13's first
 * 6.12 kernels store the index. Reading an index as a pointer would crash.
 *
 * So before the datapath may read sk_user_data of an rxe device's sockets,
 * rocecc_rxe_check() verifies, on that device, that it holds the QP: it
 * takes the device's QP1 (GSI; ib_core's MAD layer creates it on every
 * RoCE port) through the RDMA core (restrack), finds that QP's UDP socket
 * inside the driver's QP object and compares the socket's sk_user_data
 * with the QP. It creates nothing and sends nothing. The layout of struct
 * rxe_qp differs between kernels and is not public, so the socket is
 * found by what identifies one: a word of the QP object that points to a
 * struct socket whose sock points back at it (sk->sk_socket), an AF_INET
 * datagram socket of protocol UDP. A word that is not an address of the
 * kernel's direct map is not even read (rocecc_rxe_kaddr()), and every
 * read outside the QP object is a get_kernel_nofault(): a word that is not
 * a pointer costs a check or a failed read, never a fault, on any kernel.
 * Attach refuses a device that fails the check (extack), and the
 * datapath's rxe cookie (rocecc_dp_dev.ibdev, the only gate to the read)
 * is only ever set to a device that passed it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rocecc/roce.h>

#include "rocecc.h"
#include "dp.h"

/* restrack's id of the GSI QP of port 1: QPN 1, the port in bits 24..31. */
#define ROCECC_RXE_GSI_ID	(1U | (1U << 24))

#define ROCECC_RXE_MSG_LEN	200

/* For extack: attach runs under RTNL and rocecc_lock, one at a time. */
static char rocecc_rxe_msg[ROCECC_RXE_MSG_LEN];

/*
 * May @p be read with get_kernel_nofault()? Only a kernel address of the
 * direct map or the kernel image (what slab objects and sockets are):
 * arithmetic only, no access. Anything else is refused before the read,
 * because a non-canonical address makes the read take a general
 * protection fault, not a page fault, and the fixup of 6.1 warns about
 * that (with a CPU that reports 57 virtual address bits while the kernel
 * runs 4-level paging, as QEMU's "max" CPU does, 6.1 lets such an address
 * through to the read).
 */
static bool rocecc_rxe_kaddr(const void *p)
{
	return p && virt_addr_valid(p);
}

/*
 * The struct sock of rxe QP @qp's UDP socket, found in the first @size
 * bytes of the driver's QP object, or NULL. The caller holds a restrack
 * reference on @qp, which keeps the QP and its socket alive.
 */
static struct sock *rocecc_rxe_qp_sock(const struct ib_qp *qp, size_t size)
{
	const unsigned long *w = (const unsigned long *)qp;
	size_t i;

	for (i = sizeof(*qp) / sizeof(*w); i < size / sizeof(*w); i++) {
		struct socket *sock = (struct socket *)READ_ONCE(w[i]);
		struct socket *back;
		u16 family, type, proto;
		struct sock *sk;

		if (!rocecc_rxe_kaddr(sock) ||
		    get_kernel_nofault(sk, &sock->sk) || !rocecc_rxe_kaddr(sk) ||
		    get_kernel_nofault(back, &sk->sk_socket) || back != sock)
			continue;
		if (get_kernel_nofault(family, &sk->sk_family) ||
		    get_kernel_nofault(type, &sk->sk_type) ||
		    get_kernel_nofault(proto, &sk->sk_protocol))
			continue;
		if (family == AF_INET && type == SOCK_DGRAM &&
		    proto == IPPROTO_UDP)
			return sk;
	}
	return NULL;
}

static void rocecc_rxe_fail(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack)
		extack->_msg = msg;	/* rocecc_rxe_msg: outlives the request */
	else
		pr_warn("%s\n", msg + strlen("rocecc: "));
}

/*
 * Does rdma_rxe device @ibdev (of netdev @name) keep each QP in its UDP
 * socket's sk_user_data? 0 if it does, else -EOPNOTSUPP with a message
 * in @extack (or the kernel log without one). Process context; the
 * caller holds a reference on @ibdev, and RTNL when @extack is set.
 */
int rocecc_rxe_check(struct ib_device *ibdev, const char *name,
		     struct netlink_ext_ack *extack)
{
	char buf[ROCECC_RXE_MSG_LEN];
	char *msg = extack ? rocecc_rxe_msg : buf;
	struct rdma_restrack_entry *res;
	unsigned long ud = 0;
	struct ib_qp *qp;
	struct sock *sk;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP,
				     ROCECC_RXE_GSI_ID);
	if (IS_ERR(res)) {
		snprintf(msg, ROCECC_RXE_MSG_LEN,
			 "rocecc: cannot check rdma_rxe on %s: its QP1 is missing",
			 name);
		rocecc_rxe_fail(extack, msg);
		return -EOPNOTSUPP;
	}
	qp = container_of(res, struct ib_qp, res);
	/* The driver's QP object, allocated by ib_core with kzalloc(). */
	sk = rocecc_rxe_qp_sock(qp, ksize(qp));
	if (sk)
		get_kernel_nofault(ud, (__force unsigned long *)&sk->sk_user_data);
	rdma_restrack_put(res);

	if (sk && (ud & SK_USER_DATA_PTRMASK) == (unsigned long)qp)
		return 0;
	if (!sk)
		snprintf(msg, ROCECC_RXE_MSG_LEN,
			 "rocecc: rdma_rxe on %s: no UDP socket found in its QP1, so a packet's QP cannot be known: this kernel's rdma_rxe is not supported",
			 name);
	else
		snprintf(msg, ROCECC_RXE_MSG_LEN,
			 "rocecc: rdma_rxe on %s keeps %s in a QP socket's sk_user_data, not the QP: this kernel's rdma_rxe is not supported",
			 name, ud < PAGE_SIZE ? "an index" : "another object");
	rocecc_rxe_fail(extack, msg);
	return -EOPNOTSUPP;
}

/*
 * The local QPN of a packet rxe transmits on @rdev, or 0 if @skb is not
 * from a QP of the device's rxe: the hooks track, mark and pace only
 * packets for which this is not 0 (hooks.c), so it is also the check that
 * keeps local users out of other users' flows.
 *
 * rxe sends every packet of a QP through the QP's own UDP socket
 * (rxe_send() sets skb->sk; 6.1 and 6.12), which it created with
 * sock_create_kern() (rxe_qp_init_req()): a kernel socket, sk_kern_sock
 * set by sk_alloc() and never changed. A process cannot create a kernel
 * socket nor get a descriptor of one, so any user's UDP socket to port
 * 4791 fails here, whatever its packets say. Of kernel sockets, only
 * those whose sk_user_data points to a QP of this very rxe device pass:
 * only once rocecc_rxe_check() has passed for it (rdev->dp.ibdev is set)
 * is sk_user_data taken for a QP, and its device read without trusting
 * the pointer. The skb holds a QP reference (rxe_send), so the QP is
 * alive. The resolver confirms the QPN through ib_core before its timeout
 * is used. Any context, under RCU.
 */
u32 rocecc_rxe_lqpn(const struct sk_buff *skb, const struct rocecc_dev *rdev)
{
	const struct ib_device *ibdev = READ_ONCE(rdev->dp.ibdev);
	struct ib_device *qpdev;
	struct sock *sk = skb->sk;
	const struct ib_qp *qp;

	if (!ibdev || !sk || !sk_fullsock(sk) || !sk->sk_kern_sock ||
	    sk->sk_protocol != IPPROTO_UDP)
		return 0;
	/* Another UDP socket to port 4791 may keep anything there. */
	qp = rcu_dereference_sk_user_data(sk);
	if (!rocecc_rxe_kaddr(qp) || get_kernel_nofault(qpdev, &qp->device) ||
	    qpdev != ibdev)
		return 0;
	return qp->qp_num & ROCECC_BTH_QPN_MASK;
}
