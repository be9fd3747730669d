# Sourced by the script tests: two network namespaces made for a test,
# joined by a veth pair (the only interfaces a test may send on).

# netns_pair NSA NSB IFA IFB ADDR_A ADDR_B: namespaces NSA and NSB, IFA in
# NSA and IFB in NSB (ADDR as A.B.C.D/NN), both up, loopback up. Fails
# (status 1, a FAIL line on stderr) unless both ends end up there and up.
netns_pair() {
	local nsa=$1 nsb=$2 ifa=$3 ifb=$4 addra=$5 addrb=$6 ns ifc
	if ! { ip netns add "$nsa" && ip netns add "$nsb" &&
	       ip link add "$ifa" netns "$nsa" type veth peer name "$ifb" netns "$nsb" &&
	       ip -n "$nsa" addr add "$addra" dev "$ifa" &&
	       ip -n "$nsb" addr add "$addrb" dev "$ifb" &&
	       ip -n "$nsa" link set "$ifa" up && ip -n "$nsb" link set "$ifb" up &&
	       ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up; }; then
		echo "FAIL: netns_pair: cannot make $nsa/$ifa <-> $nsb/$ifb" >&2
		return 1
	fi
	for ns in "$nsa:$ifa" "$nsb:$ifb"; do
		ifc=${ns#*:}; ns=${ns%%:*}
		if ! ip -n "$ns" -o link show "$ifc" | grep -qE '[<,]UP[,>]'; then
			echo "FAIL: netns_pair: $ifc in $ns is not up" >&2
			return 1
		fi
	done
}

# netns_del NS...: remove the namespaces (and so their interfaces), if any;
# status 1 and a FAIL line when one is still there afterwards
netns_del() {
	local ns rc=0
	for ns in "$@"; do
		ip netns del "$ns" 2>/dev/null || true
		if ip netns list | grep -qw -- "$ns"; then
			echo "FAIL: netns_del: namespace $ns is still there" >&2
			rc=1
		fi
	done
	return $rc
}

# netns_script_init NS...: the frame of a script test that makes the
# namespaces NS: a scratch directory $TMP, a list $pids of background
# processes, and at exit those processes killed (by PID), the namespaces
# removed and $TMP deleted
netns_script_init() {
	NETNS_OWNED=("$@")
	pids=()
	TMP=$(mktemp -d)
	trap netns_script_cleanup EXIT
}
netns_script_cleanup() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null; done
	netns_del "${NETNS_OWNED[@]}"
	rm -rf "$TMP"
}
