#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - what the eBPF host probes cost an application: inference
# latency with npu-classify under `npuprof record --bpf` (USDT probes, and
# the uprobe fallback) against no profiling and against the library's own
# capture (`npuprof record`, NPUPROF_OUTPUT_PATH), in the VM. A benchmark,
# not a test: it prints figures.
#
#   tools/bpf/bench.sh [-m MODEL] [-n COUNT] [-r REPEAT] [-- NPU-VM-OPTIONS]
#
# Each of REPEAT rounds (default 7) runs npu-classify once per
# configuration with COUNT inferences (default 50) of MODEL (default mnist,
# whose short inferences show a per-span cost best) and takes their mean
# latency from npu-classify's own figures; the order of the configurations
# rotates from round to round, so that neither a slow period of the host
# nor a position in the round favours one. The table shows the median over
# the rounds and its ratio to profiling off; "paired", the median over the
# rounds of a run's mean divided by the mean of the round's "off" run,
# with a 95 % interval from resampling the rounds (as overhead.sh pairs
# its p50s: the host's drift between rounds cancels); and the size of the
# last run's trace. The guest has one vCPU (as the npu_bpf suite: probes patch
# kernel text, see Documentation/npu/bpf.rst). Under QEMU TCG the figures
# are noisy: compare ratios, not absolute times. The mean's ratio shrinks
# as COUNT grows (a run's first inferences pay for the session's start);
# tools/npuprof-bench/overhead.sh measures library capture per level
# (Documentation/npu/overhead.rst); both run the guest through
# tools/vm/bench-guest.sh.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PROG=bench.sh
HELP_LINES=3,28
MODEL=mnist
COUNT=50
ROUNDS=7
# shellcheck source=tools/vm/bench-guest.sh
. "$ROOT/tools/vm/bench-guest.sh"

bench_parse "$@"
bench_need "$BUILD/bin/npuprof" "$BUILD/bin/npu-classify" \
	"$BUILD/models/$MODEL.nmdl"

# shellcheck disable=SC2016 # guest shell code
out=$(bench_run "off lib usdt uprobes" '
	off) npu-classify -m $M -n $N -q ;;
	lib) npuprof record -q -o /tmp/lib.npuprof -- npu-classify -m $M -n $N -q ;;
	usdt) npuprof record --bpf -q -o /tmp/usdt.npuprof -- npu-classify -m $M -n $N -q ;;
	uprobes) npuprof record --bpf --uprobes -q -o /tmp/uprobes.npuprof -- npu-classify -m $M -n $N -q ;;' '
for c in lib usdt uprobes; do
	echo "size $c $(wc -c </tmp/$c.npuprof)"
done')
echo "eBPF probe overhead: $MODEL, $COUNT inferences per run, median of $ROUNDS runs (npu-classify mean latency), $(bench_guest)"
echo "$out" | awk "$BENCH_AWK"'
$1 == "size" { size[$2] = $3; next }
END {
	if (!cnt["off"]) { print "bench.sh: no figures from the VM"; exit 1 }
	base = median("off", 1)
	printf "%-24s %12s %8s %12s  %s\n", "capture", "latency ms", "ratio", "file bytes", "paired (95% interval)"
	printf "%-24s %12.3f %8.3f %12s\n", "off", base, 1, "-"
	name["lib"] = "library (env variable)"
	name["usdt"] = "--bpf, USDT probes"
	name["uprobes"] = "--bpf --uprobes"
	n = split("lib usdt uprobes", order, " ")
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!cnt[c]) continue
		m = median(c, 1)
		printf "%-24s %12.3f %8.3f %12d", name[c], m, m / base, size[c]
		if (paired(c, "off", 1))
			printf "  %.3f (%.3f-%.3f)", md, ci_lo, ci_hi
		printf "\n"
	}
}'
