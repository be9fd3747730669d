#!/usr/bin/env bash
# Every bad input to rocectl and roced gets a clear message and the right
# exit status (0 ok, 1 device/bus error, 2 usage), and nothing crashes:
# unknown register, misaligned offset (DECERR), read-only register
# (SLVERR), roced not running, bad config, bad arguments, the QP count;
# enabling the engine before link-ready is accepted, waiting for the link
# times out.
# Usage: rocectl_errors.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
roced=$build/tools/roced ctl=$build/tools/rocectl
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect RC NEEDLE CMD...: exit status RC and NEEDLE in stdout+stderr
expect() {
	local want=$1 needle=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "'$*' exited $rc, expected $want: $(head -c 400 "$tmp/out")"
	elif [ -n "$needle" ] && ! grep -q -- "$needle" "$tmp/out"; then
		fail "'$*' does not say '$needle': $(head -c 400 "$tmp/out")"
	fi
}

expect 0 "usage: rocectl" "$ctl" --help
expect 0 "usage: roced" "$roced" --help
expect 2 "usage: rocectl" "$ctl"
expect 2 "unknown command 'frobnicate'" "$ctl" --local frobnicate
expect 2 "unknown option '--bogus'" "$ctl" --bogus read CTRL
expect 2 "choose one bus" "$ctl" --local --socket /tmp/x read CTRL
expect 2 "--socket needs an argument" "$ctl" --socket
expect 2 "unknown register 'NOPE'" "$ctl" --local read NOPE
expect 2 "usage: rocectl read" "$ctl" --local read
expect 2 "usage: rocectl write" "$ctl" --local write CTRL
expect 1 "decerr" "$ctl" --local read 0x6
expect 1 "DECERR" "$ctl" --local read 0x800
expect 1 "write DEV_ID (0x028) = 0x00000001: slverr" "$ctl" --local write DEV_ID 1
expect 1 "slverr" "$ctl" --local write STAT_TX_PKTS_LOW 0
expect 2 "bad value 'lots'" "$ctl" --local write SCRATCH lots
expect 2 "bad value '0x100000000'" "$ctl" --local write SCRATCH 0x100000000
expect 0 "" "$ctl" --local write scratch 0x5a
expect 0 "MAC_LOW" "$ctl" --local read 0x4
expect 0 '"name":"CTRL","offset":0,"value":0' "$ctl" --local --json read CTRL
expect 0 "STAT_DROP_DISABLED_HIGH" "$ctl" --local dump
expect 0 '"registers":\[' "$ctl" --local --json dump
expect 0 "dev_id       0x52434532" "$ctl" --local info
expect 0 "state                RESET" "$ctl" --local qp 5
expect 2 "bad QPN" "$ctl" --local qp x
expect 1 "QP_INDEX" "$ctl" --local qp 0xffffff
expect 0 '"valid":false' "$ctl" --local --json mr 1
expect 0 '"space":"ddr"' "$ctl" --local --json mr 1
expect 0 "tx_pkts" "$ctl" --local counters
expect 0 '"icrc_errors":0' "$ctl" --local --json counters
expect 2 "unknown counter 'bogus'" "$ctl" --local counters bogus
expect 2 "--count needs" "$ctl" --local counters --count 0
expect 2 "interval" "$ctl" --local counters --watch 0
expect 2 "unknown option" "$ctl" --local counters --fast
"$ctl" --local counters tx_pkts rx_pkts --watch 0.01 --count 3 >"$tmp/watch" 2>&1 \
	|| fail "counters --watch: $(cat "$tmp/watch")"
[ "$(grep -c '^counter' "$tmp/watch")" -eq 3 ] || fail "watch samples: $(cat "$tmp/watch")"
[ "$(grep -c '^tx_pkts' "$tmp/watch")" -eq 3 ] || fail "watch filter: $(cat "$tmp/watch")"
grep -q "^icrc" "$tmp/watch" && fail "watch shows unrequested counters"

# roced not running
expect 1 "cannot connect to roced at $tmp/none.sock.*is roced running" \
	"$ctl" --socket "$tmp/none.sock" read CTRL
expect 1 "is roced running" env ROCECTL_BUS="socket:$tmp/none.sock" "$ctl" info
expect 2 "ROCECTL_BUS='bogus'" env ROCECTL_BUS=bogus "$ctl" info
expect 0 "bus          local" env ROCECTL_BUS=local "$ctl" info
expect 1 "cannot map $tmp/none" "$ctl" --mmap "$tmp/none" read CTRL
expect 2 "bad offset" "$ctl" --mmap "$tmp/none@3" read CTRL
: >"$tmp/empty"
expect 1 "too small" "$ctl" --mmap "$tmp/empty" read CTRL
head -c 12288 /dev/zero >"$tmp/zeros"
expect 1 "no live mirror" "$ctl" --mmap "$tmp/zeros" read CTRL

