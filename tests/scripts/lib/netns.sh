# Sourced by the script tests: two network namespaces made for a test,
# joined by a veth pair (the only interfaces a test may send on).

# netns_pair NSA NSB IFA IFB ADDR_A ADDR_B: namespaces NSA and NSB, IFA in
# NSA and IFB in NSB (ADDR as A.B.C.D/NN), both up, loopback up.
netns_pair() {
	local nsa=$1 nsb=$2 ifa=$3 ifb=$4 addra=$5 addrb=$6
	ip netns add "$nsa" && ip netns add "$nsb" &&
	ip link add "$ifa" netns "$nsa" type veth peer name "$ifb" netns "$nsb" &&
	ip -n "$nsa" addr add "$addra" dev "$ifa" && ip -n "$nsb" addr add "$addrb" dev "$ifb" &&
	ip -n "$nsa" link set "$ifa" up && ip -n "$nsb" link set "$ifb" up &&
	ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up
}

# netns_del NS...: remove the namespaces (and so their interfaces), if any
netns_del() {
	local ns
	for ns in "$@"; do ip netns del "$ns" 2>/dev/null || true; done
}
