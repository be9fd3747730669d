#!/usr/bin/env bash
# roce-perf --stage in both roles over a veth pair between two network
# namespaces: a staged server a peer WRITEs into and READs from, a staged
# client that READs into its MR and WRITEs from it. The peer is an
# unstaged roce-perf, so what crosses the wire is checked by its own
# --check pattern (or, from a staged MR of zeros, by the zeros decrypted);
# the staged side's --save-ddr is decrypted by tests/scripts/xts_ref.py
# (Python's cryptography) and must be that plaintext while the stored
# bytes are not. Also 512-byte units with a DUN base, PI and dedup in the
# chain (their counters), and the refusals: --check with --stage, an
# unknown stage, a short key file; a random key is said aloud.
# Usage: perf_stage_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/stage_veth.sh"
B=${1:?build dir}
S=${2:-$(dirname "$0")/../..}
PERF=$B/tools/roce-perf
DDR=$(dirname "$0")/lib/stage_ddr.py
export XTS_REF=${XTS_REF:-$S/tests/scripts/xts_ref.py}
NA=rstage-a-$$ NB=rstage-b-$$
fails=0 pass=0
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "perf_stage_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
stage_veth_pair perf_stage_veth "sa$$" "sb$$" 10.231.9 || exit 1

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() {
	fails=$((fails + 1)); echo "FAIL $*"
	sed 's/^/  client| /' "$TMP/cli" | tail -12; sed 's/^/  server| /' "$TMP/srv" | tail -12
}

# run TEST "SERVER ARGS" "CLIENT ARGS": both must pass
run() {
	stage_veth_run "$NA" "$NB" "$PERF $1 --netdev sa$$ --timeout 20 -n 20 $2" \
		"$PERF $1 --netdev sb$$ --timeout 20 -n 20 $3" 10.231.9.1
}

# 1. a staged server (xts,pi): the peer's WRITEs land encrypted, PI made
name="write_bw into a staged server (xts,pi, unit 4096): DDR decrypts to the client's pattern"
if run write_bw "--stage xts,pi --key-file $KEY --save-ddr $TMP/ddr" "--check" &&
   grep -q "^stages xts,pi on the buffer's MR .*key from $KEY" "$TMP/srv" &&
   python3 "$DDR" pattern "$TMP/ddr" "$KEY" 4096 0 65536 65536 &&
   [ "$(counter srv stage_xts_encrypted)" -ge 16 ] && [ "$(counter srv stage_pi_generated)" -ge 16 ] &&
   [ "$(counter srv stage_errors)" = 0 ]; then ok "$name"; else bad "$name"; fi

# 2. 512-byte units from DUN base 7; the peer's region (perftest's BUFF,
# 5000 bytes in) and its messages start and end inside units
name="write_bw -s 5000 into a staged server (xts, unit 512, DUN base 7)"
if run write_bw "-s 5000 --stage xts --data-unit 512 --dun-base 7 --key-file $KEY --save-ddr $TMP/ddr" \
	"-s 5000 --check" &&
   python3 "$DDR" pattern "$TMP/ddr" "$KEY" 512 7 5000 5000; then ok "$name"; else bad "$name"; fi

# 3. a staged server READ by the peer: its stored bytes (zeros, taken as
# stored at binding) are decrypted on the way out and PI is verified
name="read_bw from a staged server (xts,pi): fetched through the chain, PI verified"
if run read_bw "--stage xts,pi --key-file $KEY" "" &&
   [ "$(counter srv stage_xts_decrypted)" -ge 16 ] && [ "$(counter srv stage_pi_verified)" -ge 16 ] &&
   [ "$(counter srv stage_pi_errors)" = 0 ]; then ok "$name"; else bad "$name"; fi

# 4. a staged client READs the peer's pattern into its MR
name="read_bw into a staged client (xts): its DDR decrypts to the server's pattern"
if run read_bw "--check" "--stage xts --key-file $KEY --save-ddr $TMP/ddr" &&
   python3 "$DDR" pattern "$TMP/ddr" "$KEY" 4096 0 0 65536 &&
   [ "$(counter cli stage_xts_encrypted)" -ge 16 ]; then ok "$name"; else bad "$name"; fi

# 5. a staged client WRITEs from its MR: the wire carries what DDR's
# zeros decrypt to, which the unstaged server stores as is
name="write_bw from a staged client (xts): the server holds the client's DDR decrypted"
if run write_bw "--save-ddr $TMP/ddr" "--stage xts --key-file $KEY" &&
   python3 "$DDR" decrypt-zeros "$TMP/plain" "$KEY" 4096 0 65536 &&
   cmp -s <(tail -c +65537 "$TMP/ddr" | head -c 65536) "$TMP/plain"; then ok "$name"; else bad "$name"; fi

# 6. dedup first in the chain (the MR is DDR, its pool its own range)
name="write_bw into a staged server (dedup,xts,pi): blocks looked up, nothing failed"
if run write_bw "--stage dedup,xts,pi --key-file $KEY" "--check" &&
   [ "$(counter srv stage_dedup_lookups)" -ge 16 ] && [ "$(counter srv stage_errors)" = 0 ]; then
	ok "$name"; else bad "$name"; fi

# 7. refusals and the random key
out=$("$PERF" write_bw --netdev lo --stage xts --check 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "check with --stage: our buffer holds what the stages store" <<<"$out"; then
	ok "--check with --stage refused"; else fails=$((fails + 1)); echo "FAIL --check with --stage: rc=$rc $out"; fi
out=$("$PERF" write_bw --netdev lo --stage xts,zip 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "'zip': not a stage" <<<"$out"; then
	ok "an unknown stage refused"; else fails=$((fails + 1)); echo "FAIL unknown stage: rc=$rc $out"; fi
head -c 32 /dev/urandom >"$TMP/short"
name="a 32-byte key file refused, a missing one means a random key (said)"
if ! run write_bw "--stage xts --key-file $TMP/short" "" &&
   grep -q "exactly 64 bytes" "$TMP/srv" &&
   run write_bw "--stage xts" "" && grep -q "key random: what DDR holds cannot be decrypted" "$TMP/srv"
then ok "$name"; else bad "$name"; fi

echo "perf_stage_veth: $pass passed, $fails failed"
[ $fails = 0 ]
