#!/usr/bin/env bash
# The transaction trace and roce-replay: a scenario through roce/sim.h
# (tests/helpers/sim_record: WRITE, SEND, READ between two NICs, frames
# dropped by a seeded PRNG) gives the same trace bytes twice, with and
# without loss; roce-replay accepts each NIC's trace and rejects it when
# one frame byte, one register read value or one completion status is
# changed (exit 1, the line named); a malformed line is exit 2 with its
# line number; host-memory DMA records left out of a replay and compared
# as their own stream; --compare and its options; usage errors.
set -euo pipefail
build=$1
rec=$build/tests/helpers/sim_record
replay=$build/tools/roce-replay
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

expect() { # want-rc cmd...
  local want=$1; shift
  set +e; "$@" > out 2>&1; local rc=$?; set -e
  [ $rc -eq "$want" ] || fail "$* exited $rc, want $want: $(head -c 600 out)"
}

# the same scenario twice: byte-identical traces (no wall clock, no thread)
"$rec" a1 b1 || fail "scenario failed"
"$rec" a2 b2 || fail "scenario failed (second run)"
cmp -s a1 a2 && cmp -s b1 b2 || fail "two runs gave different traces"
# ... also with 30 % of the frames dropped on the way
"$rec" la1 lb1 --drop 30 --seed 4 || fail "lossy scenario failed"
"$rec" la2 lb2 --drop 30 --seed 4 || fail "lossy scenario failed (second run)"
cmp -s la1 la2 && cmp -s lb1 lb2 || fail "two lossy runs gave different traces"
grep -q ' adv$' la1 || fail "no retransmission timer fired in the lossy run"
cmp -s a1 la1 && fail "the loss made no difference"
head -1 a1 | grep -qx '# roce-trace 1' || fail "no magic line"
sed -n 2p a1 | grep -qx '0 0 create mac=2000000000a ip=a000001 mem_kib=1024 qp_count=32 link_delay_us=100' \
  || fail "create record: $(sed -n 2p a1)"
for k in wr rd fin fout memwr memrd dmawr dmard post cqe; do
  grep -q "^[0-9]* 0 $k " a1 || fail "no $k record in A's trace"
done
grep -q '^[0-9]* 1 recv qpn=17 wr_id=5 ' b1 || fail "no recv record in B's trace"

# replay accepts every recorded trace
for t in a1 b1 la1 lb1; do
  expect 0 "$replay" "$t"
  grep -q 'every output matches' out || fail "replay $t: $(cat out)"
done

# one byte of the first frame out changed
awk '/ fout /&&!d{n=length($0); c=substr($0,n-9,1); $0=substr($0,1,n-10) (c=="0"?"1":"0") substr($0,n-8); d=1} {print}' la1 > m_frame
line=$(grep -n -m1 ' fout ' la1 | cut -d: -f1)
expect 1 "$replay" m_frame
grep -q "mismatch at m_frame:$line: the model's record differs" out || fail "frame byte: $(head -3 out)"
# the link-ready read's value
sed '0,/ rd addr=24 data=f /s// rd addr=24 data=e /' la1 > m_read
cmp -s la1 m_read && fail "no link-ready read to change"
expect 1 "$replay" m_read
grep -q "data=e resp=0" out || fail "read value: $(head -3 out)"
# a completion's status
sed '0,/ cqe \(.*\) status=0 /s// cqe \1 status=5 /' la1 > m_cqe
expect 1 "$replay" m_cqe
grep -q 'got: .* cqe .* status=0 ' out || fail "completion status: $(head -3 out)"
# a completion the model does not make
{ cat la1; grep ' cqe ' la1 | tail -1 | awk '{$1=$1+1000} {print}'; } > m_more
expect 1 "$replay" m_more
grep -q 'the model did not produce it' out || fail "extra completion: $(head -3 out)"

# malformed lines: exit 2 with the line number
sed '7s/ wr addr=/ wr adr=/' a1 > bad1
expect 2 "$replay" bad1
grep -q 'bad1:7: wr: field 1 must be addr=' out || fail "bad field: $(cat out)"
sed '9s/$/ zz/' a1 > bad2
expect 2 "$replay" bad2
grep -q 'bad2:9: ' out || fail "trailing token: $(cat out)"
awk '/ fout /&&!d{sub(/ len=[0-9]+ /, " len=3 "); d=1} {print}' a1 > bad3
expect 2 "$replay" bad3
grep -q 'len=3 wants 6 hex digits' out || fail "frame length: $(cat out)"
sed '2d' a1 > bad4
expect 2 "$replay" bad4
grep -q "first record must be create" out || fail "no create: $(cat out)"

# --compare: outputs stream by stream
expect 0 "$replay" --compare la1 la2
expect 0 "$replay" --compare la1 la2 --time-tolerance 0
expect 1 "$replay" --compare la1 m_frame
grep -q 'the records differ' out || fail "compare: $(head -3 out)"
expect 0 "$replay" --compare la1 m_frame --skip fout
# the same outputs 5 us later: within a tolerance of 5000 ns, not 4999
awk '/^[0-9]/{$1=$1+5000} {print}' la1 > late
expect 0 "$replay" --compare la1 late
expect 0 "$replay" --compare la1 late --time-tolerance 5000
expect 1 "$replay" --compare la1 late --time-tolerance 4999
grep -q 'times differ by more than the tolerance' out || fail "tolerance: $(head -3 out)"

# host-memory DMA (hdmawr, hdmard: an IOVA through the IOMMU) is the
# host's, not the model's: a replay leaves it out, --compare compares the
# engine's host-memory writes as their own stream
awk '/ dmawr /&&!d{print; print $1 " 0 hdmawr addr=10000000000040 len=4 deadbeef";
  print $1 " 0 hdmard addr=10000000000040 len=4 deadbeef"; d=1; next} {print}' a1 > h1
grep -q ' hdmawr ' h1 || fail "no hdmawr line made"
expect 0 "$replay" h1
grep -q 'every output matches' out || fail "replay with host DMA: $(cat out)"
expect 0 "$replay" --compare h1 h1
expect 1 "$replay" --compare a1 h1
expect 0 "$replay" --compare a1 h1 --skip hdmawr
sed 's/ hdmawr addr=10000000000040 len=4 deadbeef/ hdmawr addr=10000000000040 len=4 deadbeee/' h1 > h2
expect 1 "$replay" --compare h1 h2
grep -q 'the records differ' out || fail "host DMA bytes: $(head -3 out)"
sed 's/ hdmawr addr=10000000000040 len=4 / hdmawr addr=10000000000040 len=5 /' h1 > h3
expect 2 "$replay" h3

# usage
expect 0 "$replay" --help
grep -q '^usage: roce-replay TRACE' out || fail "help"
expect 2 "$replay"
expect 2 "$replay" a1 b1
expect 2 "$replay" --compare a1
expect 2 "$replay" --compare a1 b1 --time-tolerance x
expect 2 "$replay" --compare a1 b1 --skip nosuch
expect 2 "$replay" --bogus a1
expect 2 "$replay" nonexistent
expect 2 "$rec" a b --drop
echo "sim_trace: ok"
