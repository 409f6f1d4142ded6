#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - io_uring job submission (NPU_URING_CMD_SUBMIT) against the
# ioctls (NPU_IOCTL_SUBMIT + NPU_IOCTL_WAIT) for small jobs at queue depth 1
# and 32, in the VM, on each kernel. A benchmark, not a test: it prints
# figures (jobs/s, latency, CPU time and system calls per job, and the
# uring/ioctl ratios); see Documentation/npu/libnpu.rst.
#
#   tools/npu-uring-bench/bench.sh [-n JOBS] [-r ROUNDS] [-k "KERNELS"] [-a CPU|irq]
#       [-- NPU-VM-OPTIONS]
#
# -a pins the benchmark (npu-uring-bench -a): "irq" to the CPU that takes
# the completion interrupt, where the ioctl path runs fastest.
#
# Needs `make` to have built build/bin/npu-uring-bench, npu.ko and npu-emu.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JOBS=500
ROUNDS=11
KERNELS="6.1 6.12"
PIN=

while [ $# -gt 0 ]; do
	case "$1" in
	-n) JOBS=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-k) KERNELS=$2; shift 2 ;;
	-a) PIN="-a $2"; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

[ -x "$ROOT/build/bin/npu-uring-bench" ] ||
	{ echo "bench.sh: build/bin/npu-uring-bench missing; run make first" >&2; exit 1; }

for k in $KERNELS; do
	echo "== kernel $k"
	"$ROOT/tools/vm/npu-vm" --kernel "$k" -t 600 "$@" -- \
		"npu-uring-bench -n $JOBS -r $ROUNDS $PIN 1 32"
done