# bad configs
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\nudp_port = many\n' >"$tmp/bad.conf"
expect 2 "$tmp/bad.conf:3: udp_port: 'many' is not a number" "$ctl" --local init "$tmp/bad.conf"
expect 2 "$tmp/bad.conf:3" "$ctl" --local verify "$tmp/bad.conf"
expect 2 "No such file" "$ctl" --local init "$tmp/absent.conf"
expect 2 "usage: rocectl init" "$ctl" --local init
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\n[mr 3]\npa = 0\nlen = 1G\nrkey = 0x3a7\n' >"$tmp/big.conf"
expect 1 "MR 3: COMMIT rejected, MR_CMD_STATUS" "$ctl" --local init "$tmp/big.conf"
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\n[qp 17]\ntype = rc\ndest_qpn = 1\n' >"$tmp/nopeer.conf"
expect 1 "step 8" "$ctl" --local init "$tmp/nopeer.conf"
expect 1 "MISMATCH CTRL" "$ctl" --local verify "$tmp/nopeer.conf"

# roced's own arguments
expect 2 "bad value 'abc'" "$roced" --link-delay-us abc
expect 2 "unexpected argument 'extra'" "$roced" --socket "$tmp/r.sock" extra
expect 2 "try 'roced --help'" "$roced" --frobnicate
expect 2 "--mem-size: bad value" "$roced" --mem-size 1T
expect 1 "cannot create the device" "$roced" --socket "$tmp/r.sock" --mem-size 1000
expect 1 "cannot mirror into" "$roced" --socket "$tmp/r.sock" --mmap "$tmp/no/such/dir/w"

# The QP count: a config states it (qp_count), rocectl --local and roced
# --qp-count build a device of that size, a device of another size is
# refused at power-on, QPNs beyond it answer SLVERR.
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\nqp_count = 64\n[qp 63]\ntype = ud\n' >"$tmp/qp64.conf"
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\nqp_count = 64\n[qp 64]\ntype = ud\n' >"$tmp/qp65.conf"
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\nqp_count = 16385\n' >"$tmp/qpbig.conf"
expect 0 "device up, 1 QP(s)" "$ctl" --local init "$tmp/qp64.conf"
expect 2 "$tmp/qp65.conf:4: \[qp 64\] beyond the device's QPs (qp_count = 64: 0\.\.63)" \
	"$ctl" --local init "$tmp/qp65.conf"
expect 2 "$tmp/qpbig.conf:3: qp_count: 16385 out of range (18\.\.16384)" \
	"$ctl" --local verify "$tmp/qpbig.conf"
expect 0 "qp-count N .*QP_COUNT" "$roced" --help
expect 2 "roced: --qp-count: bad value '16385'" "$roced" --qp-count 16385
expect 2 "roced: --qp-count: 17 is too few" "$roced" --qp-count 17
expect 2 "roced: --qp-count: bad value 'x'" "$roced" --qp-count x
sock=$tmp/qp.sock
"$roced" --quiet --socket "$sock" --qp-count 64 &
pid=$!
for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "roced --qp-count 64 did not start"
expect 0 "qp_count     64" "$ctl" --socket "$sock" info
expect 0 "QP_COUNT  *0x00000040" "$ctl" --socket "$sock" read QP_COUNT
expect 0 "device up, 1 QP(s)" "$ctl" --socket "$sock" init "$tmp/qp64.conf"
expect 0 "every register matches" "$ctl" --socket "$sock" verify "$tmp/qp64.conf"
expect 0 "state                RTS" "$ctl" --socket "$sock" qp 63
expect 1 "QP_INDEX.*slverr" "$ctl" --socket "$sock" qp 64
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# A slow link: enabling early is accepted; init's wait for link times out.
sock=$tmp/slow.sock
"$roced" --quiet --socket "$sock" --link-delay-us 30000000 &
pid=$!
for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "roced did not start"
expect 1 "another roced" "$roced" --socket "$sock"
printf 'mac = 02:00:00:00:00:01\nip = 10.0.0.1\nlink_timeout_ms = 100\n' >"$tmp/slow.conf"
expect 1 "step 6 (wait for link): link not ready after 100 ms" \
	"$ctl" --socket "$sock" init "$tmp/slow.conf"
expect 0 "ENGINE_EN=0" "$ctl" --socket "$sock" read CTRL
expect 0 "" "$ctl" --socket "$sock" write CTRL 2
expect 0 "LINK_READY=0 .*RUNNING=1" "$ctl" --socket "$sock" read STATUS
expect 0 "link-down running" "$ctl" --socket "$sock" info
expect 1 "step 1 (probe): QP_COUNT 16384, but the config says qp_count = 64" \
	"$ctl" --socket "$sock" init "$tmp/qp64.conf"

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "rocectl errors: ok"
