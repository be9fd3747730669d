#!/usr/bin/env bash
# roce-fabric: --help, bad options (exit 2, a message), and short incasts
# on the virtual clock: the JSON has the figures the issue names; two runs
# with the same options print the same JSON (virtual time: no machine in
# it); DCQCN sends and handles CNPs and keeps the queue under Kmax with no
# drop on the 8:1 incast; without CC and without the bounded window the
# same incast drops; PFC pauses instead of dropping; a READ incast has
# its responders (the senders' QPs) handle the CNPs; --plot writes an SVG
# that parses, with a line per flow; --pcap's frames as tshark dissects
# them (CNPs as A17.9.3 defines them, ECT, CE marks). 256 senders are
# taken and 257 refused; --cc none sends no CNP; a --cc list runs each
# algorithm on the same scenario (a JSON line each, a column each in the
# table and the plot); PFC turns a dropping incast into a lossless one.
# Usage: roce_fabric.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
F=$B/tools/roce-fabric
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0 pass=0

expect "--help" 0 "--senders N" "$F" --help
expect "bad senders" 2 "bad --senders '0'" "$F" --senders 0
expect "bad cc" 2 "bad --cc 'dctcp': dcqcn, swift or none" "$F" --cc dctcp
expect "bad cc in a list" 2 "bad --cc 'dcqcn,tcp'" "$F" --cc dcqcn,tcp
expect "257 senders refused" 2 "bad --senders '257': a number from 1 to 256" "$F" --senders 257
expect "xon above xoff" 2 "--xon 300 is above --xoff 200" "$F" --pfc --xoff 200 --xon 300
expect "convergence window past the run" 2 "--converge-us 3000 is longer than the 2 ms run" \
	"$F" --duration-ms 2 --converge-us 3000
expect "bad pmax" 2 "bad --pmax '2'" "$F" --pmax 2
expect "kmin above kmax" 2 "--kmin 500 is above --kmax 400" "$F" --kmin 500
expect "late past the end" 2 "--late-ms 30 is not within" "$F" --late-ms 30
expect "unknown knob" 2 "no such knob" "$F" --set nope=1
expect "knob out of range" 2 "out of the knob's range" "$F" --set rpg_gd=99
expect "knob list" 0 "rpg_time_reset +300" "$F" --set list
expect "stray argument" 2 "unexpected argument 'x'" "$F" x

# check NAME PYTHON-ASSERTIONS -- ARGS: a run's JSON (as d) must satisfy them
check() {
	local name=$1 cond=$2; shift 3
	if "$F" -q --json "$@" >"$TMP/j" 2>"$TMP/e" &&
	   python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $cond, d" "$TMP/j" 2>"$TMP/py"; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name"; cat "$TMP/e" "$TMP/py" "$TMP/j" | sed 's/^/  | /'
	fi
}

keys='all(k in d for k in ["utilization","jain_fairness","queue_p50_bytes","queue_p99_bytes","queue_p50_run_bytes","queue_p99_run_bytes","kmax_bytes","drops","drops_before","drops_after","timeouts","timeouts_after","cnp_sent","pause_frames","converged","converge_ms","per_flow_gbps"])'
check "8:1 DCQCN: figures, CNPs, no drop, queue under Kmax" \
	"$keys and d['cnp_sent'] > 0 and d['drops'] == 0 and d['queue_p99_bytes'] <= d['kmax_bytes'] and d['utilization'] > 0.9 and len(d['per_flow_gbps']) == 8" \
	-- --duration-ms 4
check "no CC, no window: drops" "d['drops'] > 0 and d['cnp_sent'] == 0" \
	-- --duration-ms 2 --cc none --window 0
check "no CC: no CNP, no mark answered, where DCQCN's incast has them" \
	"d['cc'] == 'none' and d['ecn_marks'] == 0 and d['cnp_sent'] == 0 and d['cnp_handled'] == 0" \
	-- --duration-ms 2 --cc none --senders 16
check "256 senders (PFC, lossless): every one of them sends" \
	"len(d['per_flow_gbps']) == 256 and min(d['per_flow_gbps']) > 0 and d['utilization'] > 0.9 and d['drops'] == 0" \
	-- --duration-ms 2 --senders 256 --pfc
check "the same 16:1 incast drops without PFC" "d['drops'] > 0 and d['pause_frames'] == 0" \
	-- --duration-ms 2 --senders 16 --window 0
check "... and with PFC pauses, resumes and drops nothing" \
	"d['drops'] == 0 and d['pause_frames'] > 16 and d['utilization'] > 0.9 and min(d['per_flow_gbps']) > 0" \
	-- --duration-ms 2 --senders 16 --window 0 --pfc
check "no CC, no window, PFC: pauses, no drop" "d['drops'] == 0 and d['pause_frames'] > 0" \
	-- --duration-ms 2 --cc none --window 0 --pfc --senders 4
check "READ incast: the responders are the ones throttled" \
	"d['op'] == 'read' and d['cnp_handled'] > 0 and d['drops'] == 0 and d['utilization'] > 0.9" \
	-- --duration-ms 3 --read
