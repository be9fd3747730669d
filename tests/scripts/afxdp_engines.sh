#!/usr/bin/env bash
# Two transport engines on AF_XDP ports in two network namespaces joined
# by a veth pair (MTU 1500, path MTU 1024): ARP through the ports, frames
# that are not RoCE dropped, RDMA WRITE, READ and SEND of several sizes
# leave exactly the right bytes, in each XDP mode the veth takes, polled
# from one thread and on engine threads, and with 10 % of the frames
# dropped in both ports. Then the errors: a missing
# interface, an interface that is down, an MTU whose frames do not fit a
# UMEM frame: each refused with its message and a non-zero exit.
# Needs root and AF_XDP (libxdp/libbpf at build time, a kernel with XDP
# sockets); skipped (77), saying why, without them.
set -euo pipefail
. "$(dirname "$0")/lib/netns.sh"
BUILD=$1
HELPER=$BUILD/tests/helpers/afx_engines

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "afxdp_engines: needs root and iproute2; skipped"
  exit 77
fi
[ -x "$HELPER" ] || { echo "afxdp_engines: $HELPER missing" >&2; exit 1; }

NSA=afxa$$ NSB=afxb$$ IFA=afxa$$ IFB=afxb$$
tmp=$(mktemp -d)
cleanup() { netns_del "$NSA" "$NSB"; rm -rf "$tmp"; }
trap cleanup EXIT

fail() { echo "afxdp_engines: $*" >&2; exit 1; }

netns_pair "$NSA" "$NSB" "$IFA" "$IFB" 192.0.2.1/24 192.0.2.2/24
ip -n "$NSA" link set "$IFA" mtu 1500
ip -n "$NSB" link set "$IFB" mtu 1500

# Can this machine do AF_XDP at all? (build without libxdp, kernel
# without XDP sockets, no BPF): skip, saying why.
rc=0
timeout -k 5 30 "$HELPER" open "$NSA" "$IFA" generic >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ]; then
  echo "afxdp_engines: skipped: $(tail -1 "$tmp/err")"
  exit 77
fi
[ "$rc" -eq 0 ] || fail "open: exit $rc: $(cat "$tmp/err")"
grep -q "^ok generic path-mtu 1024$" "$tmp/out" || fail "open: $(cat "$tmp/out")"

run() { timeout -k 5 300 "$HELPER" "$NSA" "$IFA" "$NSB" "$IFB" "$@"; }
run generic 0
run generic 0 1
run generic 0.1
# native XDP on veth at MTU 1500 (no multi-buffer needed); a kernel that
# refuses it says why, and auto then falls back to generic
rc=0
timeout -k 5 30 "$HELPER" open "$NSA" "$IFA" native >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 0 ]; then
  run native 0
  run auto 0 1
else
  grep -q "refuses native XDP" "$tmp/err" || fail "native refused without a reason: $(cat "$tmp/err")"
  echo "afxdp_engines: native XDP not available: $(tail -1 "$tmp/err")"
  run auto 0
fi

# expect_fail WHAT PATTERN ARGS...: a non-zero exit and the message
expect_fail() {
  local what=$1 pat=$2 rc=0
  shift 2
  timeout -k 5 30 "$HELPER" open "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" -ne 0 ] || fail "$what: opened ($(cat "$tmp/out"))"
  grep -q "$pat" "$tmp/err" || fail "$what: message '$(cat "$tmp/err")' lacks '$pat'"
}
expect_fail "missing interface" "nosuch$$: no such interface" "$NSA" "nosuch$$" auto
ip -n "$NSA" link set "$IFA" mtu 9000
expect_fail "MTU 9000" "$IFA: MTU 9000: .*multi-buffer, not supported" "$NSA" "$IFA" generic
ip -n "$NSA" link set "$IFA" mtu 1500
ip -n "$NSA" link set "$IFA" down
expect_fail "interface down" "$IFA: interface is down" "$NSA" "$IFA" generic
echo "afxdp_engines: pass"
