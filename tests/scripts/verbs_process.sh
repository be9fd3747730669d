#!/usr/bin/env bash
# tests/verbs/verbs_process.c, two of it under roce-run on a veth made
# here (docs/verbs.md, "Who runs the engine"): the server opens the device
# twice (one engine: one QPN space; closing one context leaves the other
# working) and answers; the client forks after connecting (the child's
# copy is refused with EIO, the parent pings on), and exits while a
# thread of it spins on its CQ, running the engine's turns. Both print
# "verbs_process: ok" and exit 0, the child's refusal is said once on
# stderr, and no sanitizer reports.
# Usage: verbs_process.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir}
NA=vpr-a-$$ NB=vpr-b-$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_process: SKIP (needs root and network namespaces)"; exit 0
fi
[ -x "$B/tests/verbs_process" ] || { echo "FAIL: no $B/tests/verbs_process"; exit 1; }
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "pa$$" "pb$$" 10.237.9.1/24 10.237.9.2/24 || { echo "FAIL: veth setup"; exit 1; }

ip netns exec "$NA" timeout -k 5 60 "$B/tools/roce-run" --netdev "pa$$" -- \
	"$B/tests/verbs_process" server 18517 200 >"$TMP/srv" 2>"$TMP/srv.err" &
sp=$!
pids+=("$sp")
ip netns exec "$NB" timeout -k 5 60 "$B/tools/roce-run" --netdev "pb$$" -- \
	"$B/tests/verbs_process" client 10.237.9.1 18517 200 >"$TMP/cli" 2>"$TMP/cli.err"
crc=$?
wait "$sp"
src=$?
[ $crc = 0 ] || fail "client exited $crc"
[ $src = 0 ] || fail "server exited $src"
grep -qx "verbs_process: ok" "$TMP/cli" || fail "the client did not finish"
grep -qx "verbs_process: ok" "$TMP/srv" || fail "the server did not finish"
[ "$(grep -c "opened before fork()" "$TMP/cli.err")" = 1 ] ||
	fail "the child's refusal is not said once on stderr"
grep -hE "ERROR: (Address|Leak|Thread)Sanitizer|runtime error:|verbs_process:[0-9]+:" \
	"$TMP/srv.err" "$TMP/cli.err" && fail "a check or a sanitizer failed"

if [ $fails = 0 ]; then
	echo "verbs_process: ok"
else
	sed 's/^/  server| /' "$TMP/srv.err"; sed 's/^/  client| /' "$TMP/cli.err"
fi
[ $fails = 0 ]
