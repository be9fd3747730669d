#!/usr/bin/env bash
# tests/verbs/verbs_ex.c, two of it under roce-run on a veth pair made
# here: inline data (ibv_post_send and ibv_wr_set_inline_data*, RC and
# UD), the ibv_wr_* send API of ibv_create_qp_ex, extended CQs polled
# with ibv_start_poll and read with ibv_wc_read_*, a completion channel
# on one, and their refusals; each side prints "verbs_ex: ok" and exits
# 0, and here, that each refusal said what it refused in one line.
# Usage: verbs_ex.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir}
NA=vex-a-$$ NB=vex-b-$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_ex: SKIP (needs root and network namespaces)"; exit 0
fi
[ -x "$B/tests/verbs_ex" ] || { echo "FAIL: no $B/tests/verbs_ex"; exit 1; }
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "xa$$" "xb$$" 10.237.10.1/24 10.237.10.2/24 || { echo "FAIL: veth setup"; exit 1; }

ip netns exec "$NA" timeout -k 5 60 "$B/tools/roce-run" --netdev "xa$$" -- \
	"$B/tests/verbs_ex" server 18518 >"$TMP/srv" 2>"$TMP/srv.err" &
sp=$!
pids+=("$sp")
ip netns exec "$NB" timeout -k 5 60 "$B/tools/roce-run" --netdev "xb$$" -- \
	"$B/tests/verbs_ex" client 10.237.10.1 18518 >"$TMP/cli" 2>"$TMP/cli.err"
crc=$?
wait "$sp"
src=$?
[ $crc = 0 ] || fail "client exited $crc"
[ $src = 0 ] || fail "server exited $src"
grep -qx "verbs_ex: ok" "$TMP/cli" || fail "the client did not finish"
grep -qx "verbs_ex: ok" "$TMP/srv" || fail "the server did not finish"
for line in "ibv_create_qp: max_inline_data 513 over the device's 512" \
	    "ibv_create_qp_ex: send_ops_flags 0x[0-9a-f]* not supported" \
	    "ibv_create_cq_ex: wc_flags 0x[0-9a-f]* not supported"; do
	[ "$(grep -c "^libibverbs (roce-run): $line" "$TMP/cli.err")" = 1 ] ||
		fail "the client's stderr does not say '$line' once"
done
grep -hE "ERROR: (Address|Leak|Thread)Sanitizer|runtime error:|verbs_ex:[0-9]+:" \
	"$TMP/srv.err" "$TMP/cli.err" && fail "a check or a sanitizer failed"

if [ $fails = 0 ]; then
	echo "verbs_ex: ok"
else
	sed 's/^/  server| /' "$TMP/srv.err"; sed 's/^/  client| /' "$TMP/cli.err"
fi
[ $fails = 0 ]
