#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# overhead.sh - what library capture costs a small model's inferences, per
# trace level: npu-classify in one guest (tools/vm/npu-vm, one vCPU), in
# interleaved rounds of capture off, level 0, 1 and 2
# (NPUPROF_OUTPUT_PATH, NPUPROF_LEVEL) and host spans alone
# (NPUPROF_DEVICES empty: a session with no device ring). A benchmark, not
# a test: it prints figures (Documentation/npu/overhead.rst).
#
#   tools/npuprof-bench/overhead.sh [-m MODEL] [-n COUNT] [-r ROUNDS]
#                                   [-- NPU-VM-OPTIONS]
#
# Each round runs every configuration once, COUNT inferences (default 200)
# of MODEL (default mnist), in an order that rotates from round to round;
# ROUNDS defaults to 48. npu-classify prints the mean, median and minimum
# latency of its inferences; the table shows, per configuration, the
# median of each over the rounds and its ratio to capture off; "paired"
# is the median over the rounds of a run's p50 divided by the p50 of the
# round's "off" run, with a 95 % interval from resampling the rounds. The
# host's speed drifts by tens of percent over a minute, more than the
# capture costs, and the runs of one round are seconds apart: pairing
# narrows the interval two to three times. The mean carries the rare slow
# inferences (a reader or writer thread that runs on the one vCPU), the
# median and the minimum the cost every inference pays.
# NPU-VM-OPTIONS go to tools/vm/npu-vm after its --smp 1: "-- --smp 2"
# boots two vCPUs, whose clocksource is the HPET on the default 6.1 kernel,
# "-- --smp 2 --append tsc=reliable" two on the TSC, and "-- --append
# clocksource=hpet" one on the HPET (Documentation/npu/overhead.rst,
# "The clock").
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PROG=overhead.sh
HELP_LINES=3,30
MODEL=mnist
COUNT=200
ROUNDS=48
# shellcheck source=tools/vm/bench-guest.sh
. "$ROOT/tools/vm/bench-guest.sh"

bench_parse "$@"
bench_need "$BUILD/bin/npu-classify" "$BUILD/models/$MODEL.nmdl"

# shellcheck disable=SC2016 # guest shell code
out=$(bench_run "off L0 L1 L2 spans" '
	off) npu-classify -m $M -n $N -q ;;
	spans) NPUPROF_OUTPUT_PATH=/tmp/c.npuprof NPUPROF_DEVICES= \
		npu-classify -m $M -n $N -q ;;
	L*) NPUPROF_OUTPUT_PATH=/tmp/c.npuprof NPUPROF_LEVEL=${1#L} \
		npu-classify -m $M -n $N -q ;;')
echo "capture overhead: $MODEL, $COUNT inferences a run, $ROUNDS interleaved rounds, $(bench_guest) (medians over the rounds of npu-classify's figures)"
echo "$out" | awk "$BENCH_AWK"'
END {
	if (!cnt["off"]) { print "overhead.sh: no figures from the VM"; exit 1 }
	for (k = 1; k <= 3; k++) base[k] = median("off", k)
	printf "%-22s %9s %6s %9s %6s %9s %6s  %s\n", "capture", "mean ms", "ratio", "p50 ms", "ratio", "min ms", "ratio", "p50 paired (95% interval)"
	name["off"] = "off"; name["L0"] = "level 0"; name["L1"] = "level 1"
	name["L2"] = "level 2"; name["spans"] = "host spans, no ring"
	n = split("off L0 L1 L2 spans", order, " ")
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!cnt[c]) continue
		printf "%-22s", name[c]
		for (k = 1; k <= 3; k++) printf " %9.3f %6.3f", median(c, k), median(c, k) / base[k]
		if (c != "off" && paired(c, "off", 2))
			printf "  %.3f (%.3f-%.3f)", md, ci_lo, ci_hi
		printf "\n"
	}
}'
