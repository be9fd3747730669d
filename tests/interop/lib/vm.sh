# shellcheck shell=bash
# Soft-RoCE guests under qemu (TCG), sourced by tests/interop/run.
# A guest is a directory: ctl/ (the 9p share, see guest-init), console.log
# (serial console: kernel log), qemu.log, qemu.pid, qemu.cmd.
#
# The host has no /dev/kvm, so qemu emulates the CPU (TCG); one vCPU per
# guest leaves the second core to our tool. Booting the PVH kernel takes
# 6-10 s; the harness boots each guest once and runs every test in it.

VM_QEMU=${QEMU:-qemu-system-x86_64}
# 1 GiB: the initramfs (about 60 MB with UCX, libfabric and OpenMPI) lives
# in the guest's memory, and an MPI run holds mpirun, orted and a rank
# with UCX's registered buffers in one guest (README: what each needs)
VM_MEM=1024
# VM_SHARE: a directory both guests mount (tag "share": guest-init, guest-rsh)
VM_SHARE=${VM_SHARE:-}

# vm_boot DIR NAME NETNS TAP IP/NN MAC
# Starts qemu in NETNS and returns once the guest reported ready (or failed).
vm_boot() {
	local dir=$1 name=$2 ns=$3 tap=$4 ip=$5 mac=$6 img
	img=$(readlink -f "$IMAGE") || return 1
	rm -rf "$dir"
	mkdir -p "$dir/ctl/jobs"
	local append="console=ttyS0 panic=-1 loglevel=4 mitigations=off"
	append+=" tsc=reliable no_timer_check i8042.noaux i8042.nokbd i8042.nopnp"
	append+=" rni.name=$name rni.ip=$ip"
	local args=(-name "rni-$name" -machine q35 -accel tcg,thread=multi -cpu max
		-smp 1 -m "$VM_MEM" -nodefaults -no-user-config -display none
		-no-reboot -monitor none -serial "file:$dir/console.log"
		-kernel "$img/kernel" -initrd "$img/initrd" -append "$append"
		-netdev "tap,id=wire,ifname=$tap,script=no,downscript=no"
		-device "virtio-net-pci,netdev=wire,mac=$mac"
		-fsdev "local,id=ctl,path=$dir/ctl,security_model=none"
		-device "virtio-9p-pci,fsdev=ctl,mount_tag=ctl")
	[ -z "$VM_SHARE" ] || args+=(-fsdev "local,id=share,path=$VM_SHARE,security_model=none"
		-device "virtio-9p-pci,fsdev=share,mount_tag=share")
	printf '%q ' ip netns exec "$ns" "$VM_QEMU" "${args[@]}" >"$dir/qemu.cmd"
	# ip netns exec execs qemu: $! is qemu's own PID.
	ip netns exec "$ns" "$VM_QEMU" "${args[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	echo $! >"$dir/qemu.pid"
	local t0=$SECONDS
	while :; do
		case "$(cat "$dir/ctl/state" 2>/dev/null)" in
		ready*) break ;;
		failed*) echo "guest $name: $(cat "$dir/ctl/state")" >&2; return 1 ;;
		esac
		if ! vm_alive "$dir"; then
			echo "guest $name: qemu exited before the guest was ready:" >&2
			tail -n 5 "$dir/qemu.log" "$dir/console.log" >&2
			return 1
		fi
		if [ $((SECONDS - t0)) -ge "${VM_BOOT_TIMEOUT:-120}" ]; then
			echo "guest $name: not ready after ${VM_BOOT_TIMEOUT:-120} s" >&2
			tail -n 5 "$dir/console.log" >&2
			return 1
		fi
		sleep 0.2
	done
	echo "boot_s=$((SECONDS - t0)) $(cat "$dir/ctl/state")" >"$dir/boot"
}

vm_alive() {
	local pid
	pid=$(cat "$1/qemu.pid" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# vm_info DIR KEY: a field of the ready line (gid, mac, ip, ...)
vm_info() {
	tr ' ' '\n' <"$1/ctl/state" | sed -n "s/^$2=//p"
}

# vm_submit DIR SCRIPT: queue a job (sh script text), print its ID.
# In the job, $RNI_JOB is /ctl/jobs/ID (for marker files); the job's PID
# is in /tmp/ID.pid inside the guest (vm_kill uses it).
vm_submit() {
	local dir=$1 id seq
	# a counter file, not a variable: callers run this in $(...)
	seq=$(($(cat "$dir/seq" 2>/dev/null || echo 0) + 1))
	echo "$seq" >"$dir/seq"
	id=$(printf 'j%05d' "$seq")
	printf 'RNI_JOB=/ctl/jobs/%s\necho $$ >/tmp/%s.pid\n%s\n' "$id" "$id" "$2" >"$dir/ctl/jobs/.$id"
	mv "$dir/ctl/jobs/.$id" "$dir/ctl/jobs/$id.sh"
	echo "$id"
}

# vm_done DIR ID: has the job finished?
vm_done() { [ -f "$1/ctl/jobs/$2.rc" ]; }

# vm_wait DIR ID SECONDS: wait for a job; its output goes to stdout and its
# exit status is returned (124: still running after SECONDS, 125: guest gone)
vm_wait() {
	local dir=$1 id=$2 limit=$3 t0=$SECONDS
	while ! vm_done "$dir" "$id"; do
		vm_alive "$dir" || { echo "guest died" >&2; return 125; }
		[ $((SECONDS - t0)) -lt "$limit" ] || return 124
		sleep 0.1
	done
	cat "$dir/ctl/jobs/$id.log"
	return "$(cat "$dir/ctl/jobs/$id.rc")"
}

# vm_run DIR SECONDS SCRIPT: submit and wait
vm_run() {
	local id
	id=$(vm_submit "$1" "$3") || return 125
	vm_wait "$1" "$id" "$2"
}

# vm_kill DIR ID: end a job that is still running (by its PID, and every
# process it started, down the tree: busybox's timeout leaves its child
# running when it is killed, and qperf's server forks one per test, each
# holding the listening socket)
vm_kill() {
	vm_done "$1" "$2" && return 0
	vm_run "$1" 10 "p=\$(cat /tmp/$2.pid); for c in \$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p=\$p '{ pp[\$1] = \$4 } END { for (c in pp) for (q = pp[c]; q > 1; q = pp[q]) if (q == p) { print c; break } }'); do kill \$c; done; kill \$p" >/dev/null 2>&1
}

# vm_halt DIR: ask for a poweroff, then end qemu by its PID
vm_halt() {
	local dir=$1 pid i
	pid=$(cat "$dir/qemu.pid" 2>/dev/null) || return 0
	[ -d "$dir/ctl" ] && touch "$dir/ctl/halt"
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null
		sleep 0.5
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	rm -f "$dir/qemu.pid"
	return 0
}
