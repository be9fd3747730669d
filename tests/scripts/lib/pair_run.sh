# Sourced by the script tests that run a server and a client in the two
# namespaces $NA and $NB of lib/netns.sh, counting results in $pass and
# $fails, with the scratch directory $TMP and the list $pids.

# result NAME WHY...: ok when WHY is empty; else FAIL, with both sides'
# output ($TMP/cli, $TMP/srv)
result() {
	local name=$1; shift
	if [ -z "$*" ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name:$*"
		cut -c1-120 "$TMP/cli" | head -40 | sed 's/^/  client| /'
		cut -c1-120 "$TMP/srv" | head -40 | sed 's/^/  server| /'
	fi
}

# pair SERVER_CMD... :: CLIENT_CMD...: the server in NA, then (after
# $WAIT s, 0.7 by default) the client in NB, each for 60 s at most; sets
# crc, src (exit statuses) and $TMP/srv, $TMP/cli
pair() {
	local s=() sp
	while [ "$1" != :: ]; do s+=("$1"); shift; done
	shift
	ip netns exec "$NA" timeout -k 5 60 "${s[@]}" >"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	sleep "${WAIT:-0.7}"
	ip netns exec "$NB" timeout -k 5 60 "$@" >"$TMP/cli" 2>&1
	crc=$?
	wait "$sp"
	src=$?
}
