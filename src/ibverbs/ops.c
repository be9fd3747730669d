/* SPDX-License-Identifier: MIT */
/*
 * The verbs_context ops and ibv_context_ops that no verb of the engine
 * backs. The inline functions of <infiniband/verbs.h> call an op only when
 * it is set (verbs_get_ctx_op) and fail silently otherwise; set, each
 * names its verb on stderr first, so a program that stops on one says
 * which. create_qp_ex and create_cq_ex are set to the real ones
 * (qp_ex.c, cq_ex.c), query_port and query_device_ex too (query.c).
 */
#include <errno.h>

#include "ibverbs/rv.h"

/* the ops' parameters are rdma-core's, and unused by a refusal */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* an op returning a pointer: NULL with errno; an int one: the errno */
#define OP_NULL(rtype, name, verb, ...) \
	static rtype *name(__VA_ARGS__) { rv_unsupported(verb, EOPNOTSUPP); return NULL; }
#define OP_ERR(name, verb, ...) \
	static int name(__VA_ARGS__) { return rv_unsupported(verb, EOPNOTSUPP); }

OP_NULL(struct ibv_mw, u_alloc_mw, "ibv_alloc_mw", struct ibv_pd *a, enum ibv_mw_type b)
OP_ERR(u_bind_mw, "ibv_bind_mw", struct ibv_qp *a, struct ibv_mw *b, struct ibv_mw_bind *c)
OP_ERR(u_dealloc_mw, "ibv_dealloc_mw", struct ibv_mw *a)
OP_ERR(u_advise_mr, "ibv_advise_mr", struct ibv_pd *a, enum ibv_advise_mr_advice b,
       uint32_t c, struct ibv_sge *d, uint32_t e)
OP_NULL(struct ibv_mr, u_alloc_null_mr, "ibv_alloc_null_mr", struct ibv_pd *a)
OP_ERR(u_read_counters, "ibv_read_counters", struct ibv_counters *a, uint64_t *b,
       uint32_t c, uint32_t d)
OP_ERR(u_attach_counters, "ibv_attach_counters_point_flow", struct ibv_counters *a,
       struct ibv_counter_attach_attr *b, struct ibv_flow *c)
OP_NULL(struct ibv_counters, u_create_counters, "ibv_create_counters", struct ibv_context *a,
	struct ibv_counters_init_attr *b)
OP_ERR(u_destroy_counters, "ibv_destroy_counters", struct ibv_counters *a)
OP_NULL(struct ibv_mr, u_reg_dm_mr, "ibv_reg_dm_mr", struct ibv_pd *a, struct ibv_dm *b, uint64_t c,
	size_t d, unsigned int e)
OP_NULL(struct ibv_dm, u_alloc_dm, "ibv_alloc_dm", struct ibv_context *a, struct ibv_alloc_dm_attr *b)
OP_ERR(u_free_dm, "ibv_free_dm", struct ibv_dm *a)
OP_ERR(u_modify_flow_action_esp, "ibv_modify_flow_action_esp", struct ibv_flow_action *a,
       struct ibv_flow_action_esp_attr *b)
OP_ERR(u_destroy_flow_action, "ibv_destroy_flow_action", struct ibv_flow_action *a)
OP_NULL(struct ibv_flow_action, u_create_flow_action_esp, "ibv_create_flow_action_esp", struct ibv_context *a,
	struct ibv_flow_action_esp_attr *b)
OP_ERR(u_modify_qp_rate_limit, "ibv_modify_qp_rate_limit", struct ibv_qp *a,
       struct ibv_qp_rate_limit_attr *b)
OP_NULL(struct ibv_pd, u_alloc_parent_domain, "ibv_alloc_parent_domain", struct ibv_context *a,
	struct ibv_parent_domain_init_attr *b)
OP_ERR(u_dealloc_td, "ibv_dealloc_td", struct ibv_td *a)
OP_NULL(struct ibv_td, u_alloc_td, "ibv_alloc_td", struct ibv_context *a, struct ibv_td_init_attr *b)
OP_ERR(u_modify_cq, "ibv_modify_cq", struct ibv_cq *a, struct ibv_modify_cq_attr *b)
OP_ERR(u_post_srq_ops, "ibv_post_srq_ops", struct ibv_srq *a, struct ibv_ops_wr *b,
       struct ibv_ops_wr **c)
