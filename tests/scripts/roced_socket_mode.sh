#!/usr/bin/env bash
# roced's socket is full control of the NIC: it is created mode 0600 and
# owned by the user whatever the umask (umask 000 here), mode 0660 and the
# group asked for with --group (name or number); an unknown group is
# refused (exit 2) before anything is created. As root, with setpriv,
# another user (nobody) cannot connect with rocectl, and can once a member
# of the --group group; without root or setpriv that part is skipped.
# Usage: roced_socket_mode.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
roced=$build/tools/roced ctl=$build/tools/rocectl
tmp=$(mktemp -d)
sock=$tmp/run/roced.sock
pid=
stop() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	pid=
}
trap 'stop; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
mkdir "$tmp/run"

# serve ARGS...: roced under umask 000 on $sock, until its socket is there
serve() {
	stop
	(umask 000; exec "$roced" --quiet --socket "$sock" "$@") 2>"$tmp/roced.err" &
	pid=$!
	for _ in $(seq 200); do
		[ -S "$sock" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	fail "roced $* did not serve: $(cat "$tmp/roced.err")"
	return 1
}

# expect_mode MODE GID: the socket's mode and group, owner this user,
# and nothing else left in its directory (the private bind directory)
expect_mode() {
	local got
	got=$(stat -c '%a %u %g' "$sock")
	[ "$got" = "$1 $(id -u) $2" ] || fail "socket is '$got', expected '$1 $(id -u) $2'"
	got=$(ls -A "$tmp/run")
	[ "$got" = "roced.sock" ] || fail "left in the socket's directory: $got"
}

# default: 0600 whatever the umask, and the owner connects
if serve; then
	expect_mode 600 "$(id -g)"
	"$ctl" --socket "$sock" read DEV_ID >"$tmp/out" 2>&1 ||
		fail "the owner cannot connect: $(cat "$tmp/out")"
fi
# --group by name and by number
if serve --group "$(id -gn)"; then
	expect_mode 660 "$(id -g)"
fi
other=$(id -g)
[ "$(id -u)" -eq 0 ] && other=4242      # root may give it to any group
if serve --group "$other"; then
	expect_mode 660 "$other"
fi
stop

# an unknown group: usage error, no socket
for bad in no-such-group-roced "" 12x; do
	rm -f "$sock"
	"$roced" --socket "$sock" --group "$bad" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] || fail "--group '$bad' exited $rc, expected 2: $(cat "$tmp/out")"
	grep -q "unknown group '$bad'" "$tmp/out" || fail "--group '$bad' says: $(cat "$tmp/out")"
	[ -e "$sock" ] && fail "--group '$bad' left a socket"
done
"$roced" --help | grep -q -- "--group GROUP" || fail "--help does not list --group"
"$roced" --help | grep -q "mode 0600" || fail "--help does not say the socket is 0600"

# another user: refused by the socket's mode, admitted by its group
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIP: connecting as another user needs root and setpriv"
else
	chmod 755 "$tmp" "$tmp/run"     # only the socket's own mode stands in the way
	install -m 755 "$ctl" "$tmp/rocectl"
	nobody() { setpriv --reuid=65534 --regid=65534 "$@" "$tmp/rocectl" --socket "$sock" read DEV_ID; }
	if serve; then
		nobody --clear-groups >"$tmp/out" 2>&1
		rc=$?
		[ "$rc" -eq 1 ] && grep -q "Permission denied (its socket is for roced's user" "$tmp/out" ||
			fail "nobody on a 0600 socket: exit $rc: $(cat "$tmp/out")"
	fi
	if serve --group 4242; then
		nobody --clear-groups >"$tmp/out" 2>&1 &&
			fail "nobody outside group 4242 connected: $(cat "$tmp/out")"
		nobody --groups=4242 >"$tmp/out" 2>&1 ||
			fail "nobody in group 4242 cannot connect: $(cat "$tmp/out")"
		grep -q "0x52434532" "$tmp/out" || fail "nobody in group 4242 read: $(cat "$tmp/out")"
	fi
	stop
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "roced socket mode: all checks passed"
