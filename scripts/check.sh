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
#         which checks boot, npu.ko insertion and binding);
#   all   both.
# The output of every suite is shown and kept in BUILD/check/*.log; the last
# line printed is "N passed, N failed" over all of them (scripts/totals.sh).
# Exits 1 if anything failed.
#
# Environment: BUILD (default <repo>/build), NPU_KERNELS (space-separated
# versions or series), NPU_VM_TIMEOUT (seconds per guest, default 2400),
# NPU_TEST_TIMEOUT (seconds per suite, default 900), NPU_VM_ARGS (extra
# npu-vm options).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BUILD=$(mkdir -p "$BUILD" && cd "$BUILD" && pwd)
LOGDIR=$BUILD/check
VM_TIMEOUT=${NPU_VM_TIMEOUT:-2400}
TEST_TIMEOUT=${NPU_TEST_TIMEOUT:-900}
what=${1:-all}

case "$what" in
host|vm|all) ;;
-h|--help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "check.sh: unknown argument $what (host, vm or all)" >&2; exit 2 ;;
esac

mkdir -p "$LOGDIR"
rm -f "$LOGDIR"/*.log
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
		log=$LOGDIR/vm-$ver.log
		logs+=("$log")
		echo "=== VM suites on $ver ($BUILD/vmtests)"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		"$ROOT/tools/vm/npu-vm" --build "$BUILD" --kernel "$ver" --timeout "$VM_TIMEOUT" \
			${NPU_VM_ARGS:-} -- \
			npu-run-suites --timeout "$TEST_TIMEOUT" --prefix "$ver" "$BUILD/vmtests" 2>&1 |
			tee "$log"
		st=${PIPESTATUS[0]}
		t1=$(date +%s)
		echo "# harness-end: npu-vm:$ver $st" >>"$log"
		echo "=== npu-vm on $ver: exit status $st, $((t1 - t0)) s (boot and tests)"
	done
}

case "$what" in
host) run_host ;;
vm) run_vm ;;
all) run_host; run_vm ;;
esac

echo "=== totals"
"$ROOT/scripts/totals.sh" "${logs[@]}"
