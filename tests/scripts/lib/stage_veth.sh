# shellcheck shell=bash
# Sourced by the staged tools' tests over veth (perf_stage_veth.sh,
# pingpong_stage_veth.sh), after lib/netns.sh: a server in one namespace
# and a client in the other, and a counter of either side's output.

# stage_veth_run NS_SRV NS_CLI "SERVER CMD" "CLIENT CMD" SERVER_IP: both
# sides (words split), output in $TMP/srv and $TMP/cli; both must pass
stage_veth_run() {
	local sp crc src
	# shellcheck disable=SC2086
	ip netns exec "$1" timeout -k 5 60 $3 >"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	# shellcheck disable=SC2086
	ip netns exec "$2" timeout -k 5 60 $4 "$5" >"$TMP/cli" 2>&1
	crc=$?
	wait "$sp"
	src=$?
	[ $crc = 0 ] && [ $src = 0 ]
}

# counter FILE NAME: its value in a side's output ($TMP/FILE; 0 when absent)
counter() { awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }' "$TMP/$1"; }

# stage_veth_pair NAME IF_SRV IF_CLI NET (root checked by the caller):
# python3-cryptography and $XTS_REF there (else NAME: FAIL, status 1),
# the veth pair NET.1/24 (server) NET.2/24, and $KEY, 64 random bytes
stage_veth_pair() {
	if ! python3 -c 'import cryptography' 2>/dev/null || [ ! -f "$XTS_REF" ]; then
		echo "$1: FAIL (needs python3-cryptography and $XTS_REF)"
		return 1
	fi
	netns_pair "$NA" "$NB" "$2" "$3" "$4.1/24" "$4.2/24" || { echo "FAIL: veth setup"; return 1; }
	KEY=$TMP/key
	head -c 64 /dev/urandom >"$KEY"
}
