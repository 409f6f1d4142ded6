#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# infer-series.sh - what library capture adds to a small model's
# inferences in one process, over many processes: npuprof-bench-infer run
# RUNS times in one guest (tools/vm/npu-vm, one vCPU), each run in a
# process of its own with host spans alone and levels 0, 1 and 2. A
# benchmark, not a test: it prints figures (Documentation/npu/overhead.rst).
#
#   tools/npuprof-bench/infer-series.sh [-m MODEL] [-n COUNT] [-r RUNS]
#                                       [-- NPU-VM-OPTIONS]
#   tools/npuprof-bench/infer-series.sh --summarize [FILE]
#
# A run of npuprof-bench-infer times the inferences of MODEL (default
# mnist) in blocks of COUNT (default 20) whose session state cycles
# through off, semaphore, on, on, semaphore, off, 60 blocks a level, and
# prints the p50 that "semaphore" (libnpu's spans take their slow path,
# nothing is recorded) and "on" add to "off", and their ratio. One run's
# figure moves by tens of us from one process to the next; the table gives
# per capture and state the median over the RUNS runs (default 20) of the
# p50 added and of the ratio, each with a 95 % interval from resampling the
# runs. --summarize makes the same table from npuprof-bench-infer output
# saved in FILE (or read from standard input) instead of running a guest.
# NPU-VM-OPTIONS go to tools/vm/npu-vm after its --smp 1.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PROG=infer-series.sh
HELP_LINES=3,24
MODEL=mnist
COUNT=20
ROUNDS=20
# shellcheck source=tools/vm/bench-guest.sh
. "$ROOT/tools/vm/bench-guest.sh"

# "level L:" then "  STATE adds p50 X us, ... (p50 ratio R)" lines of each
# run into add[L, STATE, i] and ratio[L, STATE, i]; median_ci() per cell.
summarize() {
	awk "$BENCH_AWK"'
/^infer-series\.sh: / { print > "/dev/stderr"; next }
/^level [^ ]+:/ { lv = $2; sub(/:$/, "", lv); next }
/^ +(on|semaphore) +adds p50 / {
	st = $1; k = lv SUBSEP st
	if (!(k in n)) { n[k] = 0; keys[++nk] = k }
	i = ++n[k]
	add[k, i] = $4 + 0
	r = $0; sub(/.*p50 ratio /, "", r); sub(/\).*/, "", r)
	ratio[k, i] = r + 0
	next
}
END {
	if (!nk) { print "infer-series.sh: no npuprof-bench-infer figures" > "/dev/stderr"; exit 1 }
	printf "%-11s %-10s %5s  %-24s  %s\n", "capture", "state", "runs", "p50 added, us (95% int.)", "p50 ratio (95% interval)"
	for (j = 1; j <= nk; j++) {
		k = keys[j]; split(k, p, SUBSEP)
		cap = p[1] == "spans" ? "host spans" : "level " p[1]
		for (i = 1; i <= n[k]; i++) a[i] = add[k, i]
		median_ci(a, n[k]); m1 = md; l1 = ci_lo; h1 = ci_hi
		for (i = 1; i <= n[k]; i++) a[i] = ratio[k, i]
		median_ci(a, n[k])
		printf "%-11s %-10s %5d  %-24s  %.3f (%.3f-%.3f)\n", cap, p[2], n[k],
		       sprintf("%.1f (%.1f to %.1f)", m1, l1, h1), md, ci_lo, ci_hi
	}
}'
}

if [ "${1:-}" = --summarize ]; then
	[ $# -le 2 ] || { echo "$PROG: --summarize takes at most one FILE" >&2; exit 2; }
	if [ $# -eq 2 ]; then
		[ -r "$2" ] || { echo "$PROG: cannot read $2" >&2; exit 1; }
		summarize <"$2"
	else
		summarize
	fi
	exit
fi

bench_parse "$@"
bench_need "$BUILD/bin/npuprof-bench-infer" "$BUILD/models/$MODEL.nmdl"
echo "capture in one process: $MODEL, $ROUNDS runs of npuprof-bench-infer (60 blocks of $COUNT a level), $(bench_guest)"
"$ROOT/tools/vm/npu-vm" --build "$BUILD" --smp 1 "${VM_ARGS[@]}" -- "
i=0
while [ \$i -lt $ROUNDS ]; do
	npuprof-bench-infer -m \$NPU_BUILD/models/$MODEL.nmdl -n $COUNT -b 60 ||
		echo 'infer-series.sh: npuprof-bench-infer failed'
	i=\$((i + 1))
done" | summarize
