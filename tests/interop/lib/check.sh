# shellcheck shell=bash
# Checks of one run's results, sourced by tests/interop/run. Each check_*
# appends "why" lines to $RUN_DIR/fail for what is wrong and "note" lines to
# $RUN_DIR/notes for the summary; a run passes when fail stays empty.
#
# Needs: $ROCE_PCAP (the project's roce-pcap), tcpdump, tshark.

fail() { echo "$*" >>"$RUN_DIR/fail"; }
note() { echo "$*" >>"$RUN_DIR/notes"; }
skip() { echo "$*" >>"$RUN_DIR/skip"; }   # the run cannot be made here

# pcap_select IN OUT FILTER: the frames of IN matching a tcpdump filter
pcap_select() {
	tcpdump -r "$1" -w "$2" "$3" 2>/dev/null
}

# roce_tsv PCAP: roce-pcap --tsv, one line per RoCE packet. Fields used here:
# 2 opcode, 4 psn, 10 AETH syndrome, 18 payload length, 19 ICRC ok.
roce_tsv() { "$ROCE_PCAP" --tsv "$1" 2>/dev/null; }

# tshark_no_ulp: options that keep tshark from guessing at an upper-layer
# protocol (RPC-over-RDMA, SMB Direct, NVMe, iSER, ...) inside the test
# tools' payloads. Their heuristics take a 1-byte SEND for RPC-over-RDMA and
# report it "malformed", for rxe's frames as much as for ours: the check is
# about the RoCE headers, not about what perftest happens to send.
tshark_no_ulp() {
	if [ -z "${TSHARK_NO_ULP+set}" ]; then
		TSHARK_NO_ULP=$(tshark -G heuristic-decodes 2>/dev/null |
			awk -F'\t' '$1 == "infiniband.payload" && $2 != "ethertype" { printf " --disable-protocol %s", $2 }')
	fi
	echo "$TSHARK_NO_ULP"
}

# check_wire PCAP WHO MTU SIZE SENDS_DATA
# Every RoCE frame of PCAP (already reduced to one sender, WHO names it):
# decodes and has a correct ICRC (roce-pcap --verify), is dissected as
# InfiniBand by tshark with no malformed packet or expert error, carries no
# more than MTU bytes of payload, and (SENDS_DATA=1 with SIZE > MTU) fills
# whole MTU-sized packets: the path MTU really is MTU.
check_wire() {
	local pcap=$1 who=$2 mtu=$3 size=$4 sends=$5 n max bad
	n=$(roce_tsv "$pcap" | wc -l)
	if [ "$n" -eq 0 ]; then
		fail "$who sent no RoCE frame"
		return
	fi
	if ! "$ROCE_PCAP" --verify "$pcap" >"$RUN_DIR/verify-$who.txt" 2>&1; then
		fail "roce-pcap --verify: $who sent bad frames ($(tail -n1 "$RUN_DIR/verify-$who.txt"))"
	fi
	# one tshark pass (it takes most of a second to start): the frames
	# it does not dissect as InfiniBand, or finds malformed or in error
	# over IPv6 tshark calls a zero UDP checksum an error: rxe sends it
	# (RFC 6935/6936 allow it for tunnels), check_v6 compares ours to it
	local expert='_ws.expert.severity >= error'
	[ -n "${RXE_V6_MODE:-}" ] && expert='(_ws.expert.severity >= error && !udp.checksum.zero)'
	tshark -r "$pcap" $(tshark_no_ulp) -Y "udp.dstport == 4791 && (!infiniband || _ws.malformed || $expert)" \
		>"$RUN_DIR/tshark-$who.txt" 2>"$RUN_DIR/tshark-$who.err" ||
		fail "tshark cannot read the capture of $who ($(grep -v 'Running as' "$RUN_DIR/tshark-$who.err" | head -n1))"
	bad=$(wc -l <"$RUN_DIR/tshark-$who.txt")
	[ "$bad" -eq 0 ] || fail "tshark: $bad frames of $who not dissected as InfiniBand, malformed or with expert errors (tshark-$who.txt)"
	max=$(roce_tsv "$pcap" | awk -F'\t' '$18 > m { m = $18 } END { print m + 0 }')
	[ "$max" -le "$mtu" ] || fail "$who sent a payload of $max bytes over path MTU $mtu"
	if [ "$sends" = 1 ] && [ "$size" -gt "$mtu" ] && [ "$max" -ne "$mtu" ]; then
		fail "$who's largest payload is $max bytes: path MTU $mtu not used for $size-byte messages"
	fi
	if grep -q "$who" "$RUN_DIR/fail"; then
		note "$who: $n RoCE frames, largest payload $max"
	else
		note "$who: $n RoCE frames, ICRC and dissection clean, largest payload $max"
	fi
}

