#!/usr/bin/env bash
# Two transport engines on raw-Ethernet ports in two network namespaces
# joined by a veth pair: RDMA WRITE, READ and SEND leave the right bytes,
# on a clean wire and with 10 % of the frames dropped in both ports, in
# each port mode, polled from one thread; and on engine threads.
# Needs root (namespaces, CAP_NET_RAW); skipped (77) without it.
set -euo pipefail
. "$(dirname "$0")/lib/netns.sh"
BUILD=$1
HELPER=$BUILD/tests/helpers/afp_engines

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "afpacket_engines: needs root and iproute2; skipped"
  exit 77
fi
[ -x "$HELPER" ] || { echo "afpacket_engines: $HELPER missing" >&2; exit 1; }

NSA=afea$$ NSB=afeb$$ IFA=afea$$ IFB=afeb$$
cleanup() { netns_del "$NSA" "$NSB"; }
trap cleanup EXIT

netns_pair "$NSA" "$NSB" "$IFA" "$IFB" 192.0.2.1/24 192.0.2.2/24

run() { timeout -k 5 300 "$HELPER" "$NSA" "$IFA" "$NSB" "$IFB" "$@"; }
run ring 0
run ring 0.1
run ring-v3 0
run mmsg 0.1
# Engines on their own threads, on a clean wire: spinning threads on two
# shared cores may wait for a core long enough to time a lossy run out.
run auto 0 1
echo "afpacket_engines: pass"
