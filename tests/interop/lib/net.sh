# shellcheck shell=bash
# The interop wire, sourced by tests/interop/run.
#
#  netns $NET_WIRE                                         netns $NET_US
#  +-----------------------------------------------+       +----------------------+
#  | br0 (no address; tcpdump; nft loss; garbage)  |       | roce0 10.91.0.2/24   |
#  |  +- tap-a -- qemu guest a: eth0 10.91.0.11    |       |  our tools           |
#  |  +- tap-b -- qemu guest b: eth0 10.91.0.12    |       |  (AF_PACKET + the    |
#  |  +- us-br ======== veth ======================+=======+= TCP out-of-band)    |
#  +-----------------------------------------------+       +----------------------+
#
# Our tools get a namespace of their own so that roce0 is the only
# interface holding 10.91.0.0/24 there (two interfaces of one subnet in one
# namespace would both answer ARP). The bridge has no address: nothing on
# the host takes part in the traffic. IPv6 is off everywhere, so the
# captures hold only what the test sends (no router solicitations, no MLD).
#
# Everything lives in namespaces the harness creates; no route leaves them.

NET_SUBNET=10.91.0
NET_US_IP=$NET_SUBNET.2
NET_US_MAC=02:52:4e:00:00:02
NET_US_IF=roce0

# net_init TAG: namespace names for this run
net_init() {
	NET_WIRE=rni-$1-wire
	NET_US=rni-$1-us
}

in_wire() { ip netns exec "$NET_WIRE" "$@"; }
in_us() { ip netns exec "$NET_US" "$@"; }

net_no_ipv6() { # NS IFACE
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" 2>/dev/null || true
}

# net_up: both namespaces, the bridge, the veth to our namespace
net_up() {
	local ns
	for ns in "$NET_WIRE" "$NET_US"; do
		ip netns add "$ns" || return 1
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
		ip netns exec "$ns" ip link set lo up || return 1
	done
	# no multicast snooping: neighbour solicitations go to solicited-node
	# groups that our engine's port answers without joining them (MLD)
	in_wire ip link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0 || return 1
	in_wire ip link add us-br type veth peer name "$NET_US_IF" netns "$NET_US" || return 1
	in_wire ip link set us-br master br0 up || return 1
	in_wire ip link set br0 up || return 1
	in_us ip link set "$NET_US_IF" address "$NET_US_MAC" || return 1
	in_us ip addr add "$NET_US_IP/24" dev "$NET_US_IF" || return 1
	in_us ip link set "$NET_US_IF" up || return 1
}

# net_tap NAME: a tap port on the bridge for a guest
net_tap() {
	in_wire ip tuntap add dev "$1" mode tap || return 1
	in_wire ip link set "$1" master br0 up
}

# net_mtu MTU: every link of the wire (the guests set their eth0 themselves)
net_mtu() {
	local ifc
	for ifc in $(in_wire ls /sys/class/net); do
		case "$ifc" in lo|br0) continue ;; esac
		in_wire ip link set "$ifc" mtu "$1" || return 1
	done
	in_wire ip link set br0 mtu "$1" || return 1
	in_us ip link set "$NET_US_IF" mtu "$1"
}

# net_loss PCT [MAC]: drop PCT % of the RoCE v2 frames the bridge forwards,
# in both directions, at random (nftables numgen: the host kernel has no
# sch_netem). 0 removes the rule. With MAC (a run through the RDMA CM),
# also the first CM MAD from MAC that the random rule let through: a UD
# SEND to QP1 (the BTH's destination QP, UDP payload bytes 5..7) of
# management class 0x07 (MAD byte 1, UDP payload byte 29), so that the
# sender's CM must send it again, whatever the dice did. The other side's
# DREQ (attribute 0x0015, MAD bytes 16..17, UDP payload bytes 44..45) is
# spared: rping destroys its ID right after rdma_disconnect, which cancels
# the kernel CM's resends, so a lost DREQ would leave the passive side
# waiting for ever, rxe's own rping server as much as ours.
net_loss() {
	in_wire nft delete table bridge rni_loss 2>/dev/null
	[ "$1" = 0 ] && return 0
	local mad= spare=
	if [ -n "${2:-}" ]; then
		spare="ether saddr != $2 udp dport 4791 @th,104,24 1 @th,232,8 0x07 @th,352,16 0x0015 accept"
		mad="ether saddr $2 udp dport 4791 @th,104,24 1 @th,232,8 0x07 numgen inc mod 1000000 == 0 counter drop"
	fi
	in_wire nft -f - <<EOF
table bridge rni_loss {
	chain forward {
		type filter hook forward priority filter; policy accept;
		$spare
		udp dport 4791 numgen random mod 100 < $1 counter drop
		$mad
	}
}
EOF
}

# net_ce on|off: the bridge sets ECN CE (11b) on every RoCE v2 frame it
# forwards to our port, as a congested switch does to ECN-capable traffic
# (RFC 3168; docs/cc.md), whatever the frame's ECN field was: rxe sends
# Not-ECT, which no switch would mark, but our notification point reads
# the field only. nftables rewrites the IPv4 header checksum with it; the
# ICRC leaves the field out (IBA A17.8). IPv4's TOS and IPv6's traffic
# class, one rule each.
net_ce() {
	in_wire nft delete table bridge rni_ce 2>/dev/null
	[ "$1" = off ] && return 0
	in_wire nft -f - <<EOF
table bridge rni_ce {
	chain forward {
		type filter hook forward priority filter; policy accept;
		ether daddr $NET_US_MAC udp dport 4791 ip ecn set ce counter
		ether daddr $NET_US_MAC udp dport 4791 ip6 ecn set ce counter
	}
}
EOF
}

# net_ce_count: frames the CE rules marked so far (both families)
net_ce_count() {
	in_wire nft list table bridge rni_ce 2>/dev/null |
		sed -n 's/.*counter packets \([0-9]*\) .*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}

# net_loss_count: frames the loss rule dropped so far
net_loss_count() {
	in_wire nft list table bridge rni_loss 2>/dev/null |
		sed -n 's/.*counter packets \([0-9]*\) .*/\1/p' | head -n1
}

# net_down: delete the namespaces (their links go with them)
net_down() {
	local ns
	for ns in "${NET_WIRE:-}" "${NET_US:-}"; do
		[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# net_listening NS PORT: is a TCP socket listening on PORT in NS?
net_listening() {
	ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .
}
