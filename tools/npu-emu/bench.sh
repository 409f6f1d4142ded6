#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - the emulated NPU's operator throughput on the host, in GMAC/s
# of thread CPU time, including a whole MobileNet-v1 program. A benchmark,
# not a test: it prints figures.
#
#   tools/npu-emu/bench.sh [BENCH-OPS-OPTIONS]     (default: -m)
#
# Needs build/bin/bench-ops (make).
set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
[ -x "$BUILD/bin/bench-ops" ] || { echo "bench.sh: $BUILD/bin/bench-ops missing (run make)" >&2; exit 1; }
[ $# -gt 0 ] || set -- -m
exec "$BUILD/bin/bench-ops" "$@"
