#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - host benchmarks of libnpuprof's hot paths (make bench):
# host span cost with profiling off and on, ring parser and reader
# throughput, trace-file write and read rates. Figures only; no pass/fail.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
exec "$BUILD/bin/npuprof-bench-host" "$@"
