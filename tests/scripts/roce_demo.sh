#!/usr/bin/env bash
# roce-demo: the seed's flow passes on a clean and on a lossy link (and the
# counters show the recovery), its capture is clean RoCE for roce-pcap and
# Wireshark, --json is valid, bad options exit 2 with a message.
set -euo pipefail
build=$1 src=$2
demo=$build/tools/roce-demo
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# every run is bounded; the flow and the table take well under a second
run() { timeout -k 5 60 "$demo" "$@"; }

# the default flow, quick: every step's success line, the table, PASS
run --quick > "$tmp/out" || fail "default --quick run exited $?: $(tail -3 "$tmp/out")"
for step in '(a) SEND A -> B, 36-byte advertisement; B parsed: IP 10.0.0.1, MAC 02:00:00:00:00:0a' \
	    '(b) WRITE B -> A, 1048576 bytes in 1024 packets of MTU 1024' \
	    '(c) READ A -> B, 1048576 bytes into a second buffer' \
	    '(d) FETCH_AND_ADD +5 on A' \
	    '(e) CMP_AND_SWAP 1005 -> 42: returned 1005, counter 42; again (no match): returned 42'; do
  grep -qF "✓ $step" "$tmp/out" || fail "no success line '$step'"
done
grep -qF 'PSN 0xffff80..0x00037f' "$tmp/out" || fail "the WRITE does not cross the 24-bit PSN wrap"
grep -q 'FAIL' "$tmp/out" && fail "a FAIL in a passing run"
grep -q '#bytes *#iterations *BW peak\[MB/sec\] *BW average\[MB/sec\] *MsgRate\[Mpps\]' "$tmp/out" \
  || fail "no perftest-style table header"
for op in WRITE READ SEND; do
  for size in 64 4096 65536; do
    grep -qE "^ $op +$size +50 +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$tmp/out" || fail "no $op $size row"
  done
done
grep -qE '^ p50 [0-9.]+ µs, p99 [0-9.]+ µs$' "$tmp/out" || fail "no latency line"
grep -qE '^  tx_pkts +[1-9][0-9]* +[1-9][0-9]*$' "$tmp/out" || fail "no tx_pkts counter row"
grep -q '^PASS: every step succeeded.$' "$tmp/out" || fail "no PASS line"
# a clean link without capture lends its ring: every frame built in place
sent=$(sed -nE 's/^Link: ([0-9]+) frames sent.*/\1/p' "$tmp/out")
grep -qE "^ +$sent of the frames built in the receiver's ring" "$tmp/out" \
  || fail "not every one of the $sent frames was built in place"

# another MTU, a size that is not a multiple of it, engines on their threads
run --quick --mtu 256 --size 100001 --iters 20 --threads > "$tmp/out" \
  || fail "--mtu 256 --size 100001 --threads run: $(tail -3 "$tmp/out")"
grep -qF '(b) WRITE B -> A, 100001 bytes in 391 packets of MTU 256' "$tmp/out" || fail "MTU 256 WRITE line"

# the smallest QP table: QPN 17 alone, and the flow still passes
run --quick --iters 10 --qp-count 18 > "$tmp/out" || fail "--qp-count 18 run: $(tail -3 "$tmp/out")"
[ "$(grep -c 'DDR 64 MiB, 18 QPs, 4096 MRs' "$tmp/out")" -eq 2 ] || fail "NICs do not report 18 QPs"
grep -q '^PASS: every step succeeded.$' "$tmp/out" || fail "no PASS with --qp-count 18"

# a lossy, corrupting link: still passes, and the transport had to retransmit
run --loss 5 --corrupt 1 --quick --seed 3 --json > "$tmp/lossy.json" \
  || fail "lossy run exited $?: $(head -c 600 "$tmp/lossy.json")"
python3 - "$tmp/lossy.json" <<'EOF' || fail "lossy run's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "pass" and d["failed_step"] is None, d["failed_step"]
names = [s["name"] for s in d["steps"]]
for n in ("advertise", "write", "read_compare", "fetch_and_add", "cmp_and_swap",
          "bandwidth", "latency", "counters"):
    s = d["steps"][names.index(n)]
    assert s["result"] == "pass", (n, s)
