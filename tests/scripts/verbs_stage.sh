#!/usr/bin/env bash
# Inline stages under roce-run (docs/verbs.md, "Inline stages"): Debian's
# ibv_rc_pingpong -c between two roce-run over a veth pair, the server's
# MRs bound to XTS (roce-run --stage xts). The server's buffer is its own
# memory, so it holds ciphertext (docs/stages.md, "What the local CPU
# sees"): the server's -c check (it checks the first byte of each page it
# received) reports invalid data, and its stderr carries the drop-in's
# line saying why; the client, which gets back what the server's buffer
# decrypts to, finds its data intact. The key is fixed (bytes 0..63), so
# the first ciphertext byte of the page (0x70) is known not to be the 0
# -c expects. Also PI alone (the program sees its data, told its PI
# lives in DDR), an MR that is no whole number of units refused at
# ibv_reg_mr with the reason, and roce-run's refusals at start (dedup,
# a bad unit, a bad key file), each one line and status 2 or 1.
# Usage: verbs_stage.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=vst-a-$$ NB=vst-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_stage: SKIP (needs root and network namespaces)"; exit 0
fi
if ! rr_have ibv_rc_pingpong; then
	echo "verbs_stage: SKIP (ibverbs-utils not installed)"; exit 0
fi
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "sta$$" "stb$$" 10.235.9.1/24 10.235.9.2/24 || { echo "FAIL: veth setup"; exit 1; }
KEY=$TMP/key
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(64)))' >"$KEY"
LINE="roce-run: stages xts bound to every MR: this program's buffers hold ciphertext, not what its peer sent"

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() {
	fails=$((fails + 1)); echo "FAIL $*"
	sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
}

# pp "SERVER roce-run OPTIONS" ARGS...: ibv_rc_pingpong ARGS, server in NA
# under roce-run with those options, client in NB under a plain roce-run
pp() {
	local sopts=$1 sp
	shift
	# shellcheck disable=SC2086
	ip netns exec "$NA" timeout -k 5 60 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "sta$$" \
		$sopts -- ibv_rc_pingpong "$@" >"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	for _ in $(seq 100); do
		ip netns exec "$NA" ss -ltn 2>/dev/null | grep -q ':18515 ' && break
		sleep 0.1
	done
	rr "$NB" "stb$$" ibv_rc_pingpong "$@" 10.235.9.1 >"$TMP/cli" 2>&1
	CRC=$?
	wait "$sp"
	SRC=$?
}

RR_TIMEOUT=60
pp "--stage xts --key-file $KEY" -g 1 -c -n 5
name="ibv_rc_pingpong -c, server under --stage xts: its check fails and it is told why"
if [ $CRC = 0 ] && [ $SRC = 0 ] && grep -qF "$LINE" "$TMP/srv" &&
   [ "$(grep -c '^roce-run: stages' "$TMP/srv")" = 1 ] &&
   grep -q "invalid data in page 0" "$TMP/srv" && ! grep -q "invalid data" "$TMP/cli" &&
   ! grep -q "roce-run: stages" "$TMP/cli"; then ok "$name"; else bad "$name"; fi

pp "--stage pi" -g 1 -c -n 5
name="ibv_rc_pingpong -c, server under --stage pi: data intact, told where its PI is"
if [ $CRC = 0 ] && [ $SRC = 0 ] &&
   grep -q "^roce-run: stages pi bound to every MR: their PI is in the device's DDR" "$TMP/srv" &&
   ! grep -q "invalid data" "$TMP/srv" "$TMP/cli"; then ok "$name"; else bad "$name"; fi

# 4000 bytes: no whole number of 4096-byte units
out=$(ip netns exec "$NA" timeout -k 5 60 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "sta$$" \
	--stage xts -- ibv_rc_pingpong -g 1 -s 4000 2>&1); rc=$?
if [ $rc != 0 ] && grep -q "ibv_reg_mr of 4000 bytes: stages xts: " <<<"$out" &&
   grep -q "Couldn't register MR" <<<"$out"; then
	ok "an MR of 4000 bytes under --stage xts refused, with the reason"
else fails=$((fails + 1)); echo "FAIL 4000-byte MR: rc=$rc"; echo "$out"; fi

# refusals before the program starts
check_refusal() { # what status pattern ARGS... (ROCE_STAGE_ENV: roce-run's environment)
	local what=$1 want=$2 pat=$3 out rc
	shift 3
	out=$(ip netns exec "$NA" env ${ROCE_STAGE_ENV:-} "$RR" --netdev "sta$$" "$@" -- ibv_devinfo 2>&1); rc=$?
	if [ $rc = "$want" ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- "$pat" <<<"$out"; then
		ok "$what"
	else fails=$((fails + 1)); echo "FAIL $what: rc=$rc"; echo "$out"; fi
}
check_refusal "--stage dedup refused at start" 2 "^roce-run: stage dedup: a dedup volume is the card's DDR" --stage dedup,xts
ROCE_STAGE_ENV=ROCE_STAGE=dedup check_refusal "ROCE_STAGE=dedup from the environment refused too" 2 \
	"^roce-run: stage dedup: "
check_refusal "--data-unit 1000 refused" 2 "ROCE_STAGE_UNIT=1000: 512 or 4096" --stage xts --data-unit 1000
check_refusal "--stage foo refused" 2 "ROCE_STAGE=foo: 'foo': not a stage" --stage foo
head -c 10 /dev/zero >"$TMP/short"
check_refusal "a 10-byte key file refused" 1 "exactly 64 bytes" --stage xts --key-file "$TMP/short"

echo "verbs_stage: $pass passed, $fails failed"
[ $fails = 0 ]
