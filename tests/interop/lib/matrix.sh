# shellcheck shell=bash
# The matrix file (tests/interop/matrix) expanded into runs, sourced by
# tests/interop/run.
#
# matrix_expand FILE TIER: one line per run, sorted by MTU (stable), as
#   id|peer|tool|role|mtu|size|iters|loss|extra
# TIER quick keeps the quick lines; full keeps all. Errors name the line.

MATRIX_TOOLS="rc_pingpong uc_pingpong ud_pingpong srq_pingpong write_bw read_bw send_bw write_lat read_lat send_lat atomic_bw garbage rights rping ucmatose"
# the applications (lib/apps.sh)
MATRIX_TOOLS+=" qperf ucx_perftest fi_pingpong mpi_pingpong rstream iperf3_rs"

matrix_expand() {
	local runs
	# the loop runs in a subshell: its exit status carries the errors
	runs=$(matrix_lines "$@") || return 1
	[ -z "$runs" ] || sort -t'|' -k1,1n -s <<<"$runs" | cut -d'|' -f2-
}

# matrix_lines FILE TIER: MTU|run..., unsorted; status 1 after a bad line
matrix_lines() {
	local file=$1 tier=$2 lineno=0 line name ltier peer tool roles mtus sizes iters loss extra
	local role mtu size err=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		[ -n "${line// /}" ] || continue
		read -r name ltier peer tool roles mtus sizes iters loss extra <<<"$line"
		local where="$file:$lineno"
		if [ -z "$extra" ]; then
			echo "$where: expected 10 columns (use - for no extra flags)" >&2; err=1; continue
		fi
		[ "$extra" = - ] && extra=
		case "$ltier" in quick|full) ;; *) echo "$where: tier '$ltier' is not quick or full" >&2; err=1; continue ;; esac
		case "$peer" in ours|rxe) ;; *) echo "$where: peer '$peer' is not ours or rxe" >&2; err=1; continue ;; esac
		case " $MATRIX_TOOLS " in *" $tool "*) ;; *) echo "$where: unknown tool '$tool'" >&2; err=1; continue ;; esac
		case "$roles" in
		client|server) ;;
		both) roles="client server" ;;
		*) echo "$where: roles '$roles' is not client, server or both" >&2; err=1; continue ;;
		esac
		[ "$peer" = rxe ] && roles=rxe
		# perftest wants at least 5 iterations; rping's -C any count
		local min_iters=5
		[ "$tool" = rping ] || [ "$tool" = ucmatose ] && min_iters=1
		# ucmatose has no counterpart among our tools: Debian's under roce-run
		if [ "$tool" = ucmatose ] && [ "$peer" = ours ] && [[ " $extra " != *" run:debian "* ]]; then
			echo "$where: ucmatose runs only as Debian's (run:debian)" >&2; err=1; continue
		fi
		[[ "$iters" =~ ^[0-9]+$ ]] && [ "$iters" -ge "$min_iters" ] ||
			{ echo "$where: iters '$iters' must be a number >= $min_iters" >&2; err=1; continue; }
		[[ "$loss" =~ ^[0-9]+$ ]] && [ "$loss" -le 100 ] ||
			{ echo "$where: loss '$loss' must be 0..100" >&2; err=1; continue; }
		if [[ " $extra " == *" ours:"* ]] && [ "$peer" != ours ]; then
			echo "$where: ours:FLAG in a group without our tool" >&2; err=1; continue
		fi
		local w
		for w in $extra; do
			case "$w" in
			ce:rx) [ "$peer" = ours ] ||
				{ echo "$where: ce:rx in a group without our tool" >&2; err=1; continue 2; } ;;
			ce:*) echo "$where: '$w': the bridge sets CE on rx only (ce:rx)" >&2; err=1; continue 2 ;;
			cap:partial) ;;
			xfail:?*) ;;   # a known failure and its reason (lib/apps.sh)
			cap:*) echo "$where: '$w': cap:partial is the one capture word" >&2; err=1; continue 2 ;;
			retx:*|vs:*) [ "$peer" = ours ] && [[ "$tool" == *_bw ]] ||
				{ echo "$where: '$w' needs our tool in a *_bw group" >&2; err=1; continue 2; }
				[[ "$w" != retx:* ]] || [[ "${w#retx:}" =~ ^[0-9]+$ ]] ||
				{ echo "$where: '$w': retx:N, N a whole per cent" >&2; err=1; continue 2; } ;;
			esac
		done
		if [[ " $extra " == *" ours:--link=xdp "* ]] && [[ ",$mtus," == *",4096,"* ]]; then
			echo "$where: ours:--link=xdp needs path MTU 1024 (AF_XDP refuses MTU 9000)" >&2
			err=1; continue
		fi
		[ "$tier" = quick ] && [ "$ltier" != quick ] && continue
		for mtu in ${mtus//,/ }; do
			case "$mtu" in 1024|4096) ;; *) echo "$where: MTU '$mtu' is not 1024 or 4096" >&2; err=1; continue ;; esac
			for role in $roles; do
				for size in ${sizes//,/ }; do
					[[ "$size" =~ ^[0-9]+$ ]] && [ "$size" -ge 1 ] ||
						{ echo "$where: size '$size' is not a positive number" >&2; err=1; continue; }
					echo "$mtu|$name.$role.m$mtu.s$size|$peer|$tool|$role|$mtu|$size|$iters|$loss|$extra"
				done
			done
		done
	done <"$file"
	return $err
}
