#!/usr/bin/env bash
# roced on a network interface (--netdev/--ip): the engine answers ARP for
# an address the kernel does not carry, counts the RoCE packets a peer
# sends (read through rocectl over the register socket), shuts down
# cleanly on SIGTERM; and clear errors for a missing interface, one that
# is down or has no carrier, and no CAP_NET_RAW.
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

# ---- the engine on B's interface, at an address B's kernel does not carry
sock=$tmp/roced.sock
ip netns exec "$NSB" timeout 120 "$roced" --socket "$sock" --netdev "$IFB" \
  --ip 192.0.2.12 2>"$tmp/roced.err" &
pid=$!
for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || { cat "$tmp/roced.err" >&2; fail "roced did not start"; exit 1; }
grep -q "engine on $IFB" "$tmp/roced.err" || fail "start-up line: $(cat "$tmp/roced.err")"
grep -q "ARP answered" "$tmp/roced.err" || fail "ARP should be answered: $(cat "$tmp/roced.err")"
"$ctl" --socket "$sock" info >/dev/null || fail "rocectl info"

bmac=$(ip -n "$NSB" -o link show "$IFB" | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2)
got=$("$probe" "$NSA" "$IFA" 192.0.2.1 192.0.2.12 25) || fail "probe failed"
[ "$got" = "$bmac" ] || fail "ARP answer '$got', want roced's MAC '$bmac'"
n=0
for _ in $(seq 1 100); do
  n=$("$ctl" --socket "$sock" counters drop_qpn | awk '{print $2}')
  [ "$n" = 25 ] && break
  sleep 0.05
done
[ "$n" = 25 ] || fail "drop_qpn $n, want 25 (the engine must see every probe)"

kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || fail "roced exit status $rc after SIGTERM: $(cat "$tmp/roced.err")"
[ -e "$sock" ] && fail "socket left behind"

# ---- errors: each names the interface and the cause, exit status 1
expect() { # want-substring args...
  local want=$1; shift
  out=$(ip netns exec "$NSA" timeout 20 "$@" 2>&1); rc=$?
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

[ "$failures" -eq 0 ] || exit 1
echo "afpacket_roced: pass"
