# Sourced by the script tests that talk to roced (rocectl_cc.sh,
# rocectl_verify.sh, roced_mmap.sh, roced_trace.sh). Sets tmp (a directory
# removed at exit), pid (roced's, killed at exit by PID); the caller
# defines fail MSG (a FAIL line, exit 1), which roced_start calls too.
#   roced_start BUILD SOCK [ROCED ARGS...]: roced on SOCK, waited for
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
roced_start() {
	local build=$1 sock=$2; shift 2
	"$build/tools/roced" --quiet --socket "$sock" "$@" &
	pid=$!
	for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
	[ -S "$sock" ] || fail "roced did not create $sock"
}
