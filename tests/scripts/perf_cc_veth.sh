#!/usr/bin/env bash
# roce-perf --cc and --tclass over a bridge between two network namespaces
# made here (a third one holds the bridge, as the interop harness's wire):
# the client's data frames leave with the --tclass DSCP and ECT(0); an
# nftables rule on the bridge sets CE on every RoCE frame to the server
# (what a congested switch does); the server counts them
# (np_ecn_marked_roce_packets) and answers with CNPs (np_cnp_sent: BTH
# opcode 0x81, DSCP 48 and ECT(1) on the wire, tshark dissects them clean),
# the client's DCQCN acts on them (rp_cnp_handled) and both sides finish.
# Without --cc nothing is ECN-capable and no CNP is sent. Then --window 64
# --adaptive-rto under 5 % random loss on the bridge: the run completes,
# resends, and tail-loss probes end some stalls (tail_probes). The option
# errors first (exit 2).
# Usage: perf_cc_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
PERF=$B/tools/roce-perf
NA=rcc-a-$$ NB=rcc-b-$$ NM=rcc-m-$$
fails=0 pass=0
netns_script_init "$NA" "$NB" "$NM"

fail() { fails=$((fails + 1)); echo "FAIL $*"; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

expect "--tclass out of range" 2 "traffic class '256': not 0..255" "$PERF" write_bw --tclass 256
expect "--tclass with -R" 2 "--tclass with -R is not supported" "$PERF" write_bw -R --tclass 96
expect "--help documents --cc" 0 "--cc " "$PERF" --help
expect "--help documents --tclass" 0 "--tclass=" "$PERF" --help
expect "--window 0" 2 "--window '0': not 1..1048576 KB" "$PERF" write_bw --window 0
expect "--help documents --adaptive-rto" 0 "--adaptive-rto" "$PERF" --help

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v nft >/dev/null ||
   ! command -v tcpdump >/dev/null || ! command -v tshark >/dev/null; then
	echo "perf_cc_veth: SKIP the runs (needs root, namespaces, nft, tcpdump, tshark)"
	echo "$pass passed, $fails failed"
	[ $fails -eq 0 ]
	exit
fi

# NA (server, va) -- NM: bridge br0 (pa, pb) -- NB (client, vb)
for ns in "$NA" "$NB" "$NM"; do
	ip netns add "$ns" && ip -n "$ns" link set lo up || { echo "FAIL: netns $ns"; exit 1; }
done
if ! { ip -n "$NM" link add br0 type bridge stp_state 0 forward_delay 0 &&
       ip link add pa netns "$NM" type veth peer name va netns "$NA" &&
       ip link add pb netns "$NM" type veth peer name vb netns "$NB" &&
       ip -n "$NM" link set pa master br0 up && ip -n "$NM" link set pb master br0 up &&
       ip -n "$NM" link set br0 up &&
       ip -n "$NA" addr add 10.232.7.1/24 dev va && ip -n "$NA" link set va up &&
       ip -n "$NB" addr add 10.232.7.2/24 dev vb && ip -n "$NB" link set vb up; }; then
	echo "FAIL: the bridge and its veths"
	exit 1
fi
MAC_A=$(ip netns exec "$NA" cat /sys/class/net/va/address)

# ce_rule on|off: CE on every RoCE v2 frame the bridge forwards to NA
ce_rule() {
	ip netns exec "$NM" nft delete table bridge rcc_ce 2>/dev/null
	[ "$1" = on ] || return 0
	ip netns exec "$NM" nft -f - <<EOF
table bridge rcc_ce {
	chain forward {
		type filter hook forward priority filter; policy accept;
		ether daddr $MAC_A udp dport 4791 ip ecn set ce counter
	}
}
EOF
}

# run NAME ARGS...: write_bw, server in NA, client in NB, the bridge
# captured; both must finish with their table
run() {
	local name=$1; shift
	ip netns exec "$NM" tcpdump -i br0 -U -w "$TMP/$name.pcap" udp port 4791 2>/dev/null &
	local tp=$!
	pids+=("$tp")
	sleep 1
	ip netns exec "$NA" timeout -k 5 90 "$PERF" write_bw --netdev va --timeout 20 --counters "$@" \
		>"$TMP/$name.srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 90 "$PERF" write_bw --netdev vb --timeout 20 --counters "$@" \
		10.232.7.1 >"$TMP/$name.cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$?
	sleep 0.5
	kill "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -qE '^ 65536 +200 ' "$TMP/$name.cli"; then
		ok "$name: write_bw $* completes"
	else
		fail "$name: write_bw $* (client rc=$crc, server rc=$src)"
		tail -5 "$TMP/$name.cli" "$TMP/$name.srv"
	fi
}
cnt() { # FILE NAME: an engine counter's value (0 if not printed)
	awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }' "$1"
}
# frames SRC_IP OPCODE TOS: how many RoCE frames of the capture match
frames() {
	tshark -r "$TMP/$1.pcap" -Y "ip.src == $2 && infiniband.bth.opcode == $3 && ip.dsfield == $4" \
		2>/dev/null | wc -l
}

