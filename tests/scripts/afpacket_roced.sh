#!/usr/bin/env bash
# roced on a network interface (--netdev/--ip): the engine answers ARP for
# an address the kernel does not carry, counts the RoCE packets a peer
# sends (read through rocectl over the register socket), shuts down
# cleanly on SIGTERM, on an AF_PACKET port and (where AF_XDP is there) on
# an AF_XDP one; and clear errors for a missing interface, one that is
# down or has no carrier, no CAP_NET_RAW, and bad --link values.
# Needs root (namespaces, CAP_NET_RAW); skipped (77) without it.
set -uo pipefail
BUILD=$1
roced=$BUILD/tools/roced ctl=$BUILD/tools/rocectl probe=$BUILD/tests/helpers/afp_probe

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "afpacket_roced: needs root and iproute2; skipped"
  exit 77
fi

NSA=afra$$ NSB=afrb$$ IFA=afra$$ IFB=afrb$$ DN=afrd$$ DP=afrp$$
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  ip netns del "$NSA" 2>/dev/null
  ip netns del "$NSB" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

set -e
ip netns add "$NSA"
ip netns add "$NSB"
ip link add "$IFA" netns "$NSA" type veth peer name "$IFB" netns "$NSB"
ip link add "$DN" netns "$NSA" type veth peer name "$DP" netns "$NSA"
ip -n "$NSA" addr add 192.0.2.1/24 dev "$IFA"
ip -n "$NSB" addr add 192.0.2.2/24 dev "$IFB"
ip -n "$NSA" link set "$IFA" up
ip -n "$NSB" link set "$IFB" up
set +e

# ---- the engine on B's interface, at an address B's kernel does not carry:
# roced with ARGS (a port kind) starts, says so (its line holds SAYS),
# answers ARP, counts every probe, stops cleanly on SIGTERM
bmac=$(ip -n "$NSB" -o link show "$IFB" | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2)
engine_answers() { # name says args...
  local name=$1 says=$2 sock=$tmp/roced-$1.sock err=$tmp/roced-$1.err n=0
  shift 2
  ip netns exec "$NSB" timeout -k 5 120 "$roced" --socket "$sock" --netdev "$IFB" \
    --ip 192.0.2.12 "$@" 2>"$err" &
  pid=$!
  for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
  [ -S "$sock" ] || { cat "$err" >&2; fail "$name: roced did not start"; exit 1; }
  grep -q "engine on $IFB ($says" "$err" || fail "$name: start-up line: $(cat "$err")"
  grep -q "ARP answered" "$err" || fail "$name: ARP should be answered: $(cat "$err")"
  "$ctl" --socket "$sock" info >/dev/null || fail "$name: rocectl info"
  got=$("$probe" "$NSA" "$IFA" 192.0.2.1 192.0.2.12 25) || fail "$name: probe failed"
  [ "$got" = "$bmac" ] || fail "$name: ARP answer '$got', want roced's MAC '$bmac'"
  for _ in $(seq 1 100); do
    n=$("$ctl" --socket "$sock" counters drop_qpn | awk '{print $2}')
    [ "$n" = 25 ] && break
    sleep 0.05
  done
  [ "$n" = 25 ] || fail "$name: drop_qpn $n, want 25 (the engine must see every probe)"
  kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
  [ "$rc" -eq 0 ] || fail "$name: roced exit status $rc after SIGTERM: $(cat "$err")"
  [ -e "$sock" ] && fail "$name: socket left behind"
}
engine_answers packet ""

# The same over AF_XDP (--link xdp): the port answers ARP for the address
# the kernel lacks, so it takes the queue. Where this machine has AF_XDP
# (a build with libxdp, a kernel with XDP sockets).
xrc=0
timeout -k 5 30 "$BUILD/tests/helpers/afx_engines" open "$NSA" "$IFA" generic \
  >/dev/null 2>"$tmp/xdp-probe.err" || xrc=$?
if [ "$xrc" -eq 77 ]; then
  echo "afpacket_roced: --link xdp skipped: $(tail -1 "$tmp/xdp-probe.err")"
else
  engine_answers xdp "xdp " --link xdp
fi

# ---- errors: each names the interface and the cause, exit status 1
expect() { # want-substring args...
  local want=$1; shift
  out=$(ip netns exec "$NSA" timeout -k 5 20 "$@" 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "'$*': exit $rc, want 1 ($out)"
  case "$out" in *"$want"*) ;; *) fail "'$*': '$out' lacks '$want'" ;; esac
}
expect "nosuch0: no such interface" \
  "$roced" --socket "$tmp/e.sock" --netdev nosuch0 --ip 192.0.2.1
expect "$DN: interface is down" \
  "$roced" --socket "$tmp/e.sock" --netdev "$DN" --ip 192.0.2.1
ip -n "$NSA" link set "$DN" up
expect "$DN: interface has no carrier" \
  "$roced" --socket "$tmp/e.sock" --netdev "$DN" --ip 192.0.2.1
expect "Operation not permitted (AF_PACKET needs CAP_NET_RAW)" \
  setpriv --reuid 65534 --regid 65534 --clear-groups \
  "$roced" --socket "$tmp/e.sock" --netdev "$IFA" --ip 192.0.2.1
usage() { # want-substring args...
  local want=$1; shift
  out=$("$roced" "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] && [[ $out == *"$want"* ]] || fail "'$*': exit $rc, '$out'"
}
usage "--netdev and --ip go together" --netdev "$IFA"
usage "--netdev and --ip go together" --ip 192.0.2.1
usage "not an IPv4 address" --netdev "$IFA" --ip 192.0.2
usage "not a unicast address" --netdev "$IFA" --ip 224.0.0.1
usage "not auto, ring, ring-v3 or mmsg" --netdev "$IFA" --ip 192.0.2.1 --link-mode fast
usage "not auto, on or off" --netdev "$IFA" --ip 192.0.2.1 --arp maybe
usage "--link: 'pigeon' is not packet or xdp" --netdev "$IFA" --ip 192.0.2.1 --link pigeon
usage "not auto, native or generic" --netdev "$IFA" --ip 192.0.2.1 --xdp-mode fast

[ "$failures" -eq 0 ] || exit 1
echo "afpacket_roced: pass"
