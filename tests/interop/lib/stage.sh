# shellcheck shell=bash
# Inline stages in a run (docs/stages.md), sourced by tests/interop/run:
# our side's roce-perf or roce-pingpong binds its MR to a chain
# (ours:--stage=LIST), with the run's key (ours:--key-file=@RUN_DIR@/stage.key,
# made here) and its DDR saved at the end (ours:--save-ddr=@RUN_DIR@/ours.ddr).
# Neither perftest nor ibv_rc_pingpong (without -c) checks its data, so
# check_stage does: the capture's WRITE or READ response payload, or every
# SEND message either way, against our DDR decrypted with the key
# (tests/interop/stage_wire.py, through tests/scripts/xts_ref.py), plus
# the stage counters our tool printed.

# stage_word EXTRA NAME: the value of our side's --NAME=VALUE (empty: none)
stage_word() {
	local w
	for w in $(extra_for ours "$1"); do
		case "$w" in --$2=*) echo "${w#--"$2"=}" ;; esac
	done
}

# stage_prepare EXTRA: the run's key file, 64 random bytes, when named
stage_prepare() {
	local key
	key=$(stage_word "$1" key-file)
	[ -z "$key" ] || head -c 64 /dev/urandom >"$key"
}

# check_stage ROLE TOOL MTU EXTRA: the wire carried plaintext, our DDR its
# ciphertext; XTS (and PI when in the chain) counted, no stage error
check_stage() {
	local role=$1 tool=$2 mtu=$3 extra=$4 chain key ddr unit dun va out
	chain=$(stage_word "$extra" stage)
	key=$(stage_word "$extra" key-file)
	ddr=$(stage_word "$extra" save-ddr)
	unit=$(stage_word "$extra" data-unit)
	dun=$(stage_word "$extra" dun-base)
	va=$(sed -n "s/^stages .* on the buffer's MR ([0-9]* bytes at VA \(0x[0-9a-f]*\),.*/\1/p" \
		"$RUN_DIR/ours.log" | head -n1)
	if [ -z "$va" ]; then
		fail "--stage: our tool did not say where its staged MR is (ours.log)"
		return
	fi
	if [ ! -s "$ddr" ]; then
		fail "--stage: no DDR saved ($ddr)"
		return
	fi
	if out=$(python3 "$SRC/tests/interop/stage_wire.py" "$RUN_DIR/wire.pcap" "$ddr" "$key" \
		"${unit:-4096}" "${dun:-0}" "$role" "$tool" "$mtu" "$NET_US_MAC" "$va" 2>&1); then
		note "--stage $chain: $out"
	else
		fail "--stage $chain: $out"
	fi
	# the direction(s) our MR's bytes took: placed (encrypted, PI made),
	# fetched (decrypted, PI verified), or both for a pingpong's echo
	local xts="stage_xts_encrypted" pi="stage_pi_generated" c
	case "$tool:$role" in
	read_bw:server|write_bw:client) xts=stage_xts_decrypted pi=stage_pi_verified ;;
	rc_pingpong:*) xts+=" stage_xts_decrypted" pi+=" stage_pi_verified" ;;
	esac
	case ",$chain," in *,pi,*) ;; *) pi= ;; esac
	for c in $xts $pi; do
		[ "$(counter "$RUN_DIR/counters.txt" "$c")" -gt 0 ] 2>/dev/null || fail "--stage: $c did not move"
	done
	[ "$(counter "$RUN_DIR/counters.txt" stage_errors)" = 0 ] || fail "--stage: stage_errors $(counter "$RUN_DIR/counters.txt" stage_errors)"
}
