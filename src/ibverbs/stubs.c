/* SPDX-License-Identifier: MIT */
/*
 * Every other function rdma-core 44's libibverbs.so.1 exports (its
 * libibverbs.map.in), so that any program, and the provider libraries a
 * program may be linked with (perftest needs libmlx5.so.1 and libefa.so.1,
 * which bind every symbol at load: BIND_NOW), finds each symbol at its
 * version. Each names itself on stderr and fails as its verb fails:
 * NULL with errno, an errno value, or nothing for a void one. The
 * definitions take no parameters: the callers' arguments are ignored,
 * which the x86-64 calling convention allows, and this file does not
 * read rdma-core's prototypes (the versions in libibverbs.map).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "ibverbs/unsupported.h"

#define STUB_ERR(name, err) \
	int name(void); \
	int name(void) { return rv_unsupported(#name, err); }
#define STUB_NULL(name) \
	void *name(void); \
	void *name(void) { rv_unsupported(#name, EOPNOTSUPP); return NULL; }
#define STUB_VOID(name) \
	void name(void); \
	void name(void) { rv_unsupported(#name, EOPNOTSUPP); }
/* the provider interface: a program's verbs never reach a provider here */
#define STUB_CMD(name) STUB_ERR(name, ENOSYS)

/* IBVERBS_1.0: kernel ABI copies librdmacm uses */
STUB_VOID(ibv_copy_path_rec_from_kern)
STUB_VOID(ibv_copy_path_rec_to_kern)
STUB_VOID(ibv_copy_qp_attr_from_kern)

/* IBVERBS_1.1 */
STUB_ERR(ibv_attach_mcast, EOPNOTSUPP)
STUB_ERR(ibv_detach_mcast, EOPNOTSUPP)
STUB_VOID(ibv_copy_ah_attr_from_kern)
STUB_ERR(ibv_resolve_eth_l2_from_gid, EOPNOTSUPP)

/* IBVERBS_1.6 .. 1.13 */
STUB_NULL(ibv_import_device)
STUB_NULL(ibv_import_mr)
STUB_NULL(ibv_import_pd)
STUB_ERR(ibv_query_ece, EOPNOTSUPP)
STUB_ERR(ibv_set_ece, EOPNOTSUPP)
STUB_VOID(ibv_unimport_mr)
STUB_VOID(ibv_unimport_pd)
STUB_NULL(ibv_reg_dmabuf_mr)
STUB_NULL(ibv_import_dm)
STUB_VOID(ibv_unimport_dm)

/* IBVERBS_PRIVATE_34: what providers call */
STUB_ERR(__ioctl_final_num_attrs, ENOSYS)
STUB_NULL(_verbs_init_and_alloc_context)
STUB_ERR(execute_ioctl, ENOSYS)
STUB_NULL(verbs_open_device)
STUB_VOID(verbs_init_cq)
STUB_VOID(verbs_set_ops)
STUB_VOID(verbs_uninit_context)
STUB_CMD(ibv_cmd_advise_mr)
STUB_CMD(ibv_cmd_alloc_dm)
STUB_CMD(ibv_cmd_alloc_mw)
STUB_CMD(ibv_cmd_alloc_pd)
STUB_CMD(ibv_cmd_attach_mcast)
STUB_CMD(ibv_cmd_close_xrcd)
STUB_CMD(ibv_cmd_create_ah)
STUB_CMD(ibv_cmd_create_counters)
STUB_CMD(ibv_cmd_create_cq)
STUB_CMD(ibv_cmd_create_cq_ex)
STUB_CMD(ibv_cmd_create_flow)
STUB_CMD(ibv_cmd_create_flow_action_esp)
STUB_CMD(ibv_cmd_create_qp)
STUB_CMD(ibv_cmd_create_qp_ex)
STUB_CMD(ibv_cmd_create_qp_ex2)
STUB_CMD(ibv_cmd_create_rwq_ind_table)
STUB_CMD(ibv_cmd_create_srq)
STUB_CMD(ibv_cmd_create_srq_ex)
STUB_CMD(ibv_cmd_create_wq)
STUB_CMD(ibv_cmd_dealloc_mw)
STUB_CMD(ibv_cmd_dealloc_pd)
STUB_CMD(ibv_cmd_dereg_mr)
STUB_CMD(ibv_cmd_destroy_ah)
STUB_CMD(ibv_cmd_destroy_counters)
STUB_CMD(ibv_cmd_destroy_cq)
STUB_CMD(ibv_cmd_destroy_flow)
STUB_CMD(ibv_cmd_destroy_flow_action)
STUB_CMD(ibv_cmd_destroy_qp)
STUB_CMD(ibv_cmd_destroy_rwq_ind_table)
STUB_CMD(ibv_cmd_destroy_srq)
STUB_CMD(ibv_cmd_destroy_wq)
STUB_CMD(ibv_cmd_detach_mcast)
STUB_CMD(ibv_cmd_free_dm)
STUB_CMD(ibv_cmd_get_context)
STUB_CMD(ibv_cmd_modify_cq)
STUB_CMD(ibv_cmd_modify_flow_action_esp)
STUB_CMD(ibv_cmd_modify_qp)
STUB_CMD(ibv_cmd_modify_qp_ex)
STUB_CMD(ibv_cmd_modify_srq)
STUB_CMD(ibv_cmd_modify_wq)
STUB_CMD(ibv_cmd_open_qp)
STUB_CMD(ibv_cmd_open_xrcd)
STUB_CMD(ibv_cmd_poll_cq)
STUB_CMD(ibv_cmd_post_recv)
STUB_CMD(ibv_cmd_post_send)
STUB_CMD(ibv_cmd_post_srq_recv)
STUB_CMD(ibv_cmd_query_context)
STUB_CMD(ibv_cmd_query_device_any)
STUB_CMD(ibv_cmd_query_mr)
STUB_CMD(ibv_cmd_query_port)
STUB_CMD(ibv_cmd_query_qp)
STUB_CMD(ibv_cmd_query_srq)
STUB_CMD(ibv_cmd_read_counters)
STUB_CMD(ibv_cmd_reg_dm_mr)
STUB_CMD(ibv_cmd_reg_dmabuf_mr)
STUB_CMD(ibv_cmd_reg_mr)
STUB_CMD(ibv_cmd_req_notify_cq)
STUB_CMD(ibv_cmd_rereg_mr)
STUB_CMD(ibv_cmd_resize_cq)

/* A provider's constructor registers it (perftest's libmlx5.so.1 and
 * libefa.so.1 do, at load): there is no kernel device for it to drive, so
 * it is left out, silently, as libibverbs leaves out a provider whose
 * devices are absent. */
void verbs_register_driver_34(void);
void verbs_register_driver_34(void) {}
void ibv_register_driver(void);
void ibv_register_driver(void) {}
/* rdma-core's logging hook for providers (verbs_debug and the like) */
void __verbs_log(void);
void __verbs_log(void) {}
/* read by providers on device disassociation */
bool verbs_allow_disassociate_destroy;
