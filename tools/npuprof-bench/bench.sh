#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - benchmarks of libnpuprof (make bench): on the host, the cost of
# a host span with profiling off and on, ring parser and reader throughput,
# trace-file write and read rates (npuprof-bench-host); the SQLite export
# and the summary of a 1 M and a 10 M event trace (npuprof-bench-report); in the VM, the
# losses of the library's reader against a parse-only reader under the same
# level-2 flood, per ring size (npuprof-bench-vm). Figures only; no pass/fail.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
"$BUILD/bin/npuprof-bench-host" "$@"
"$BUILD/bin/npuprof-bench-report" "$@"
"$BUILD/bin/npuprof-bench-export" "$@"
timeout 1500 "$ROOT/tools/vm/npu-vm" -t 1500 -- npuprof-bench-vm
