/* SPDX-License-Identifier: MIT */
/*
 * For the libibverbs programs of tests/verbs: an RC QP from RESET to RTS
 * toward a peer's QPN and GID, over our IPv4 GID (index 1), as
 * ibv_rc_pingpong moves its QP (path MTU 1024, timeout 14, 7 retries);
 * qp_to_rts_rd with rd READs/atomics outstanding each way (perftest's
 * ib_read_bw asks the device's most: 128 on rxe).
 */
#ifndef ROCE_TESTS_VERBS_QP_RTS_H
#define ROCE_TESTS_VERBS_QP_RTS_H

#include <infiniband/verbs.h>
#include <string.h>

static inline int qp_to_rts_rd(struct ibv_qp *qp, uint32_t qpn, const union ibv_gid *gid,
			       unsigned access, uint8_t rd)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = access };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qpn;
	a.max_dest_rd_atomic = rd;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.grh.dgid = *gid;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static inline int qp_to_rts(struct ibv_qp *qp, uint32_t qpn, const union ibv_gid *gid,
			    unsigned access)
{
	return qp_to_rts_rd(qp, qpn, gid, access, 1);
}

#endif
