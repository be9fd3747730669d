# Sourced by the roce-run script tests: how to run a Debian program under
# roce-run from the build directory $1.
#
# rr_setup BUILD_DIR: RR (the roce-run binary) and RR_ENV (the environment
# roce-run needs for the drop-in of this build). A sanitized build's
# drop-in (ASan+UBSan, clang) leaves the sanitizer runtime to the program,
# which Debian's programs do not have: roce-run preloads it into the
# program (ROCE_RUN_PRELOAD; roce-run, sanitized itself, has its own), and
# ASan is told not to insist on being first in the link order. RR_LEAKS=0
# before rr_setup turns LeakSanitizer off, for a program that leaks its
# own memory at exit (perftest: its device list, its parameters), since
# every allocation of the drop-in is also on a stack of the program's.
rr_setup() {
	local b=$1 lib
	RR=$b/tools/roce-run
	RR_ENV=()
	lib=$(find "$b" -path '*/roce/ibverbs/libibverbs.so.1' -print -quit)
	if [ -n "$lib" ] && [[ "$(nm -D "$lib" 2>/dev/null)" == *" U __asan_init"* ]]; then
		local rt
		rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
		[ -f "$rt" ] || { echo "FAIL: the sanitized drop-in needs clang's libclang_rt.asan-x86_64.so" >&2; return 1; }
		RR_ENV=(ROCE_RUN_PRELOAD="$rt" ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=${RR_LEAKS:-1}:abort_on_error=1
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