# check_ud WIRE OURS SENDS_DATA [RDMA_CM]: a UD run (ibv_ud_pingpong,
# perftest -c UD), as tshark dissects it: every RoCE frame of ours (OURS)
# is a UD SEND ONLY (100) or SEND ONLY with immediate (101) without
# AckReq, its DETH Q_Key 0x11111111 (both tools' Q_Key) and its source QP
# the one the frame's sender has (the same in every frame); no frame on
# the wire (WIRE, both directions) is of another transport: no ACK, no
# NAK; a side that only receives (our send_bw server) sends nothing. Our
# counters show no ACK or NAK sent, and no datagram dropped for its Q_Key
# or transport. With RDMA_CM=1 (-R: the test QPs through SIDR, the
# exchange over an RC connection, the CM's MADs on QP1) the same holds
# for our datagrams to other QPs than QP1, with rdma_cm's Q_Key
# 0x01234567; the exchange's RC frames and ACKs are not looked at.
check_ud() {
	local wire=$1 ours=$2 sends=$3 cm=${4:-0} n notud ackreq qkey other sqps
	local sel='infiniband' want=0x11111111
	if [ "$cm" = 1 ]; then
		sel='infiniband.deth && infiniband.bth.destqp != 1'
		want=0x01234567
	fi
	n=$(tshark -r "$ours" $(tshark_no_ulp) -Y "$sel" 2>/dev/null | wc -l)
	notud=$(tshark -r "$ours" $(tshark_no_ulp) -Y "$sel && !(infiniband.bth.opcode == 100 || infiniband.bth.opcode == 101)" 2>/dev/null | wc -l)
	ackreq=$(tshark -r "$ours" $(tshark_no_ulp) -Y "$sel && infiniband.bth.a == 1" 2>/dev/null | wc -l)
	qkey=$(tshark -r "$ours" $(tshark_no_ulp) -Y "$sel && !(infiniband.deth.q_key == $want)" 2>/dev/null | wc -l)
	sqps=$(tshark -r "$ours" $(tshark_no_ulp) -Y "$sel" -T fields -e infiniband.deth.srcqp 2>/dev/null | sort -u | wc -l)
	other=$(tshark -r "$wire" $(tshark_no_ulp) -Y 'udp.dstport == 4791 && (infiniband.bth.opcode < 100 || infiniband.bth.opcode > 101 || infiniband.aeth)' 2>/dev/null | wc -l)
	if [ "$sends" = 1 ]; then
		[ "$n" -gt 0 ] || fail "UD: no RoCE frame of ours"
		[ "$sqps" -ge 1 ] || fail "UD: no DETH source QP in our frames (tshark)"
	else
		[ "$n" -eq 0 ] || fail "UD: our receiving side sent $n RoCE frames (tshark)"
	fi
	[ "$notud" -eq 0 ] || fail "UD: $notud of our frames carry no UD SEND opcode (tshark)"
	[ "$ackreq" -eq 0 ] || fail "UD: $ackreq of our frames ask for an ACK (tshark)"
	[ "$qkey" -eq 0 ] || fail "UD: $qkey of our frames carry another DETH Q_Key than $want (tshark)"
	[ "$(counter "$RUN_DIR/counters.txt" drop_qp_type drop_qkey)" -eq 0 ] ||
		fail "UD: our counters show datagrams dropped for their Q_Key or transport"
	if [ "$cm" = 1 ]; then
		note "UD: $n datagrams of ours, all UD SENDs with Q_Key $want, no AckReq (tshark; the exchange is RC)"
		return
	fi
	[ "$other" -eq 0 ] || fail "UD: $other frames of another transport (ACKs, NAKs) on the wire (tshark)"
	[ "$(counter "$RUN_DIR/counters.txt" acks_tx naks_tx_psn_seq_err naks_tx_rnr \
		naks_tx_invalid_req naks_tx_remote_access naks_tx_remote_op)" -eq 0 ] ||
		fail "UD: our counters show ACKs or NAKs sent (counters.txt)"
	note "UD: $n frames of ours, all UD SENDs with Q_Key $want, no AckReq; no ACK or NAK on the wire (tshark)"
}

# check_uc WIRE OURS SENDS_DATA: a UC run (ibv_uc_pingpong, perftest -c
# UC), as tshark dissects it: every RoCE frame of ours (OURS) carries a UC
# opcode (32-43, IBA 9.2.1) without AckReq, and no frame on the
# wire (WIRE, both directions) is an RC one: no ACK, no NAK, from either
# side; a side that only receives (SENDS_DATA=0: our write_bw or send_bw
# server) sends nothing at all. Our counters show no ACK or NAK sent and
# no frame of the other transport.
check_uc() {
	local wire=$1 ours=$2 sends=$3 n notuc ackreq rc
	n=$(tshark -r "$ours" $(tshark_no_ulp) -Y 'infiniband' 2>/dev/null | wc -l)
	notuc=$(tshark -r "$ours" $(tshark_no_ulp) -Y 'infiniband && !(infiniband.bth.opcode >= 32 && infiniband.bth.opcode <= 43)' 2>/dev/null | wc -l)
	ackreq=$(tshark -r "$ours" $(tshark_no_ulp) -Y 'infiniband.bth.a == 1' 2>/dev/null | wc -l)
	rc=$(tshark -r "$wire" $(tshark_no_ulp) -Y 'udp.dstport == 4791 && (infiniband.bth.opcode < 32 || infiniband.aeth)' 2>/dev/null | wc -l)
	if [ "$sends" = 1 ]; then
		[ "$n" -gt 0 ] || fail "UC: no RoCE frame of ours"
	else
		[ "$n" -eq 0 ] || fail "UC: our receiving side sent $n RoCE frames (tshark)"
	fi
	[ "$notuc" -eq 0 ] || fail "UC: $notuc of our frames carry no UC opcode (tshark)"
	[ "$ackreq" -eq 0 ] || fail "UC: $ackreq of our frames ask for an ACK (tshark)"
	[ "$rc" -eq 0 ] || fail "UC: $rc RC frames (ACKs, NAKs) on the wire (tshark)"
	[ "$(counter "$RUN_DIR/counters.txt" acks_tx naks_tx_psn_seq_err naks_tx_rnr \
		naks_tx_invalid_req naks_tx_remote_access naks_tx_remote_op)" -eq 0 ] ||
		fail "UC: our counters show ACKs or NAKs sent (counters.txt)"
	[ "$(counter "$RUN_DIR/counters.txt" drop_qp_type)" -eq 0 ] ||
		fail "UC: our counters show frames of the other transport (drop_qp_type)"
	note "UC: $n frames of ours, all UC opcodes, no AckReq; no ACK or NAK on the wire (tshark)"
}

