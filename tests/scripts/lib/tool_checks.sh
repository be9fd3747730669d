# Sourced by the tool tests over veth (perf_veth.sh, pingpong_veth.sh):
# checks that count into the caller's $pass and $fails, output in $TMP.

# expect NAME RC_WANTED PATTERN CMD...: CMD exits RC_WANTED (any non-zero
# for "nz") and says PATTERN (grep -E); a FAIL line and a failure if not
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	"$@" >"$TMP/out" 2>&1
	local rc=$?
	if { [ "$want" = nz ] && [ $rc -ne 0 ] || [ "$rc" = "$want" ]; } &&
	   grep -qE -e "$pat" "$TMP/out"; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (rc=$rc)"; sed 's/^/  | /' "$TMP/out"
	fi
}

# xdp_probe HELPER NS IF: can an AF_XDP port open on IF in NS? Status 0
# yes; 77 no, this machine has no AF_XDP (the reason is printed); 1 the
# probe itself failed (a FAIL line and a failure)
xdp_probe() {
	local helper=$1 rc=0
	if [ ! -x "$helper" ]; then
		echo "skip --link xdp runs: no $helper"
		return 77
	fi
	timeout -k 5 30 "$helper" open "$2" "$3" auto >"$TMP/xo" 2>&1 || rc=$?
	if [ $rc -eq 77 ]; then
		echo "skip --link xdp runs: AF_XDP unavailable: $(tail -1 "$TMP/xo")"
		return 77
	elif [ $rc -ne 0 ]; then
		fails=$((fails + 1)); echo "FAIL AF_XDP probe (rc=$rc)"; cat "$TMP/xo"
		return 1
	fi
}