c = d["counters"]
retx = c["A"]["retransmissions"] + c["B"]["retransmissions"]
assert retx > 0, "no retransmissions"
assert c["A"]["naks_tx_psn_seq_err"] + c["B"]["naks_tx_psn_seq_err"] > 0, "no NAKs"
assert c["A"]["drop_icrc"] + c["B"]["drop_icrc"] > 0, "no ICRC drops"
assert d["link"]["lost"] > 0 and d["link"]["corrupted"] > 0, d["link"]
assert d["link"]["zero_copy"] == 0, d["link"]      # faults act on copies
assert len(d["bandwidth"]) == 9 and all(r["iterations"] > 0 for r in d["bandwidth"])
assert d["latency"]["samples"] > 0 and d["latency"]["p99_us"] >= d["latency"]["p50_us"] > 0
assert d["nics"]["A"]["qp"]["state"] == "RTS" and d["nics"]["A"]["ip"] == "10.0.0.1"
print("retransmissions", retx)
EOF

# the capture: clean for roce-pcap and for Wireshark, every frame RoCE
run --quick --size 64K --iters 10 --pcap "$tmp/demo.pcap" > "$tmp/out" || fail "--pcap run exited $?"
"$build/tools/roce-pcap" --verify "$tmp/demo.pcap" > "$tmp/verify" || fail "roce-pcap --verify: $(tail -3 "$tmp/verify")"
frames=$(sed -n 's/.*: \([0-9]*\) frames, \1 RoCE, 0 malformed, 0 bad ICRC: ok$/\1/p' "$tmp/verify")
[ -n "$frames" ] && [ "$frames" -gt 100 ] || fail "unexpected verify summary: $(cat "$tmp/verify")"
if command -v tshark > /dev/null; then
  bad=$(timeout -k 5 60 tshark -r "$tmp/demo.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null)
  [ -z "$bad" ] || fail "tshark finds errors: $(echo "$bad" | head -5)"
  ib=$(timeout -k 5 60 tshark -r "$tmp/demo.pcap" -Y infiniband 2>/dev/null | wc -l)
  [ "$ib" -eq "$frames" ] || fail "tshark decodes $ib of $frames frames as InfiniBand"
else
  echo "tshark not installed (scripts/install-deps): Wireshark check skipped"
fi

# bad options: exit 2 and say what is wrong
bad_opt() { # want-message args...
  local want=$1 rc=0; shift
  timeout -k 5 10 "$demo" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
  grep -qF -- "$want" "$tmp/err" || fail "'$*': message '$(cat "$tmp/err")' lacks '$want'"
  [ ! -s "$tmp/out" ] || fail "'$*' printed on stdout"
}
bad_opt "bad --mtu '300'" --mtu 300
bad_opt "bad --loss '200'" --loss 200
bad_opt "bad --size '-1'" --size -1
bad_opt "bad --size '0'" --size 0
bad_opt "bad --iters 'x'" --iters x
bad_opt "bad --corrupt 'nan'" --corrupt nan
bad_opt "bad --qp-count '17': must lie in 18..16384" --qp-count 17
bad_opt "bad --qp-count '16385': must lie in 18..16384" --qp-count 16385
bad_opt "unknown option '--bogus'" --bogus
bad_opt "missing value for '--mtu'" --mtu
bad_opt "unexpected argument 'extra'" extra
bad_opt "cannot create capture file" --pcap "$tmp/no/such/dir/x.pcap"

timeout -k 5 10 "$demo" --help > "$tmp/help" || fail "--help exited $?"
for o in --mtu --size --iters --loss --reorder --duplicate --corrupt --seed --qp-count \
	 --pcap --threads --quick --json --all-counters; do
  grep -q -- "$o" "$tmp/help" || fail "--help does not list $o"
done
echo ok
