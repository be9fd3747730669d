# shellcheck shell=bash
# Inline stages in a run (docs/stages.md), sourced by tests/interop/run:
# our side's roce-perf binds its MR to a chain (ours:--stage=LIST), with
# the run's key (ours:--key-file=@RUN_DIR@/stage.key, made here) and its
# DDR saved at the end (ours:--save-ddr=@RUN_DIR@/ours.ddr). perftest
# never checks its data, so check_stage does: the capture's WRITE or READ
# response payload against our DDR decrypted with the key
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
	local enc=stage_xts_encrypted pi=stage_pi_generated
	{ [ "$tool:$role" = read_bw:server ] || [ "$tool:$role" = write_bw:client ]; } &&
		enc=stage_xts_decrypted pi=stage_pi_verified
	[ "$(counter "$RUN_DIR/counters.txt" "$enc")" -gt 0 ] 2>/dev/null || fail "--stage: $enc did not move"
	case ",$chain," in
	*,pi,*) [ "$(counter "$RUN_DIR/counters.txt" "$pi")" -gt 0 ] 2>/dev/null || fail "--stage: $pi did not move" ;;
	esac
	[ "$(counter "$RUN_DIR/counters.txt" stage_errors)" = 0 ] || fail "--stage: stage_errors $(counter "$RUN_DIR/counters.txt" stage_errors)"
}