check "victim flow reported" "'victim_gbps' in d and len(d['per_flow_gbps']) == 3" \
	-- --duration-ms 2 --senders 3 --victim

"$F" -q --json --duration-ms 2 --senders 4 --seed 5 >"$TMP/a"
"$F" -q --json --duration-ms 2 --senders 4 --seed 5 >"$TMP/b"
if [ -s "$TMP/a" ] && cmp -s "$TMP/a" "$TMP/b"; then
	pass=$((pass + 1)); echo "ok   same options, same figures"
else
	fails=$((fails + 1)); echo "FAIL same options, same figures"; diff "$TMP/a" "$TMP/b" | head
fi

# --cc a,b: a JSON line per algorithm, in order, on the same scenario;
# --json=FILE keeps the table on stdout
if "$F" -q --duration-ms 2 --senders 4 --cc none,dcqcn,swift --json="$TMP/m.json" \
	--plot "$TMP/m.svg" >"$TMP/m.txt" &&
   python3 -c "
import json, sys, xml.etree.ElementTree as ET
runs = [json.loads(l) for l in open(sys.argv[1])]
assert [d['cc'] for d in runs] == ['none', 'dcqcn', 'swift'], runs
assert runs[0]['cnp_sent'] == 0 and runs[1]['cnp_sent'] > 0, runs
assert all(d['senders'] == 4 and d['duration_ms'] == 2 for d in runs)
t = open(sys.argv[2]).read()
assert 'none' in t and 'dcqcn' in t and 'swift' in t and 'converged at' in t, t
r = ET.parse(sys.argv[3]).getroot()
lines = [e for e in r.iter() if e.tag.endswith('polyline')]
assert len(lines) == 3 * 5, len(lines)   # per algorithm: 4 flows and the queue
" "$TMP/m.json" "$TMP/m.txt" "$TMP/m.svg"; then
	pass=$((pass + 1)); echo "ok   --cc list: side by side"
else
	fails=$((fails + 1)); echo "FAIL --cc list: side by side"; cat "$TMP/m.txt" "$TMP/m.json"
fi

if "$F" -q --duration-ms 2 --senders 3 --plot "$TMP/p.svg" >/dev/null &&
   python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
lines = [e for e in r.iter() if e.tag.endswith('polyline')]
assert len(lines) == 4, len(lines)   # 3 flows and the queue
" "$TMP/p.svg"; then
	pass=$((pass + 1)); echo "ok   --plot"
else
	fails=$((fails + 1)); echo "FAIL --plot"
fi
# tshark's view of a short run's frames (what entered the switch): CNPs
# as A17.9.3 has them (opcode 0x81, BECN in BTH byte 4, PSN 0, A clear,
# 16 reserved bytes: UDP length 40), DSCP 48 and ECT(1); data ECT(0),
# some marked CE by the switch; nothing malformed
if command -v tshark >/dev/null; then
	"$F" -q --duration-ms 1 --pcap "$TMP/f.pcap" >/dev/null
	tshark -r "$TMP/f.pcap" -Y "infiniband.bth.opcode == 129" -T fields \
		-e ip.dsfield.dscp -e ip.dsfield.ecn -e infiniband.bth.psn -e infiniband.bth.a \
		-e udp.length -e udp.payload 2>/dev/null >"$TMP/cnp"
	tshark -r "$TMP/f.pcap" -T fields -e ip.dsfield.ecn -e infiniband.bth.opcode \
		2>/dev/null >"$TMP/ecn"
	bad=$(tshark -r "$TMP/f.pcap" -Y "_ws.malformed || _ws.expert.severity >= 6" 2>/dev/null | wc -l)
	if python3 - "$TMP/cnp" "$TMP/ecn" "$bad" <<'PY'
import sys
cnps = [l.split('\t') for l in open(sys.argv[1]).read().splitlines()]
assert cnps, "no CNP"
for dscp, ecn, psn, a, ulen, pl in cnps:
    b = bytes.fromhex(pl.replace(':', ''))
    assert (dscp, ecn, psn, a, ulen) == ('48', '1', '0', '0', '40'), (dscp, ecn, psn, a, ulen)
    assert b[0] == 0x81 and b[4] == 0x40 and b[12:28] == bytes(16), b.hex()
rows = [l.split('\t') for l in open(sys.argv[2]).read().splitlines()]
data = [e for e, op in rows if op in ('10', '6', '7', '8')]   # RC WRITE packets
assert data and all(e in ('2', '3') for e in data), set(data)
assert data.count('3') > 0, "no CE mark"
assert sys.argv[3] == '0', sys.argv[3] + " malformed"
PY
	then
		pass=$((pass + 1)); echo "ok   tshark: CNPs, ECT, CE marks"
	else
		fails=$((fails + 1)); echo "FAIL tshark: CNPs, ECT, CE marks"; head -3 "$TMP/cnp"
	fi
else
	echo "skip tshark checks: no tshark"
fi
expect "--pcap to a bad path" 1 "could not set" "$F" -q --duration-ms 1 --pcap /nonexistent/x.pcap
expect "--plot to a bad path" 1 "cannot write" "$F" -q --duration-ms 1 --plot /nonexistent/x.svg

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
