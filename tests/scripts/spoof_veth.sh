#!/usr/bin/env bash
# A stranger on the segment writes into a connected QP of roce-perf's
# server: server and write_bw client in two namespaces joined by a veth
# pair made here; beside the client, the frame crafter
# (tests/interop/garbage.py, kind spoofed_src) builds WRITE ONLYs to the
# server's QP from the QPN, R_Key, VA and the client's first PSN the
# server printed, and sends 200 of them from another source IP (with the
# PSNs the server expects next and 0xEE payload) at the half of the
# server's region the client never writes. The server must drop and count
# every one as drop_src_addr, its buffer (a file, --mmap) must show none
# of their bytes, and the run must pass its content check.
# Usage: spoof_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir}
S=${2:?source dir}
PERF=$B/tools/roce-perf
NA=rspoof-a-$$ NB=rspoof-b-$$
fails=0
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v python3 >/dev/null; then
	echo "spoof_veth: SKIP (needs root, network namespaces and python3)"
	exit 0
fi
fail() { fails=$((fails + 1)); echo "FAIL $*"; }
netns_pair "$NA" "$NB" "va$$" "vb$$" 10.231.9.1/24 10.231.9.2/24 || { echo "FAIL: veth setup"; exit 1; }
mac_a=$(ip -n "$NA" -o link show "va$$" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')

# -s 1024 on a 1500-byte link: path MTU 1024, every WRITE is one WRITE ONLY.
# The server's region is two 4096-byte halves (perftest's buffer for one QP
# of 1024 bytes: a page-sized cycle buffer, twice); it advertises the
# second, where the client writes; the spoofed frames aim 4096 bytes
# lower, at the first, which nobody writes.
truncate -s 8192 "$TMP/buf"
# the crafter first: a Python start on a busy machine can outlast a run;
# it opens its socket, says so, then reads the QP's fields from the FIFO
mkfifo "$TMP/fields"
ip netns exec "$NB" timeout -k 5 90 python3 "$S/tests/interop/garbage.py" --iface "vb$$" \
	--dst-mac "$mac_a" --make-template - --kinds spoofed_src --count 200 --gap-ms 0 \
	--spoof-ip 10.231.9.3 --va-add -4096 --ready "$TMP/ready" \
	<"$TMP/fields" >"$TMP/g.json" 2>"$TMP/g.err" &
gp=$!
pids+=("$gp")
exec 3>"$TMP/fields"
for _ in $(seq 300); do
	[ -e "$TMP/ready" ] || ! kill -0 "$gp" 2>/dev/null && break
	sleep 0.1
done
# -D 10: time enough for the crafter's frames, whatever the machine's load;
# -u 20 (ACK timeout -k 5 4 s): a busy machine (a sanitizer build, other jobs)
# can hold an ACK past the default 67 ms for long enough to exhaust the
# retries
ip netns exec "$NA" timeout -k 5 120 "$PERF" write_bw --netdev "va$$" --timeout 30 -s 1024 \
	-D 10 -u 20 --check --counters --mmap="$TMP/buf" >"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
ip netns exec "$NB" timeout -k 5 120 "$PERF" write_bw --netdev "vb$$" --timeout 30 -s 1024 \
	-D 10 -u 20 --check 10.231.9.1 >"$TMP/cli" 2>&1 &
cp=$!
pids+=("$cp")
# the server's "local address" (its QPN, R_Key, VA) and "remote address"
# (the client's first PSN) lines; its table header comes once its QP is
# connected (RTR and on: a frame before would be a drop_qp_state)
for _ in $(seq 300); do
	grep -q '#bytes' "$TMP/srv" && break
	sleep 0.1
done
hex() { sed -n "s/.*$1 address:.* $2 \(0x[0-9a-f]*\).*/\1/p" "$TMP/srv"; }
qpn=$(hex local QPN) rkey=$(hex local RKey) va=$(hex local VAddr) psn=$(hex remote PSN)
# the template carries PSN - 1: the spoofed frames take the next ones
[ -n "$psn" ] && psn=$(( (psn + 0xFFFFFF) & 0xFFFFFF ))
echo "10.231.9.2,10.231.9.1,$qpn,$psn,$va,$rkey,1024" >&3
exec 3>&-
wait "$gp"; grc=$?
kill -0 "$cp" 2>/dev/null || fail "the crafter finished after the run had ended: nothing is proven"
wait "$cp"; crc=$?
wait "$sp"; src=$?

[ $crc -eq 0 ] && [ $src -eq 0 ] || fail "write_bw: client rc=$crc, server rc=$src"
grep -q 'content check: passed' "$TMP/srv" || fail "the server's content check did not pass"
[ $grc -eq 0 ] || fail "the crafter: rc=$grc $(tail -n1 "$TMP/g.err")"
sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"].get("spoofed_src", 0))' \
	"$TMP/g.json" 2>/dev/null || echo 0)
tpl=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["template"]; print(t["opcode"], t["src_ip"])' \
	"$TMP/g.json" 2>/dev/null)
[ "$tpl" = "10 10.231.9.2" ] || fail "the template is not a WRITE ONLY from the client's address: '$tpl'"
got=$(awk '$1 == "drop_src_addr" { print $2 }' "$TMP/srv")
[ "$sent" = 200 ] || fail "the crafter sent $sent frames, not 200"
# every spoofed frame is a drop_src_addr: none executed, ACKed or lost
[ "${got:-0}" = "$sent" ] ||
	fail "the server counted ${got:-0} drop_src_addr for $sent spoofed frames"
if cmp -s <(head -c 4096 /dev/zero) <(head -c 4096 "$TMP/buf"); then :; else
	fail "spoofed bytes in the server's buffer: $(head -c 4096 "$TMP/buf" | od -An -tx1 | head -n2)"
fi
if [ $fails -ne 0 ]; then
	sed 's/^/  client| /' "$TMP/cli" | tail -15; sed 's/^/  server| /' "$TMP/srv" | tail -25
	echo "spoof_veth: $fails failure(s)"
	exit 1
fi
echo "ok   spoofed WRITEs: $sent sent, $got dropped as drop_src_addr, buffer untouched, content check passed"
