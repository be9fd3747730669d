#!/usr/bin/env bash
# roce-demo --virtual-time and --trace: two runs of the seed's flow on the
# virtual clock, with faults on the link, give the same report and the
# same transaction trace byte for byte; the trace holds both NICs' records
# of every kind a verbs context writes; the figures say they are virtual;
# a real-time trace is written too; bad combinations are usage errors.
set -euo pipefail
build=$1
demo=$build/tools/roce-demo
replay=$build/tools/roce-replay
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

args=(--quick --iters 20 --size 64K --virtual-time --loss 2 --reorder 2 --duplicate 1 --corrupt 1 --seed 9)
"$demo" "${args[@]}" --trace t1 > o1 || fail "first run: $(tail -3 o1)"
"$demo" "${args[@]}" --trace t2 > o2 || fail "second run: $(tail -3 o2)"
cmp -s t1 t2 || fail "two virtual-time runs wrote different traces"
diff <(grep -v 'trace into' o1) <(grep -v 'trace into' o2) > /dev/null || fail "two runs printed different reports"
grep -q 'Recovery: [1-9]' o1 || fail "the faults caused no recovery: $(grep -i recovery o1)"
grep -q 'in VIRTUAL time' o1 || fail "bandwidth not labelled as virtual time"
grep -q '^Virtual time: one clock' o1 || fail "no virtual-time banner"
"$replay" --compare t1 t2 > out || fail "compare: $(cat out)"
for nic in 0 1; do
  for k in wr rd fin fout dmawr dmard cqe; do
    grep -q "^[0-9]* $nic $k " t1 || fail "no $k record of NIC $nic"
  done
done
# times never go back, per NIC
awk '$1 !~ /^#/ { if ($1 < last[$2]) { print "line " NR; exit 1 } last[$2] = $1 }' t1 > out \
  || fail "time goes back at $(cat out)"
# another seed, another run
"$demo" "${args[@]/9/10}" --trace t3 > o3 || fail "seed 10 run"
cmp -s t1 t3 && fail "the seed made no difference"
"$demo" --quick --iters 20 --size 64K --virtual-time --json > j || fail "json run"
grep -q '"time":"virtual"' j || fail "JSON does not say virtual time"
# real time: the trace is written too
"$demo" --quick --iters 20 --size 64K --trace rt > o4 || fail "real-time run"
grep -q '^[0-9]* 1 cqe ' rt || fail "real-time trace lacks B's completions"
# usage errors
set +e
"$demo" --virtual-time --threads > out 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "--virtual-time --threads exited $rc"
grep -q 'not with --threads' out || fail "message: $(cat out)"
set +e
"$demo" --trace "$tmp/no/such/dir/t" > out 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "unwritable trace exited $rc"
"$demo" --help | grep -q -- '--virtual-time' || fail "--help lacks --virtual-time"
echo "demo_virtual_time: ok"
