#!/usr/bin/env bash
# roce-pingpong --stage in both roles over a veth pair between two network
# namespaces: a staged server whose buffer an unstaged client's -c
# pattern is SENT into and SENT back from (the client checks every byte it
# gets back; the server's --save-ddr decrypts to the pattern, stored as
# ciphertext, 512-byte units from DUN base 3, PI made and verified), and a
# staged client whose buffer's bytes, taken as stored, go out decrypted
# (the unstaged server's buffer holds what the client's DDR decrypts to).
# Decryption by tests/scripts/xts_ref.py (Python's cryptography). Also
# the refusals: one line each, exit status 2.
# Usage: pingpong_stage_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/stage_veth.sh"
PP=${1:?build dir}/tools/roce-pingpong
export XTS_REF=${XTS_REF:-${2:-$(dirname "$0")/../..}/tests/scripts/xts_ref.py}
DDR=$(dirname "$0")/lib/stage_ddr.py NA=rppst-a-$$ NB=rppst-b-$$ fails=0 pass=0
netns_script_init "$NA" "$NB"

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() {
	fails=$((fails + 1)); echo "FAIL $*"
	sed 's/^/  client| /' "$TMP/cli" | tail -12; sed 's/^/  server| /' "$TMP/srv" | tail -12
}

# 1. the refusals need no namespace: one line on stderr, exit status 2
refused() {
	local want=$1 out rc
	shift
	out=$("$PP" --netdev lo "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qF -- "$want" <<<"$out"; then
		ok "refused: $*"
	else
		fails=$((fails + 1)); echo "FAIL refused: $* (rc=$rc): $out"
	fi
}
refused "-c with --stage: our buffer holds what the stages store" --stage xts -c
refused "--stage 'xts,zip': 'zip': not a stage" --stage xts,zip
refused "--data-unit '1000': 512 or 4096" --stage xts --data-unit 1000
refused "--dun-base '-3': not a number" --stage xts --dun-base -3
refused "--key-file and --dun-base need --stage" --key-file /dev/null

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "pingpong_stage_veth: $pass passed; the runs SKIP (need root and network namespaces)"
	exit $((fails > 0))
fi
stage_veth_pair pingpong_stage_veth "qa$$" "qb$$" 10.231.10 || exit 1

# run "SERVER ARGS" "CLIENT ARGS": both must pass
run() {
	stage_veth_run "$NA" "$NB" "$PP --netdev qa$$ --timeout 20 -n 20 $1" \
		"$PP --netdev qb$$ --timeout 20 -n 20 $2" 10.231.10.1
}

# roce-pingpong -c's message (tools/roce-pingpong.c pattern(), page 4096)
python3 -c '
import sys
n = int(sys.argv[1])
sys.stdout.buffer.write(bytes(0 if i % 4096 == 0 else (i * 7 ^ (i >> 8) ^ 0x5a) & 0xff for i in range(n)))
' 5000 >"$TMP/pattern"

name="a staged server (xts,pi, unit 512, DUN base 3): the client's pattern comes back whole, DDR holds it encrypted"
if run "-s 5000 -m 1024 --stage xts,pi --data-unit 512 --dun-base 3 --key-file $KEY --save-ddr $TMP/ddr" \
	"-s 5000 -m 1024 -c" &&
   grep -q "^stages xts,pi on the buffer's MR (5120 bytes .*unit 512, DUN base 3, key from $KEY" "$TMP/srv" &&
   python3 "$DDR" plain "$TMP/ddr" "$KEY" 512 3 0 "$TMP/pattern" &&
   [ "$(counter srv stage_xts_encrypted)" -ge 20 ] && [ "$(counter srv stage_xts_decrypted)" -ge 20 ] &&
   [ "$(counter srv stage_pi_verified)" -ge 20 ] && [ "$(counter srv stage_errors)" = 0 ]
then ok "$name"; else bad "$name"; fi

name="a staged client (xts): its stored 0x7b bytes go out decrypted, the unstaged server holds them so"
if run "-s 4096 --save-ddr $TMP/plain" "-s 4096 --stage xts --key-file $KEY --save-ddr $TMP/ddr" &&
   cmp -s "$TMP/ddr" <(head -c 4096 /dev/zero | tr '\0' '\173') &&
   python3 "$DDR" plain "$TMP/ddr" "$KEY" 4096 0 0 "$TMP/plain" &&
   [ "$(counter cli stage_xts_decrypted)" -ge 20 ]
then ok "$name"; else bad "$name"; fi

echo "pingpong_stage_veth: $pass passed, $fails failed"
[ $fails = 0 ]
