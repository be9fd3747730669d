#!/usr/bin/env bash
# The raw-Ethernet port between two network namespaces joined by a veth
# pair: exact bytes, bursts, MTU refusal, the BPF filter, ICMP silence
# while the RoCE port is held, ARP answer and resolution, in every mode.
# Needs root (namespaces, CAP_NET_RAW); skipped (77) without it.
set -euo pipefail
. "$(dirname "$0")/lib/netns.sh"
BUILD=$1
HELPER=$BUILD/tests/helpers/afp_frames

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "afpacket_link: needs root and iproute2; skipped"
  exit 77
fi
[ -x "$HELPER" ] || { echo "afpacket_link: $HELPER missing" >&2; exit 1; }

NSA=afpa$$ NSB=afpb$$ IFA=afa$$ IFB=afb$$
cleanup() { netns_del "$NSA" "$NSB"; }
trap cleanup EXIT

netns_pair "$NSA" "$NSB" "$IFA" "$IFB" 192.0.2.1/24 192.0.2.2/24
ip -n "$NSA" neigh replace 192.0.2.50 lladdr 02:00:00:00:00:50 dev "$IFA" nud permanent

for mode in ring ring-v3 mmsg auto; do
  timeout -k 5 90 "$HELPER" "$NSA" "$IFA" "$NSB" "$IFB" "$mode"
done
echo "afpacket_link: pass"
