#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh - run the test suites and print their totals
#
# Usage: scripts/check.sh host|vm|all
#
#   host  runs every executable in BUILD/tests/ on the host, from the
#         repository root, with NPU_BUILD and NPU_SRC set;
#   vm    for each kernel printed by scripts/kernels.sh (or $NPU_KERNELS),
#         boots one npu-vm guest and runs every executable in
#         BUILD/vmtests/ in it (the guest boots even when there is none,
#         which checks boot, npu.ko insertion and binding); a test T that
#         has a file T.npu-vm next to it runs in a guest of its own, started
#         with the npu-vm/npu-emu options in that file (e.g. "--stall-pe 1"),
#         shared with the other tests whose files hold the same options;
#         a guest that fails before its first suite begins (status 125:
#         no boot, QEMU or npu-emu did not start) is started once more;
#   all   both.
# The output of every suite is shown and kept in BUILD/check/*.log; the last
# line printed is "N passed, N failed" over all of them (scripts/totals.sh).
# Exits 1 if anything failed. Runs in one build directory take turns (a
# lock on BUILD/check/.lock).
#
# Environment: BUILD (default <repo>/build); NPU_BUILD_STATUS (exit status
# of the build that preceded, counted as one failure if not 0); NPU_KERNELS
# (space-separated versions or series); NPU_VM_TIMEOUT (seconds per guest,
# default 2400); NPU_TEST_TIMEOUT (seconds per suite, default 900); both
# are multiplied by 4 on the debug kernel (scripts/debug-kernel.sh:
# KASAN, lockdep and kmemleak under TCG are that much slower);
# NPU_VM_ARGS (extra npu-vm options).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BUILD=$(mkdir -p "$BUILD" && cd "$BUILD" && pwd)
LOGDIR=$BUILD/check
VM_TIMEOUT=${NPU_VM_TIMEOUT:-2400}
TEST_TIMEOUT=${NPU_TEST_TIMEOUT:-900}
DEBUG_KVER=$("$ROOT/scripts/kernels.sh" --debug)
what=${1:-all}

case "$what" in
host|vm|all) ;;
-h|--help) sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "check.sh: unknown argument $what (host, vm or all)" >&2; exit 2 ;;
esac

mkdir -p "$LOGDIR"
# One run at a time per build directory: a second would delete the first's
# logs and count its suites in its own totals. It waits for the first.
exec 9>"$LOGDIR/.lock"
if ! flock -n 9; then
	echo "check.sh: another check is running in $BUILD; waiting for it (a run of your own: BUILD=DIR)"
	flock 9
fi
rm -f "$LOGDIR"/*.log "$LOGDIR"/*.log.try1
logs=()

run_host() {
	local log=$LOGDIR/host.log
	logs+=("$log")
	echo "=== host suites ($BUILD/tests)"
	if [[ ! -d "$BUILD/tests" ]]; then
		echo "check.sh: no host tests in $BUILD/tests"
		: >"$log"
		return
	fi
	(cd "$ROOT" && NPU_BUILD=$BUILD NPU_SRC=$ROOT \
		"$ROOT/tools/vm/run-suites" --timeout "$TEST_TIMEOUT" --prefix host "$BUILD/tests") 2>&1 |
		tee "$log"
}

run_vm() {
	local kernels k ver log st t0 t1
	read -r -a kernels <<<"${NPU_KERNELS:-}"
	if [[ ${#kernels[@]} -eq 0 ]]; then
		mapfile -t kernels < <("$ROOT/scripts/kernels.sh")
	fi
	if [[ ${#kernels[@]} -eq 0 ]]; then
		echo "check.sh: no kernels to test (scripts/kernels.sh found none)"
		log=$LOGDIR/vm.log
		logs+=("$log")
		echo "# harness-end: npu-vm 125" >"$log"
		return
	fi
	for k in "${kernels[@]}"; do
		ver=$("$ROOT/scripts/kernels.sh" "$k") || ver=$k
		if [[ -d "$BUILD/vmtests" ]]; then
			vm_run "$ver" "$LOGDIR/vm-$ver.log" "" --skip-with-args "$BUILD/vmtests"
		else
			vm_run "$ver" "$LOGDIR/vm-$ver.log" ""
		fi
		vm_groups "$ver"
	done
}

# The suites with a T.npu-vm file, one guest for each set of options: the
# suites whose files hold the same options share a guest and run in it one
# after the other, as the others share the first guest (a boot of the
# debug kernel under TCG takes minutes).
vm_groups() {
	local ver=$1 args o name t
	local -A group=()
	local order=() ts=()

	for args in "$BUILD"/vmtests/*.npu-vm; do
		[[ -f "$args" && -x "${args%.npu-vm}" ]] || continue
		o="x$(<"$args")"	# a key, even for an empty file
		[[ -v "group[$o]" ]] || order+=("$o")
		group[$o]+="${args%.npu-vm} "
	done
	for o in "${order[@]}"; do
		read -r -a ts <<<"${group[$o]}"
		name=
		for t in "${ts[@]}"; do
			name+="${name:++}${t##*/}"
		done
		vm_run "$ver" "$LOGDIR/vm-$ver-$name.log" "${o#x}" "${ts[@]}"
	done
}

# vm_run VERSION LOG "NPU-VM OPTIONS" RUN-SUITES-ARGS...
vm_run() {
	local ver=$1 log=$2 opts=$3 st t0 t1 try vm_to=$VM_TIMEOUT test_to=$TEST_TIMEOUT
	shift 3
	if [[ -n "$DEBUG_KVER" && "$ver" == "$DEBUG_KVER" ]]; then
		vm_to=$((VM_TIMEOUT * 4))
		test_to=$((TEST_TIMEOUT * 4))
	fi
	logs+=("$log")
	echo "=== VM suites on $ver: $*${opts:+ (npu-vm $opts)}"
	t0=$(date +%s)
	for try in 1 2; do
		# shellcheck disable=SC2086
		"$ROOT/tools/vm/npu-vm" --build "$BUILD" --kernel "$ver" \
			--timeout "$vm_to" ${NPU_VM_ARGS:-} $opts -- \
			npu-run-suites --timeout "$test_to" --prefix "$ver" "$@" 2>&1 |
			tee "$log"
		st=${PIPESTATUS[0]}
		# A harness failure before the first suite began (the guest did
		# not boot, QEMU or the emulator did not start) ran no test: it
		# is retried once, and kept in LOG.try1. A failure once a suite
		# began, or a second one, counts.
		[[ $try -eq 1 && $st -eq 125 ]] && ! grep -q '^# suite-begin: ' "$log" ||
			break
		mv "$log" "$log.try1"
		echo "=== npu-vm on $ver: harness failure before any suite (status 125; $log.try1); once more"
	done
	t1=$(date +%s)
	echo "# harness-end: npu-vm:$ver $st" >>"$log"
	echo "=== npu-vm on $ver: exit status $st, $((t1 - t0)) s (boot and tests)"
}

# A failed build (make all, run by the Makefile) counts as one failure.
if [[ "${NPU_BUILD_STATUS:-0}" != 0 ]]; then
	echo "=== the build failed (status $NPU_BUILD_STATUS): testing what was built"
	echo "# failure: build (make all exited with status $NPU_BUILD_STATUS)" >"$LOGDIR/build.log"
	logs+=("$LOGDIR/build.log")
fi

case "$what" in
host) run_host ;;
vm) run_vm ;;
all) run_host; run_vm ;;
esac

echo "=== totals"
"$ROOT/scripts/totals.sh" "${logs[@]}"
