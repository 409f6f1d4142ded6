#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - run the benchmark scripts of the components
#
# Usage: scripts/bench.sh   (run by `make bench`, after `make all`)
#
# Runs every executable tools/*/bench and tools/*/bench.sh from the
# repository root with BUILD (absolute build directory) and ROOT in the
# environment, and NPU_BUILD=BUILD so that the guests of tools/vm/npu-vm
# run what was built there (npu-trace-bench, among others). A benchmark
# writes its results on standard output (and may write files under
# $BUILD/bench/); its output is also kept in BUILD/bench/<tool>.log.
# Exits 1 if any benchmark failed. npu-trace-bench (tools/vm/bench.sh)
# prints the trace cost: job latency and buffer create+free with tracing
# at level 1 against off, as ratios (Documentation/npu/ring.rst, "Cost").

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BUILD=$(mkdir -p "$BUILD" && cd "$BUILD" && pwd)
NPU_BUILD=$BUILD
export ROOT BUILD NPU_BUILD
mkdir -p "$BUILD/bench"

rc=0
n=0
for b in "$ROOT"/tools/*/bench "$ROOT"/tools/*/bench.sh; do
	[[ -f "$b" && -x "$b" ]] || continue
	tool=$(basename "$(dirname "$b")")
	n=$((n + 1))
	echo "=== bench: $tool ($b)"
	(cd "$ROOT" && "$b") 2>&1 | tee "$BUILD/bench/$tool.log"
	st=${PIPESTATUS[0]}
	if [[ $st -ne 0 ]]; then
		echo "=== bench: $tool FAILED (exit status $st)"
		rc=1
	fi
done
[[ $n -gt 0 ]] || echo "bench.sh: no tools/*/bench script yet"
exit $rc
