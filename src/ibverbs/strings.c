/* SPDX-License-Identifier: MIT */
/*
 * The enum-to-string verbs and the rate conversions (rdma-core's
 * enum_strs.c and verbs.c): the words libibverbs prints, so a program's
 * messages read the same on the engine. Rates: IBA 9.7.4 static rates.
 */
#include <infiniband/verbs.h>
#include <stddef.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const s[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return (unsigned)t < N(s) && s[t] ? s[t] : "unknown";
}

const char *ibv_port_state_str(enum ibv_port_state s)
{
	static const char *const n[] = {
		[IBV_PORT_NOP] = "PORT_NOP",
		[IBV_PORT_DOWN] = "PORT_DOWN",
		[IBV_PORT_INIT] = "PORT_INIT",
		[IBV_PORT_ARMED] = "PORT_ARMED",
		[IBV_PORT_ACTIVE] = "PORT_ACTIVE",
		[IBV_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	return (unsigned)s < N(n) ? n[s] : "unknown";
}

const char *ibv_event_type_str(enum ibv_event_type e)
{
	static const char *const n[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return (unsigned)e < N(n) && n[e] ? n[e] : "unknown";
}

const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	static const char *const n[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return (unsigned)s < N(n) && n[s] ? n[s] : "unknown";
}

/* IBA 9.7.4 static rates: multiples of 2.5 Gb/s, and the later rates in
 * Mb/s; index = enum ibv_rate */
static const struct { int mult; int mbps; } rates[] = {
	[IBV_RATE_MAX] = { 0, 0 },
	[IBV_RATE_2_5_GBPS] = { 1, 2500 },
	[IBV_RATE_5_GBPS] = { 2, 5000 },
	[IBV_RATE_10_GBPS] = { 4, 10000 },
	[IBV_RATE_20_GBPS] = { 8, 20000 },
	[IBV_RATE_30_GBPS] = { 12, 30000 },
	[IBV_RATE_40_GBPS] = { 16, 40000 },
	[IBV_RATE_60_GBPS] = { 24, 60000 },
	[IBV_RATE_80_GBPS] = { 32, 80000 },
	[IBV_RATE_120_GBPS] = { 48, 120000 },
	[IBV_RATE_14_GBPS] = { 0, 14062 },
	[IBV_RATE_56_GBPS] = { 0, 56250 },
	[IBV_RATE_112_GBPS] = { 0, 112500 },
	[IBV_RATE_168_GBPS] = { 0, 168750 },
	[IBV_RATE_25_GBPS] = { 0, 25781 },
	[IBV_RATE_100_GBPS] = { 0, 103125 },
	[IBV_RATE_200_GBPS] = { 0, 206250 },
	[IBV_RATE_300_GBPS] = { 0, 309375 },
	[IBV_RATE_28_GBPS] = { 0, 28125 },
	[IBV_RATE_50_GBPS] = { 0, 53125 },
	[IBV_RATE_400_GBPS] = { 0, 425000 },
	[IBV_RATE_600_GBPS] = { 0, 637500 },
};

int __attribute__((const)) ibv_rate_to_mult(enum ibv_rate rate)
{
	return (unsigned)rate < N(rates) && rates[rate].mult ? rates[rate].mult : -1;
}

enum ibv_rate __attribute__((const)) mult_to_ibv_rate(int mult)
{
	for (unsigned i = 1; i < N(rates); i++)
		if (rates[i].mult && rates[i].mult == mult)
			return (enum ibv_rate)i;
	return IBV_RATE_MAX;
}

int __attribute__((const)) ibv_rate_to_mbps(enum ibv_rate rate)
{
	return (unsigned)rate < N(rates) && rates[rate].mbps ? rates[rate].mbps : -1;
}

enum ibv_rate __attribute__((const)) mbps_to_ibv_rate(int mbps)
{
	for (unsigned i = 1; i < N(rates); i++)
		if (rates[i].mbps == mbps)
			return (enum ibv_rate)i;
	return IBV_RATE_MAX;
}
