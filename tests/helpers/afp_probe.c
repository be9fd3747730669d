/* SPDX-License-Identifier: MIT */
/*
 * afp_probe NS IFNAME OUR_IP PEER_IP COUNT: from a raw-Ethernet port in
 * network namespace NS, resolve PEER_IP (ARP, or the kernel's table) and
 * send COUNT well-formed RoCE v2 SEND ONLY packets to a QP the peer does
 * not have (0xABCDE), so a peer engine counts each as a drop_qpn. Prints
 * the peer's MAC. Exit 0 = resolved and sent.
 */
#include "afp_helper.h"
#include "roce/opcode.h"
#include "roce/packet.h"

int main(int argc, char **argv)
{
	struct roce_afpacket *afp;
	struct roce_hdrs h = { 0 };
	uint8_t mac[6], frame[256], payload[64];
	uint32_t ip, peer;
	unsigned count;
	size_t len;

	if (argc != 6 || sscanf(argv[5], "%u", &count) != 1 || count > 10000) {
		fprintf(stderr, "usage: afp_probe NS IFNAME OUR_IP PEER_IP COUNT\n");
		return 2;
	}
	h_watchdog(30);
	ip = h_ip(argv[3]);
	peer = h_ip(argv[4]);
	h_enter_ns(argv[1]);
	afp = h_open(argv[2], ROCE_AFP_AUTO, ip, false);
	CHECK_OK(roce_afpacket_resolve(afp, peer, 3000, mac));
	memcpy(h.eth.dst, mac, 6);
	memcpy(h.eth.src, roce_afpacket_port(afp)->mac, 6);
	h.ip.ttl = 64;
	h.ip.frag = ROCE_IPV4_DF;
	roce_put_be32(h.ip.src, ip);
	roce_put_be32(h.ip.dst, peer);
	h.udp.sport = 0xC123;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_SEND_ONLY;
	h.bth.pkey = 0xFFFF;
	h.bth.dqpn = 0xABCDE;
	memset(payload, 0x5A, sizeof(payload));
	for (unsigned i = 0; i < count; i++) {
		struct roce_frame f;
		uint64_t end = h_now_ms() + 1000;

		h.bth.psn = i;
		CHECK_OK(roce_build(&h, payload, sizeof(payload), 0, frame,
				    sizeof(frame), &len));
		f = (struct roce_frame){ frame, (uint32_t)len };
		while (roce_port_tx(roce_afpacket_port(afp), &f, 1) != 1)
			CHECK(h_now_ms() < end, "port full");
	}
	printf("%02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1], mac[2], mac[3],
	       mac[4], mac[5]);
	roce_afpacket_close(afp);
	return 0;
}