# v6_fields PCAP: the IP header fields of PCAP's RoCE frames but CNPs
# (their DSCP is cnp_dscp, check_ecn's), one line per frame: IPv6 source,
# destination, hop limit, traffic class's DSCP and ECN, flow label, UDP
# checksum and source port (an IPv4 frame: its first two empty)
v6_fields() {
	tshark -r "$1" -Y 'udp.dstport == 4791 && !(infiniband.bth.opcode == 129)' -T fields \
		-e ipv6.src -e ipv6.dst -e ipv6.hlim -e ipv6.tclass.dscp -e ipv6.tclass.ecn \
		-e ipv6.flow -e udp.checksum -e udp.srcport 2>/dev/null
}

# ud_sport_ok PCAP: every UD frame's UDP source port is rxe's for its DETH
# source QP: 0xC000 | hash_32(qpn, 14) (hash_32: the product with
# 0x61C88647, its top bits)
ud_sport_ok() {
	local q p
	while read -r q p; do
		[ "$p" -eq $((0xC000 | (((q * 0x61C88647) & 0xFFFFFFFF) >> 18))) ] || return 1
	done < <(tshark -r "$1" -Y 'infiniband.deth' -T fields -e infiniband.deth.srcqp \
		-e udp.srcport 2>/dev/null)
	return 0
}

# check_v6 OURS_PCAP RXE_PCAP MODE OUR_GID RXE_GID: RoCE v2 over IPv6 both
# ways: every RoCE frame of either side is IPv6 (none IPv4), between the
# GIDs of the run (MODE ll: the link-local ones; global: fd91::); ours
# carry the hop limit, traffic class, flow label and UDP checksum rxe's
# carry, and the same UDP source port (both make it from the QPNs,
# rdma_get_udp_sport); our port asked for rxe's MAC (a neighbour
# solicitation from our MAC). Three tshark runs: each costs a second.
# UD (a 6th argument "ud"): a UD QP has no peer QPN, so rxe makes the port
# from its own QPN alone (0xC000 | hash_32(qpn, 14), rxe_qp_init_req) and
# so do we: each side's port is then checked against its DETH source QP,
# the rest of the header compared as for the others. With congestion
# control (a 7th argument "cc") our ECN field is check_ecn's, not rxe's.
check_v6() {
	local ours=$1 rxe=$2 mode=$3 our_gid=$4 rxe_gid=$5 ud=${6:-} cc=${7:-} who nd
	local cols=3-
	v6_fields "$ours" >"$RUN_DIR/v6-ours.txt"
	v6_fields "$rxe" >"$RUN_DIR/v6-rxe.txt"
	for who in ours rxe; do
		if [ ! -s "$RUN_DIR/v6-$who.txt" ]; then
			fail "IPv6 run ($mode): no RoCE frame of $who"
			return
		fi
		awk -F'\t' '$1 == "" { n++ } END { exit n > 0 }' "$RUN_DIR/v6-$who.txt" ||
			fail "IPv6 run ($mode): RoCE frames of $who that are not IPv6 (v6-$who.txt)"
	done
	# ours: from our GID to rxe's; rxe's: the reverse
	awk -F'\t' -v s="$our_gid" -v d="$rxe_gid" '$1 != s || $2 != d { bad = 1 } END { exit bad }' \
		"$RUN_DIR/v6-ours.txt" || fail "IPv6 run: our frames are not $our_gid -> $rxe_gid (v6-ours.txt)"
	awk -F'\t' -v s="$rxe_gid" -v d="$our_gid" '$1 != s || $2 != d { bad = 1 } END { exit bad }' \
		"$RUN_DIR/v6-rxe.txt" || fail "IPv6 run: rxe's frames are not $rxe_gid -> $our_gid (v6-rxe.txt)"
	if [ -n "$ud" ]; then
		cols=3-7
		for who in ours rxe; do
			[ "$who" = ours ] && f=$ours || f=$rxe
			ud_sport_ok "$f" ||
				fail "IPv6 UD run: $who's UDP source port is not rxe's hash of its QPN"
		done
	fi
	# the rest of the header as rxe sends it (the ECN field aside with cc)
	[ -n "$cc" ] && cols=3,4,6-${cols#3-}
	if [ "$(cut -f"$cols" "$RUN_DIR/v6-ours.txt" | sort -u)" != "$(cut -f"$cols" "$RUN_DIR/v6-rxe.txt" | sort -u)" ]; then
		fail "IPv6 run: our hop limit / traffic class / flow label / UDP checksum / port differ from rxe's (v6-ours.txt, v6-rxe.txt)"
	fi
	nd=$(tshark -r "$RUN_DIR/wire.pcap" -Y "eth.src == $NET_US_MAC && (icmpv6.type == 135 || icmpv6.type == 136)" \
		-T fields -e icmpv6.type -e icmpv6.nd.ns.target_address 2>/dev/null)
	grep -qx "135	$rxe_gid" <<<"$nd" || fail "IPv6 run: our port sent no neighbour solicitation for $rxe_gid"
	note "IPv6 ($mode): ours $(sort -u "$RUN_DIR/v6-ours.txt" | head -n1 | tr '\t' ' '); rxe $(sort -u "$RUN_DIR/v6-rxe.txt" | head -n1 | tr '\t' ' '); our advertisements: $(grep -c '^136' <<<"$nd")"
}

# pcap_stats PCAP: "naks=N retrans=N" of the RoCE frames in PCAP. A NAK is
# an AETH syndrome 0x60-0x7f (IBA 9.7.5.1), a retransmission a packet
# other than an ACK (0x11), atomic ACK (0x12) or CNP (0x81, always PSN 0)
# whose PSN already went by:
# requests and READ responses carry one PSN each, ACKs repeat theirs.
pcap_stats() {
	roce_tsv "$1" | awk -F'\t' '
		$10 != "" && $10 >= 96 && $10 < 128 { naks++ }
		$2 != 17 && $2 != 18 && $2 != 129 {
			if ($4 in seen) retrans++; seen[$4] = 1 }
		END { printf "naks=%d retrans=%d\n", naks, retrans }'
}

# counters_parse LOG: "name value" for every engine counter named in LOG,
# whatever the tool's format ("name value", "name=value", "name: value",
# JSON "name": value); the last value of a name wins.
counters_parse() {
	grep -oE '"?(tx_|rx_|acks_|naks_|retransmissions|timeouts|rnr_|icrc_|drop_|dup|completions|error_completions|cq_events|np_|rp_|tail_|stage_)[a-z0-9_]*"?[[:space:]]*[:=]?[[:space:]]*[0-9]+' "$1" 2>/dev/null |
		sed -E 's/"//g; s/[[:space:]]*[:=]?[[:space:]]*([0-9]+)$/ \1/' |
		awk '{ v[$1] = $2 } END { for (k in v) print k, v[k] }' | sort
}

# counter FILE NAME...: sum of the named counters (0 if absent)
counter() {
	local file=$1; shift
	awk -v names=" $* " 'index(names, " " $1 " ") { s += $2 } END { print s + 0 }' "$file"
}

# check_events TOOL ROLE EXTRA: with -e our tool slept on its completion
# channel: its cq_events line (printed with its counters) must count
# events, else it found its completions by polling after all. A READ or
# atomic server (without -b) completes nothing: it has none to wait for.
check_events() {
	local tool=$1 role=$2 extra=$3 n
	case " $(extra_for ours "$extra") " in
	*" -e "*|*" --events "*) ;;
	*) return 0 ;;
	esac
	if [ "$role" = server ] && ! is_bidir "$extra"; then
		case "$tool" in
		rc_pingpong|uc_pingpong|srq_pingpong|send_*) ;;
		*) note "our $tool server completes nothing: no event to wait for"; return 0 ;;
		esac
	fi
	n=$(counter "$RUN_DIR/counters.txt" cq_events)
	if [ "${n:-0}" -gt 0 ]; then
		note "ours slept on $n completion events"
	else
		fail "-e: our tool took no completion event (cq_events ${n:-absent})"
	fi
}