OP_ERR(u_destroy_rwq_ind_table, "ibv_destroy_rwq_ind_table", struct ibv_rwq_ind_table *a)
OP_NULL(struct ibv_rwq_ind_table, u_create_rwq_ind_table, "ibv_create_rwq_ind_table", struct ibv_context *a,
	struct ibv_rwq_ind_table_init_attr *b)
OP_ERR(u_destroy_wq, "ibv_destroy_wq", struct ibv_wq *a)
OP_ERR(u_modify_wq, "ibv_modify_wq", struct ibv_wq *a, struct ibv_wq_attr *b)
OP_NULL(struct ibv_wq, u_create_wq, "ibv_create_wq", struct ibv_context *a, struct ibv_wq_init_attr *b)
OP_ERR(u_query_rt_values, "ibv_query_rt_values_ex", struct ibv_context *a,
       struct ibv_values_ex *b)
OP_ERR(u_destroy_flow, "ibv_destroy_flow", struct ibv_flow *a)
OP_NULL(struct ibv_flow, u_create_flow, "ibv_create_flow", struct ibv_qp *a, struct ibv_flow_attr *b)
OP_NULL(struct ibv_qp, u_open_qp, "ibv_open_qp", struct ibv_context *a, struct ibv_qp_open_attr *b)
OP_ERR(u_get_srq_num, "ibv_get_srq_num", struct ibv_srq *a, uint32_t *b)
OP_NULL(struct ibv_srq, u_create_srq_ex, "ibv_create_srq_ex", struct ibv_context *a,
	struct ibv_srq_init_attr_ex *b)
OP_NULL(struct ibv_xrcd, u_open_xrcd, "ibv_open_xrcd", struct ibv_context *a, struct ibv_xrcd_init_attr *b)
OP_ERR(u_close_xrcd, "ibv_close_xrcd", struct ibv_xrcd *a)

void rv_set_unsupported_ops(struct verbs_context *v)
{
	v->context.ops.alloc_mw = u_alloc_mw;
	v->context.ops.bind_mw = u_bind_mw;
	v->context.ops.dealloc_mw = u_dealloc_mw;
	v->advise_mr = u_advise_mr;
	v->alloc_null_mr = u_alloc_null_mr;
	v->read_counters = u_read_counters;
	v->attach_counters_point_flow = u_attach_counters;
	v->create_counters = u_create_counters;
	v->destroy_counters = u_destroy_counters;
	v->reg_dm_mr = u_reg_dm_mr;
	v->alloc_dm = u_alloc_dm;
	v->free_dm = u_free_dm;
	v->modify_flow_action_esp = u_modify_flow_action_esp;
	v->destroy_flow_action = u_destroy_flow_action;
	v->create_flow_action_esp = u_create_flow_action_esp;
	v->modify_qp_rate_limit = u_modify_qp_rate_limit;
	v->alloc_parent_domain = u_alloc_parent_domain;
	v->dealloc_td = u_dealloc_td;
	v->alloc_td = u_alloc_td;
	v->modify_cq = u_modify_cq;
	v->post_srq_ops = u_post_srq_ops;
	v->destroy_rwq_ind_table = u_destroy_rwq_ind_table;
	v->create_rwq_ind_table = u_create_rwq_ind_table;
	v->destroy_wq = u_destroy_wq;
	v->modify_wq = u_modify_wq;
	v->create_wq = u_create_wq;
	v->query_rt_values = u_query_rt_values;
	v->create_cq_ex = rv_create_cq_ex;
	v->ibv_destroy_flow = u_destroy_flow;
	v->ibv_create_flow = u_create_flow;
	v->open_qp = u_open_qp;
	v->create_qp_ex = rv_create_qp_ex;
	v->get_srq_num = u_get_srq_num;
	v->create_srq_ex = u_create_srq_ex;
	v->open_xrcd = u_open_xrcd;
	v->close_xrcd = u_close_xrcd;
}
