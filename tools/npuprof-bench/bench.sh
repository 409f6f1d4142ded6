#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - benchmarks of libnpuprof (make bench). On the host:
# - npuprof-bench-host: the cost of a host span with profiling off and on,
#   ring parser and reader throughput, trace-file write and read rates and
#   the drain sustained by one thread, then the sustained figures again
#   with a 4 MiB span buffer (16 times the default);
# - with valgrind, instructions (callgrind) per span with no session,
#   libnpu's hook with its USDT probes idle and with their semaphore
#   raised, and with a session; the drain's instructions a span in
#   npf_spans_drain() and npf_writer_thread() ("drain instructions" lines),
#   then the drain's CPU time a span natively, user and kernel;
# - a host span against an LTTng-UST tracepoint (npuprof-bench-lttng);
# - npuprof-bench-report: the SQLite export of a 1 M and a 10 M event
#   trace, SQLite alone on the same rows and the export/alone ratio (wall
#   and CPU), the summary and the latency breakdown;
# - npuprof-bench-export: the Chrome export and npuprof memory of 1 M and
#   10 M events.
# In the VM: the losses of the library's reader against a parse-only
# reader under the same level-2 flood, per ring size (npuprof-bench-vm),
# and what library capture adds to MNIST's inferences per level
# (overhead.sh, and in one process npuprof-bench-infer, once and over 20
# processes with infer-series.sh). Figures only; no pass/fail.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
HERE_BENCH=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$ROOT/build}
"$BUILD/bin/npuprof-bench-host" "$@"
# the sustained figures again with a 4 MiB buffer (16 times the default):
# what a loaded machine's scheduling costs the default, not the drain's CPU
"$BUILD/bin/npuprof-bench-host" --buf 4096 --sustained 3
# Instructions per span (callgrind: exact, unlike times on a shared
# machine): npuprof.h's hook with no session, libnpu's hook with its USDT
# probes compiled in and nobody attached, and with the probes' semaphore
# raised (a tracer attached) but no session; with a session, the span
# and the drain.
if command -v valgrind >/dev/null; then
	for w in off hook sem on; do
		# "on": the span loop alone, not the session around it
		fn=counted_loop
		[ "$w" = on ] && fn=on_loop
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--toggle-collect=$fn \
			"$BUILD/bin/npuprof-bench-host" --loop "$w" 100000 2>&1 |
			sed -n 's/.*Collected : *//p')
		awk -v w="$w" -v ir="${ir:-0}" 'BEGIN {
			split("off:npuprof.h hook, no session|hook:libnpu hook + USDT probes, nobody attached|sem:libnpu hook, probe semaphore raised, no session|on:npuprof.h hook, a session capturing (clock reads included)", d, "|")
			for (i in d) { split(d[i], kv, ":"); t[kv[1]] = kv[2] }
			printf "span instructions (callgrind): %.1f per span, %s\n", ir / 100000, t[w] }'
	done
	# The drain's instructions a span (--loop drain): the packing into
	# SPANS items (npf_spans_drain) and the writer thread, whose checksum
	# is the table CRC under valgrind (natively PCLMULQDQ or VPCLMULQDQ)
	for fn in npf_spans_drain npf_writer_thread; do
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--toggle-collect=$fn \
			"$BUILD/bin/npuprof-bench-host" --loop drain 200000 2>&1 |
			sed -n 's/.*Collected : *//p')
		awk -v fn="$fn" -v ir="${ir:-0}" 'BEGIN {
			printf "drain instructions (callgrind): %.1f per span in %s\n", ir / 200000, fn }'
	done
	# the same natively: the drain's CPU time a span, user and kernel
	"$BUILD/bin/npuprof-bench-host" --loop drain 5000000
else
	echo "span instructions: valgrind not installed, not counted"
fi
# The same span as an LTTng-UST tracepoint with an active session, in the
# same process as npuprof's, their bursts interleaved (Debian's
# liblttng-ust-dev and lttng-tools; as root, a session daemon of our own
# when none runs)
if [ -x "$BUILD/bin/npuprof-bench-lttng" ] && command -v lttng >/dev/null; then
	lt=$(mktemp -d /tmp/npuprof-bench-lttng.XXXXXX)
	started=
	if ! lttng list >/dev/null 2>&1; then
		lttng-sessiond --daemonize --no-kernel --pidfile="$lt/sessiond.pid" \
			>/dev/null 2>&1 && started=1
	fi
	sess=npuprof-bench-$$
	if lttng create "$sess" --output="$lt/trace" >/dev/null &&
	   lttng enable-event -s "$sess" -u 'npuprof_bench:*' >/dev/null &&
	   lttng start "$sess" >/dev/null; then
		"$BUILD/bin/npuprof-bench-lttng" 1000000 || true
		lttng stop "$sess" >/dev/null || true
	else
		echo "host span vs LTTng-UST: no LTTng session (lttng-sessiond not running?)"
	fi
	lttng destroy "$sess" >/dev/null 2>&1 || true
	if [ -n "$started" ] && [ -s "$lt/sessiond.pid" ]; then
		kill "$(cat "$lt/sessiond.pid")" 2>/dev/null || true
	fi
	rm -rf "$lt"
else
	echo "host span vs LTTng-UST: liblttng-ust-dev or lttng-tools not installed, not measured"
fi
"$BUILD/bin/npuprof-bench-report" "$@"
"$BUILD/bin/npuprof-bench-export" "$@"
# npuprof memory (npuprof_memory()) on a 1 M and a 10 M event trace with
# buffer records (4 a job)
"$BUILD/bin/npuprof-bench-export" --memory "$@"
# -F: each round in a process of its own, as a profiled program runs its
# one session
timeout 1500 "$ROOT/tools/vm/npu-vm" -t 1500 -- npuprof-bench-vm -F
# what library capture costs MNIST's inferences per level, one vCPU
# (Documentation/npu/overhead.rst)
BUILD="$BUILD" timeout 1500 "$HERE_BENCH/overhead.sh"
# the same in one process, capture off and on in interleaved blocks
# (npuprof-bench-infer), with the CPU of the session's threads
timeout 1500 "$ROOT/tools/vm/npu-vm" --build "$BUILD" --smp 1 -t 1500 -- \
	npuprof-bench-infer
# ... and over 20 such processes, whose figures move by tens of us from
# one process to the next: their medians, with 95 % intervals
BUILD="$BUILD" timeout 1500 "$HERE_BENCH/infer-series.sh"
