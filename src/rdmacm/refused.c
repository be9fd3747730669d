/* SPDX-License-Identifier: MIT */
/*
 * What the drop-in librdmacm.so.1 exports and does not offer: every name
 * of rdma-core 44's librdmacm.map is here, so that a program that links
 * one loads (Debian builds with BIND_NOW), and each says on stderr what
 * it is and why it is refused, once a call, failing as its function
 * fails (-1, or NULL, with errno).
 *
 *   - multicast (rdma_join_multicast, _ex, rdma_leave_multicast): the
 *     engine has no multicast groups (docs/verbs.md, Limits);
 *   - ECE (rdma_set_local_ece, rdma_get_remote_ece, rdma_reject_ece):
 *     the engine's CM carries no ECE, as rxe's does not;
 *   - rdma_notify: the engine's CM has no communication-established
 *     notification (its RTU is resent by the active side instead);
 *   - rsockets' iomaps (riomap, riounmap, riowrite): stream rsockets
 *     are offered (rs_sock.c), direct placement is not.
 */
#include <errno.h>
#include <stdio.h>

#include <rdma/rsocket.h>

#include "rdmacm/rc.h"

#define NO_MCAST "multicast is not supported by this device"
#define NO_ECE "ECE is not supported (the CM carries none, as rxe's)"
#define NO_IOMAP "iomaps (direct placement into a mapped buffer) are not supported " \
		 "by this librdmacm's rsockets"

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id, (void)addr, (void)context;
	return rc_refuse("rdma_join_multicast", NO_MCAST, EOPNOTSUPP);
}

int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	(void)id, (void)mc_join_attr, (void)context;
	return rc_refuse("rdma_join_multicast_ex", NO_MCAST, EOPNOTSUPP);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id, (void)addr;
	return rc_refuse("rdma_leave_multicast", NO_MCAST, EOPNOTSUPP);
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return rc_refuse("rdma_set_local_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return rc_refuse("rdma_get_remote_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id, (void)private_data, (void)private_data_len;
	return rc_refuse("rdma_reject_ece", NO_ECE, EOPNOTSUPP);
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id, (void)event;
	return rc_refuse("rdma_notify", "not supported by this CM (the active side resends "
			 "its RTU)", EOPNOTSUPP);
}

/* ---- rsockets ------------------------------------------------------------------ */

static int no_iomap(const char *what)
{
	return rc_refuse(what, NO_IOMAP, ENOSYS);
}

off_t riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	(void)socket, (void)buf, (void)len, (void)prot, (void)flags, (void)offset;
	return no_iomap("riomap");
}

int riounmap(int socket, void *buf, size_t len)
{
	(void)socket, (void)buf, (void)len;
	return no_iomap("riounmap");
}

size_t riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	(void)socket, (void)buf, (void)count, (void)offset, (void)flags;
	no_iomap("riowrite");
	return 0;       /* rsockets' riowrite: the bytes written, errno set */
}