ce_rule on || { echo "FAIL: nft cannot install the CE rule"; exit 1; }
run cc -s 65536 -n 200 --cc --tclass 96
# the client's WRITEs (opcodes 6, 7, 8): DSCP 24 (tclass 96) and ECT(0)
n_ect=$(frames cc 10.232.7.2 7 0x62)
n_not=$(tshark -r "$TMP/cc.pcap" -Y "ip.src == 10.232.7.2 && infiniband && ip.dsfield != 0x62" 2>/dev/null | wc -l)
if [ "$n_ect" -gt 0 ] && [ "$n_not" -eq 0 ]; then
	ok "--cc --tclass 96: $n_ect WRITE MIDDLEs and every other frame of the client at TOS 0x62 (DSCP 24, ECT(0))"
else
	fail "--cc --tclass 96: $n_ect frames at TOS 0x62, $n_not at another"
fi
marked=$(cnt "$TMP/cc.srv" np_ecn_marked_roce_packets)
sent=$(cnt "$TMP/cc.srv" np_cnp_sent)
handled=$(cnt "$TMP/cc.cli" rp_cnp_handled)
n_cnp=$(frames cc 10.232.7.1 129 0xc1)
if [ "$marked" -gt 0 ] && [ "$sent" -gt 0 ] && [ "$handled" -gt 0 ] && [ "$n_cnp" -gt 0 ]; then
	ok "CE on the bridge: $marked marked, $sent CNPs sent, $handled handled, $n_cnp on the wire (DSCP 48, ECT(1))"
else
	fail "CE on the bridge: marked $marked, CNPs sent $sent, handled $handled, on the wire $n_cnp"
fi
bad=$(tshark -r "$TMP/cc.pcap" -Y "udp.dstport == 4791 && (!infiniband || _ws.malformed || _ws.expert.severity >= error)" 2>/dev/null | wc -l)
[ "$bad" -eq 0 ] && ok "tshark dissects every frame, CNPs too" || fail "tshark: $bad frames malformed"

# without --cc: the same CE marks are counted but answered by no CNP, and
# nothing is ECN-capable
run plain -s 65536 -n 200
n_ect=$(tshark -r "$TMP/plain.pcap" -Y "ip.src == 10.232.7.2 && ip.dsfield.ecn != 0" 2>/dev/null | wc -l)
sent=$(cnt "$TMP/plain.srv" np_cnp_sent)
n_cnp=$(tshark -r "$TMP/plain.pcap" -Y "infiniband.bth.opcode == 129" 2>/dev/null | wc -l)
if [ "$n_ect" -eq 0 ] && [ "$sent" -eq 0 ] && [ "$n_cnp" -eq 0 ]; then
	ok "without --cc: no ECT, no CNP"
else
	fail "without --cc: $n_ect ECN-capable frames, $sent CNPs counted, $n_cnp on the wire"
fi
ce_rule off

# loss recovery with the adaptive timer: 5 % of the RoCE frames dropped on
# the bridge, both ways
ip netns exec "$NM" nft -f - <<EOF || { echo "FAIL: nft cannot install the loss rule"; exit 1; }
table bridge rcc_loss {
	chain forward {
		type filter hook forward priority filter; policy accept;
		udp dport 4791 numgen random mod 100 < 5 counter drop
	}
}
EOF
run lossy -s 65536 -n 200 --window 64 --adaptive-rto
ip netns exec "$NM" nft delete table bridge rcc_loss
retx=$(cnt "$TMP/lossy.cli" retransmissions)
probes=$(cnt "$TMP/lossy.cli" tail_probes)
if [ "$retx" -gt 0 ] && [ "$probes" -gt 0 ]; then
	ok "5 % loss, --window 64 --adaptive-rto: $retx resent, $probes tail-loss probes"
else
	fail "5 % loss, --window 64 --adaptive-rto: $retx resent, $probes tail-loss probes"
fi

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