# check_loss_counters ROLE TOOL: under loss, our counters must show the
# recovery that our role performs.
check_loss_counters() {
	local role=$1 tool=$2 c=$RUN_DIR/counters.txt names
	if [ ! -s "$c" ]; then
		fail "no counters in our tool's output (needs a counters option; see README)"
		return
	fi
	if [ "$role" = client ]; then
		# requester: lost requests come back as NAKs, lost responses or
		# ACKs as timeouts; both end in retransmission
		names="retransmissions"
	elif [ "$tool" = read_bw ]; then
		# READ responder: a lost request is a PSN gap (NAK); a lost
		# response makes rxe ask again: a duplicate request, answered
		# again, which only a duplicate counter (any name with "dup")
		# shows
		names="naks_tx_psn_seq_err retransmissions drop_psn $(awk '$1 ~ /dup/ { print $1 }' "$c" | tr '\n' ' ')"
	else
		names="naks_tx_psn_seq_err"
	fi
	local v
	v=$(counter "$c" $names)
	# ours:--adaptive-rto: how many stalls its tail-loss probes took on
	[ "$(counter "$c" tail_probes)" -gt 0 ] && note "our tail-loss probes: $(counter "$c" tail_probes)"
	if [ "$v" -gt 0 ]; then
		note "our counters: $(echo $names | tr ' ' '+') = $v"
	else
		fail "our counters show no recovery under loss: $(echo $names | tr ' ' '+') = 0 (see counters.txt)"
	fi
}

# ecn_is N, dscp_is N: a display filter for the ECN field (DSCP) being N,
# in IPv4's TOS or IPv6's traffic class
ecn_is() { echo "(ip.dsfield.ecn == $1 || ipv6.tclass.ecn == $1)"; }
dscp_is() { echo "(ip.dsfield.dscp == $1 || ipv6.tclass.dscp == $1)"; }

# check_ecn OURS: a run of ours with --cc (docs/cc.md): every RoCE frame
# of ours is ECN-capable, the data, ACKs and requests ECT(0) (ECN field
# 2, what ConnectX sends), our CNPs (BTH opcode 0x81) ECT(1) with DSCP
# cnp_dscp (48), over IPv4 or IPv6; tshark dissects them all
# (check_wire). rxe has no congestion control: that the run passed shows
# the marks break nothing.
check_ecn() {
	local pcap=$1 ect0 other
	ect0=$(tshark -r "$pcap" $(tshark_no_ulp) -Y "infiniband && $(ecn_is 2)" 2>/dev/null | wc -l)
	other=$(tshark -r "$pcap" $(tshark_no_ulp) \
		-Y "infiniband && !($(ecn_is 2) || (infiniband.bth.opcode == 129 && $(ecn_is 1) && $(dscp_is 48)))" \
		2>/dev/null | wc -l)
	if [ "$ect0" -gt 0 ] && [ "$other" -eq 0 ]; then
		note "--cc: all $ect0 RoCE frames of ours but CNPs ECT(0)"
	else
		fail "--cc: $ect0 RoCE frames of ours ECT(0), $other with another ECN field (or a CNP not DSCP 48, ECT(1))"
	fi
}

