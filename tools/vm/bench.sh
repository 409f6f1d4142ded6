#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - trace overhead and trace record throughput, in the VM, on each
# kernel: job latency with tracing off, at level 1 and at level 2 (as
# ratios), and the highest record rate the driver delivers to a reader
# without loss. A benchmark, not a test: it prints figures.
#
#   tools/vm/bench.sh [NPU-TRACE-BENCH-OPTIONS]
#
# Needs npu.ko (make modules), build/bin/npu-emu and build/bin/npu-trace-bench.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
rc=0
for k in $("$ROOT/scripts/kernels.sh"); do
	echo "=== npu-trace-bench on $k"
	"$HERE/npu-vm" --kernel "$k" -- npu-trace-bench "$@" || rc=1
done
exit $rc
