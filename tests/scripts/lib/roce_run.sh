# Sourced by the roce-run script tests: how to run a Debian program under
# roce-run from the build directory $1.
#
# rr_setup BUILD_DIR: RR (the roce-run binary) and RR_ENV (the environment
# roce-run needs for the drop-in of this build). A sanitized build's
# drop-in (ASan+UBSan, clang) leaves the sanitizer runtime to the program,
# which Debian's programs do not have: it comes by LD_PRELOAD, and ASan
# is told not to insist on being first in the link order.
rr_setup() {
	local b=$1 lib
	RR=$b/tools/roce-run
	RR_ENV=()
	lib=$(find "$b" -path '*/roce/ibverbs/libibverbs.so.1' -print -quit)
	if [ -n "$lib" ] && nm -D "$lib" 2>/dev/null | grep -q ' U __asan_init'; then
		local rt
		rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
		[ -f "$rt" ] || { echo "FAIL: the sanitized drop-in needs clang's libclang_rt.asan-x86_64.so" >&2; return 1; }
		RR_ENV=(LD_PRELOAD="$rt" ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:abort_on_error=1
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
	fi
	[ -x "$RR" ] || { echo "FAIL: no $RR" >&2; return 1; }
}

# rr NS IFNAME PROGRAM ARGS...: PROGRAM under roce-run on IFNAME in NS,
# killed after RR_TIMEOUT seconds (default 60)
rr() {
	local ns=$1 ifc=$2
	shift 2
	ip netns exec "$ns" timeout "${RR_TIMEOUT:-60}" env ${RR_ENV[@]+"${RR_ENV[@]}"} \
		"$RR" --netdev "$ifc" -- "$@"
}

# rr_have PROGRAM...: all of Debian's programs there (ibverbs-utils, perftest)
rr_have() {
	local p
	for p in "$@"; do command -v "$p" >/dev/null || return 1; done
}