# check_ce_rx PORT OURS: the bridge set CE on rxe's frames to us (ce:rx),
# with our tool's --cc: our port received CE-marked frames (PORT, captured
# on our side of the bridge), our notification point counted them
# (np_ecn_marked_roce_packets) and sent CNPs (np_cnp_sent); on the wire
# (OURS) our CNPs, BTH opcode 0x81, go to the QP our other frames go to
# (rxe's), dissected without error (check_wire).
check_ce_rx() {
	local port=$1 pcap=$2 c=$RUN_DIR/counters.txt ce marked sent cnps qps stray
	ce=$(tshark -r "$port" $(tshark_no_ulp) -Y "infiniband && $(ecn_is 3)" 2>/dev/null | wc -l)
	[ "$ce" -gt 0 ] || fail "ce:rx: no CE-marked RoCE frame reached our port"
	marked=$(counter "$c" np_ecn_marked_roce_packets)
	sent=$(counter "$c" np_cnp_sent)
	[ "$marked" -gt 0 ] || fail "ce:rx: np_ecn_marked_roce_packets is 0 (counters.txt)"
	[ "$sent" -gt 0 ] || fail "ce:rx: np_cnp_sent is 0 (counters.txt)"
	cnps=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.bth.opcode == 129' \
		-T fields -e infiniband.bth.destqp 2>/dev/null | sort | uniq -c)
	qps=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband && infiniband.bth.opcode != 129' \
		-T fields -e infiniband.bth.destqp 2>/dev/null | sort -u)
	if [ -z "$cnps" ]; then
		fail "ce:rx: no CNP of ours on the wire"
		return
	fi
	stray=$(awk 'NR == FNR { q[$1] = 1; next } !($2 in q)' <(echo "$qps") <(echo "$cnps"))
	[ -z "$stray" ] || fail "ce:rx: CNPs to a QP our other frames do not go to: $(tr -s ' \n' ' ' <<<"$stray")"
	note "ce:rx: $ce CE frames received, np_ecn_marked_roce_packets $marked, np_cnp_sent $sent;" \
		"CNPs on the wire (count QP): $(tr -s ' \n' ' ' <<<"$cnps")"
}

# check_garbage JSON: every bad frame the sender reports is counted: each
# kind under its own drop reason, the random bytes under some reason (all
# drops together must cover every bad frame but the wrong PSNs)
check_garbage() {
	local json=$1 c=$RUN_DIR/counters.txt k sent need got names total=0
	if [ ! -s "$json" ]; then
		fail "the garbage sender reported nothing"
		return
	fi
	if [ ! -s "$c" ]; then
		fail "no counters in our tool's output (needs a counters option; see README)"
		return
	fi
	for k in bad_icrc unknown_qpn wrong_psn bad_opcode truncated bad_ip_csum junk spoofed_src; do
		sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"].get(sys.argv[2], 0))' "$json" "$k")
		[ "$sent" -gt 0 ] || continue
		need=$sent
		case "$k" in
		bad_icrc) names="drop_icrc" ;;
		unknown_qpn) names="drop_qpn" ;;
		# one NAK per sequence error (IBA 9.7.5.1.1), later ones are
		# dropped; a requester drops an ACK for a PSN it never sent
		wrong_psn) names="naks_tx_psn_seq_err drop_psn"; need=1 ;;
		bad_opcode) names="drop_opcode" ;;
		bad_ip_csum) names="drop_ip_csum" ;;
		truncated) names="drop_too_short drop_ip_len drop_udp_len drop_hdr_len" ;;
		junk) names= ;;
		# from another source IP: dropped before the PSN check
		spoofed_src) names="drop_src_addr" ;;
		esac
		[ "$k" = wrong_psn ] || total=$((total + sent))
		[ -n "$names" ] || continue
		got=$(counter "$c" $names)
		if [ "$got" -ge "$need" ]; then
			note "$k: sent $sent, counted $got ($(echo $names | tr ' ' '+'))"
		else
			fail "$k: sent $sent, our counters show $got ($(echo $names | tr ' ' '+'))"
		fi
	done
	names=$(awk '$1 ~ /^drop_/ { print $1 }' "$c" | tr '\n' ' ')
	got=$(counter "$c" $names)
	if [ "$got" -ge "$total" ]; then
		note "all drops: $got for $total bad frames (wrong PSNs aside)"
	else
		fail "all drops together: $got, fewer than the $total bad frames sent (wrong PSNs aside)"
	fi
}

# check_rights ROLE RC_OURS RC_RXE: a READ at a QP that grants remote
# writes only (perftest's write_bw server) fails as IBA and rxe have it:
# the reader (the client, ours or rxe's ib_read_bw) ends with status 9,
# remote invalid request (the NAK 0x61 of the QP check), not 10, remote
# access (0x62, the MR's check). The server then loses its client; its
# status is not checked.
check_rights() {
	local role=$1 rc_ours=$2 rc_rxe=$3
	check_sanitizer
	if [ "$role" = client ]; then
		[ -n "$rc_rxe" ] || fail "rxe server not started"
		[ "${rc_ours:-0}" != 0 ] || fail "our read_bw client succeeded against a write_bw server"
		grep -q 'status remote invalid request error (9)' "$RUN_DIR/ours.log" ||
			fail "our client did not complete with remote invalid request error (ours.log)"
	else
		[ -n "$rc_ours" ] || fail "our server not started"
		[ "${rc_rxe:-0}" != 0 ] || fail "rxe's read_bw client succeeded against our write_bw server"
		grep -q 'Failed status 9:' "$RUN_DIR/rxe.log" ||
			fail "rxe's client did not complete with status 9, remote invalid request (rxe.log)"
	fi
}

