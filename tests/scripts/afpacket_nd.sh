#!/usr/bin/env bash
# IPv6 neighbour discovery of the raw-Ethernet port between two network
# namespaces joined by a veth pair (tests/helpers/afp_nd.c says what is
# checked): the port answers solicitations for its address the kernel does
# not carry and holds the UDP port of the one it does; resolution on the
# wire, through the port and from the kernel's neighbour table.
# Needs root (namespaces, CAP_NET_RAW); skipped (77) without it.
set -euo pipefail
. "$(dirname "$0")/lib/netns.sh"
BUILD=$1
HELPER=$BUILD/tests/helpers/afp_nd

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "afpacket_nd: needs root and iproute2; skipped"
  exit 77
fi
[ -x "$HELPER" ] || { echo "afpacket_nd: $HELPER missing" >&2; exit 1; }

NSA=afna$$ NSB=afnb$$ IFA=afna$$ IFB=afnb$$
cleanup() { netns_del "$NSA" "$NSB"; }
trap cleanup EXIT

netns_pair "$NSA" "$NSB" "$IFA" "$IFB" 192.0.2.1/24 192.0.2.2/24
for ns in "$NSA" "$NSB"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
ip -n "$NSA" -6 addr add fd92::1/64 dev "$IFA" nodad
ip -n "$NSB" -6 addr add fd92::2/64 dev "$IFB" nodad
ip -n "$NSA" -6 neigh replace fd92::50 lladdr 02:00:00:00:00:50 dev "$IFA" nud permanent
# the link-local addresses leave duplicate address detection (~1 s)
for i in $(seq 100); do
  if ip -n "$NSA" -6 addr show dev "$IFA" scope link | grep -q inet6 &&
     ip -n "$NSB" -6 addr show dev "$IFB" scope link | grep -q inet6 &&
     ! ip -n "$NSA" -6 addr show dev "$IFA" | grep -q tentative &&
     ! ip -n "$NSB" -6 addr show dev "$IFB" | grep -q tentative; then
    break
  fi
  sleep 0.1
done
timeout -k 5 90 "$HELPER" "$NSA" "$IFA" "$NSB" "$IFB"
echo "afpacket_nd: pass"