# check_rights_wire ROLE: the server's frames (ours when we serve, rxe's
# when we are the client), as tshark dissects them: a NAK with syndrome
# 0x61 (invalid request), no 0x62, no READ response; and our counters
# say the same.
check_rights_wire() {
	local role=$1 pcap=$RUN_DIR/ours.pcap who=ours inv acc resp
	if [ "$role" = client ]; then
		pcap=$RUN_DIR/rxe-frames.pcap who=rxe
		pcap_select "$RUN_DIR/wire.pcap" "$pcap" "not ether src $NET_US_MAC and udp dst port 4791"
	fi
	inv=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.aeth.syndrome == 0x61' 2>/dev/null | wc -l)
	acc=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.aeth.syndrome == 0x62' 2>/dev/null | wc -l)
	resp=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.bth.opcode >= 13 && infiniband.bth.opcode <= 16' 2>/dev/null | wc -l)
	[ "$inv" -ge 1 ] || fail "$who sent no NAK invalid request (AETH syndrome 0x61)"
	[ "$acc" -eq 0 ] || fail "$who sent $acc NAKs remote access error (0x62) for the QP check"
	[ "$resp" -eq 0 ] || fail "$who sent $resp READ responses from a QP without remote read"
	note "$who: $inv NAK invalid request (0x61), no 0x62, no READ response (tshark)"
	if [ "$role" = server ]; then
		[ "$(counter "$RUN_DIR/counters.txt" naks_tx_invalid_req)" -ge 1 ] ||
			fail "our counters show no naks_tx_invalid_req"
		[ "$(counter "$RUN_DIR/counters.txt" naks_tx_remote_access)" -eq 0 ] ||
			fail "our counters show naks_tx_remote_access"
	else
		[ "$(counter "$RUN_DIR/counters.txt" naks_rx_invalid_req)" -ge 1 ] ||
			fail "our counters show no naks_rx_invalid_req"
	fi
}

# check_mmap FILE OFFSET LOG ROLE TOOL: our buffer in its --mmap file (of
# MMAP_FILE_SIZE zeros before the run): the log says how long it is, the
# file kept its size, nothing outside the buffer changed, and when we serve
# a test that brings data (write_bw, send_bw) the peer's data is in the
# second half (the regions the QPs advertise and receive into): perftest
# fills its buffer with random bytes, ours starts zeroed
check_mmap() {
	local file=$1 off=$2 log=$3 role=$4 tool=$5 len size nz
	len=$(sed -n 's/^allocated mmap buffer of size \([0-9]*\) at .*/\1/p' "$log" | head -n1)
	if [ -z "$len" ]; then
		fail "--mmap: our tool did not say where its buffer went"
		return
	fi
	size=$(stat -c %s "$file" 2>/dev/null)
	if [ "$size" != "$MMAP_FILE_SIZE" ]; then
		fail "--mmap: $file has ${size:-no} bytes, not $MMAP_FILE_SIZE"
		return
	fi
	[ "$off" = 0 ] || cmp -s -n "$off" "$file" /dev/zero ||
		fail "--mmap: bytes before the offset $off changed"
	cmp -s -i "$((off + len)):0" -n "$((size - off - len))" "$file" /dev/zero ||
		fail "--mmap: bytes after the buffer ($len at $off) changed"
	if [ "$role" = server ] && { [ "$tool" = write_bw ] || [ "$tool" = send_bw ]; }; then
		nz=$(tail -c +"$((off + len / 2 + 1))" "$file" | head -c "$((len / 2))" | tr -d '\0' | wc -c)
		if [ "$nz" -gt 0 ]; then
			note "--mmap: the peer's data in the file ($nz non-zero bytes of $((len / 2)) at $((off + len / 2)))"
		else
			fail "--mmap: none of the peer's data in the file at $((off + len / 2))"
		fi
	fi
}

# request_opcodes TOOL: the RC opcodes (IBA 9.2, table 38) of TOOL's
# requests: SEND 0-5, RDMA WRITE 6-11, RDMA READ request 12, CmpSwap 19,
# FetchAdd 20
request_opcodes() {
	case "$1" in
	send_bw) echo "0 1 2 3 4 5" ;;
	write_bw) echo "6 7 8 9 10 11" ;;
	read_bw) echo "12" ;;
	atomic_bw) echo "19 20" ;;
	esac
}

# check_requests PCAP WHO TOOL: with -b both sides are requesters, so the
# frames of WHO in PCAP must include TOOL's requests
check_requests() {
	local pcap=$1 who=$2 tool=$3 n
	n=$(roce_tsv "$pcap" | awk -F'\t' -v ops=" $(request_opcodes "$tool") " \
		'index(ops, " " $2 " ") { n++ } END { print n + 0 }')
	if [ "$n" -gt 0 ]; then
		note "$who: $n $tool requests (-b: both sides send)"
	else
		fail "$who sent no $tool request: with -b both sides must"
	fi
}

# bw_sum LOG: the result lines of LOG's bandwidth table (the ones before
# --report-both's tables)
bw_sum() { sed '/Local results/,$d' "$1" 2>/dev/null | grep -E '^ [0-9]+ +[0-9]+ +[0-9.]+ '; }
# bw_norm: result lines as numbers (size, iterations, BW peak and average
# to 2 decimals, message rate to 3): a side prints six decimals in Gb/sec
# when its own average is under 0.1 (REPORT_FMT_EXT), so the two sides'
# lines of the same figures may differ in form only
bw_norm() { awk '{ printf "%s %s %.2f %.2f %.3f\n", $1, $2, $3, $4, $5 }'; }
# bw_table LOG TITLE: the first result line after the line " TITLE"
bw_table() {
	awk -v t=" $2" 'index($0, t) == 1 { f = 1 } f && /^ [0-9]+ +[0-9]+ / { print; exit }' "$1" 2>/dev/null
}

# check_bw_reports OURS_LOG RXE_LOG EXTRA: what the two sides print for
# -b, --report-both and --report_gbits. With -b each side prints the sum of
# its own report and the one it received (print_full_bw_report), so both
# print the same line; --report-both adds each side's own table as "Local"
# and the other's as "Remote"; --report_gbits heads the table in Gb/sec.
check_bw_reports() {
	local ours=$1 rxe=$2 extra=" $3 " log w
	case "$extra" in
	*" -b "*|*" --bidirectional "*)
		for w in ours rxe; do
			log=$ours; [ $w = rxe ] && log=$rxe
			grep -q 'Bidirectional BW Test$' "$log" || fail "$w: no 'Bidirectional BW Test' banner"
		done
		if [ -n "$(bw_sum "$ours")" ] &&
			[ "$(bw_sum "$ours" | bw_norm)" = "$(bw_sum "$rxe" | bw_norm)" ]; then
			note "both sides print the sum: $(bw_sum "$ours" | head -n1 | tr -s ' \t' ' ')"
		else
			fail "the two sides' summed lines differ: ours [$(bw_sum "$ours" | head -n1)], rxe [$(bw_sum "$rxe" | head -n1)]"
		fi ;;
	esac
	case "$extra" in
	*" --report-both "*)
		for w in ours rxe; do
			log=$ours; [ $w = rxe ] && log=$rxe
			grep -qE '^ (Local|Remote) results:' "$log" || fail "$w: no Local/Remote results tables"
		done
		[ -n "$(bw_table "$ours" 'Local results')" ] &&
			[ "$(bw_table "$ours" 'Local results' | bw_norm)" = \
			  "$(bw_table "$rxe" 'Remote results' | bw_norm)" ] &&
			[ "$(bw_table "$ours" 'Remote results' | bw_norm)" = \
			  "$(bw_table "$rxe" 'Local results' | bw_norm)" ] ||
			fail "our Local/Remote results are not rxe's Remote/Local ones" ;;
	esac
	case "$extra" in
	*" --report_gbits "*)
		for w in ours rxe; do
			log=$ours; [ $w = rxe ] && log=$rxe
			grep -qF 'BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]' "$log" ||
				fail "$w: no Gb/sec table header"
		done ;;
	esac
}

# bw_avg LOG: the BW average of a perftest report (its first result line)
bw_avg() { bw_sum "$1" | head -n1 | awk '{ print $4 }'; }

# check_retx PCT VS RUN: our retransmitted frames at most PCT % of the
# frames we sent (counters.txt); with VS, our goodput at least 0.9 x that
# of the run VS.RUN of the same matrix (ROLE.mMTU.sSIZE), e.g. the same
# transfer with --iba-strict: a tiny window would cut resends and goodput
# alike. 0.9: the guest's own speed moves by that much between runs.
check_retx() {
	local pct=$1 vs=$2 run=$3 c=$RUN_DIR/counters.txt tx re ours theirs
	tx=$(counter "$c" tx_pkts)
	re=$(counter "$c" retransmissions)
	if [ "$tx" -eq 0 ]; then
		fail "retx:$pct: no tx_pkts in our counters (counters.txt)"
		return
	fi
	if [ $((re * 100)) -le $((pct * tx)) ]; then
		note "retx:$pct: $re of $tx frames resent ($(awk -v r="$re" -v t="$tx" 'BEGIN { printf "%.2f", 100 * r / t }') %)"
	else
		fail "retx:$pct: $re of $tx frames resent, more than $pct %"
	fi
	[ -n "$vs" ] || return 0
	ours=$(bw_avg "$RUN_DIR/ours.log")
	theirs=$(bw_avg "$(dirname "$RUN_DIR")/$vs.$run/ours.log")
	if [ -z "$theirs" ]; then
		fail "vs:$vs: no report of run $vs.$run to compare with (run it in the same matrix)"
	elif awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a + 0 >= 0.9 * b) }'; then
		note "vs:$vs: BW average $ours beside $vs.$run's $theirs"
	else
		fail "vs:$vs: BW average $ours below 0.9 x $vs.$run's $theirs"
	fi
}

# qps_of EXTRA: N of a "-q N" in the extra flags, or nothing
# check_srq OURS_LOG RXE_LOG PCAP EXTRA: ibv_srq_pingpong with -q N (16
# without): each side prints N local and N remote address lines, the QPNs
# each side lists as remote are those the other lists as local, and our
# engine's frames go to N destination QPs (every QP on the SRQ played)
check_srq() {
	local ours=$1 rxe=$2 pcap=$3 n w log got
	n=$(qps_of "$4")
	n=${n:-16}
	for w in ours rxe; do
		log=$ours; [ $w = rxe ] && log=$rxe
		got=$(grep -c '^  local address: ' "$log")
		[ "$got" = "$n" ] || fail "$w: $got local address lines, not one per QP ($n)"
		got=$(grep -c '^  remote address: ' "$log")
		[ "$got" = "$n" ] || fail "$w: $got remote address lines, not one per QP ($n)"
	done
	srq_qpns() { sed -n "s/^  $2 address: *LID [^,]*, QPN \(0x[0-9a-f]*\),.*/\1/p" "$1" | sort; }
	[ "$(srq_qpns "$ours" local)" = "$(srq_qpns "$rxe" remote)" ] &&
		[ "$(srq_qpns "$rxe" local)" = "$(srq_qpns "$ours" remote)" ] ||
		fail "the QPNs one side lists as remote are not the other's local ones"
	got=$(roce_tsv "$pcap" | cut -f3 | sort -u | wc -l)
	if [ "$got" = "$n" ]; then
		note "our frames went to the peer's $n QPs"
	else
		fail "our frames went to $got destination QPs, not $n"
	fi
}

qps_of() {
	sed -nE 's/^.* (-q|--qp=?) *([0-9]+) .*$/\2/p' <<<" $1 "
}

# check_qps OURS_LOG RXE_LOG PCAP EXTRA: with -q N both sides run N QPs
# and trade N keys (perftest's ctx_hand_shake, one message per QP), and
# the RoCE frames our engine sent (PCAP) go to N destination QPs: every QP
# carried traffic, requests or the ACKs of the peer's.
check_qps() {
	local ours=$1 rxe=$2 pcap=$3 n w log got
	n=$(qps_of "$4")
	[ -n "$n" ] || return 0
	for w in ours rxe; do
		log=$ours; [ $w = rxe ] && log=$rxe
		grep -qE "^ Number of qps +: $n[^0-9]" "$log" || fail "$w: the banner does not say $n QPs"
		got=$(grep -c ' remote address: ' "$log")
		[ "$got" = "$n" ] || fail "$w: $got remote keys, not one per QP ($n)"
	done
	got=$(roce_tsv "$pcap" | cut -f3 | sort -u | wc -l)
	if [ "$got" = "$n" ]; then
		note "our frames went to $n QPs"
	else
		fail "our frames went to $got destination QPs, not $n"
	fi
}

# check_cm PCAP [REJ8_OK [LOSS]]: a run that connects through the RDMA CM (rping,
# perftest's -R): tshark dissects the CM's MADs on QP1 (IBA 12.6: REQ
# 0x10, REP 0x13, RTU 0x14, DREQ 0x15, DREP 0x16), at least one of each of
# the handshake and the disconnection, none malformed; a REJ (0x12) fails
# the run. With REJ8_OK a REJ of reason 8 (no listener) from rxe to us is
# a note: perftest's -R server listens for the test's QPs only after a
# sync, so our client may come first; it sends its REQ again.
check_cm() {
	local pcap=$1 ids name id missing= rej
	ids=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.mad.mgmtclass == 0x07' \
		-T fields -e infiniband.mad.attributeid 2>/dev/null | sort | uniq -c)
	local want="REQ:0x0010 REP:0x0013 RTU:0x0014 DREQ:0x0015 DREP:0x0016"
	# under loss a lost DREQ or DREP is not sent again once the tools exit
	[ "${3:-0}" != 0 ] && want="REQ:0x0010 REP:0x0013 RTU:0x0014"
	for name in $want; do
		id=${name#*:}
		grep -q " $id\$" <<<"$ids" || missing+=" ${name%%:*}"
	done
	[ -z "$missing" ] || fail "CM messages missing on the wire:$missing"
	rej=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband.mad.mgmtclass == 0x07 && infiniband.mad.attributeid == 0x0012' \
		-T fields -e eth.src -e infiniband.cm.rej.reason 2>/dev/null)
	if [ -n "${2:-}" ]; then
		[ -z "$rej" ] || note "REJ on the wire (source reason): $(tr -s '\t\n' '  ' <<<"$rej")"
		rej=$(awk -v us="$NET_US_MAC" 'NF && !($1 != us && $2 ~ /^0x0*8$/)' <<<"$rej")
	fi
	[ -z "$rej" ] || fail "a CM REJ on the wire (source reason): $(tr -s '\t\n' '  ' <<<"$rej")"
	note "CM MADs (count attribute): $(tr -s ' \n' ' ' <<<"$ids")"
}

# check_cm_retries PCAP: under loss (net_loss drops our first CM MAD) our
# CM sent a MAD again: the same attribute and transaction ID from our MAC
# twice or more on the bridge (br0 sees the frames the loss rule drops).
# rxe's resends are noted too.
check_cm_retries() {
	local pcap=$1 ours rxe
	ours=$(tshark -r "$pcap" $(tshark_no_ulp) -Y "infiniband.mad.mgmtclass == 0x07 && eth.src == $NET_US_MAC" \
		-T fields -e infiniband.mad.attributeid -e infiniband.mad.transactionid 2>/dev/null | sort | uniq -dc)
	rxe=$(tshark -r "$pcap" $(tshark_no_ulp) -Y "infiniband.mad.mgmtclass == 0x07 && eth.src != $NET_US_MAC" \
		-T fields -e infiniband.mad.attributeid -e infiniband.mad.transactionid 2>/dev/null | sort | uniq -dc)
	if [ -n "$ours" ]; then
		note "our CM sent again (count attribute TID): $(tr -s ' \n' ' ' <<<"$ours")"
	else
		fail "our CM sent no MAD again, though the bridge dropped its first"
	fi
	[ -z "$rxe" ] || note "rxe's CM sent again (count attribute TID): $(tr -s ' \n' ' ' <<<"$rxe")"
}

# check_rping ROLE ITERS EXTRA: with -v, each side printed ITERS ping
# lines: the client "ping data: rdma-ping-N: ..." as the server wrote it
# back, the server "server ping data: ..." as it read it (our side is ROLE)
check_rping() {
	local role=$1 iters=$2 cli=$RUN_DIR/rxe.log srv=$RUN_DIR/ours.log n
	case " $3 " in *" -v "*) ;; *) return ;; esac
	if [ "$role" = client ]; then cli=$RUN_DIR/ours.log srv=$RUN_DIR/rxe.log; fi
	n=$(grep -c '^ping data: rdma-ping-' "$cli")
	[ "$n" = "$iters" ] || fail "the rping client printed $n ping lines, not $iters"
	n=$(grep -c '^server ping data: rdma-ping-' "$srv")
	[ "$n" = "$iters" ] || fail "the rping server printed $n ping lines, not $iters"
	grep -q "^ping data: rdma-ping-$((iters - 1)): " "$cli" ||
		fail "the rping client's last line is not ping $((iters - 1))"
}
