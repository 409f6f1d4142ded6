# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# bench-guest.sh - the guest side that the inference-latency benchmarks
# share (tools/bpf/bench.sh, tools/npuprof-bench/overhead.sh): their
# options, one guest (tools/vm/npu-vm, one vCPU) that runs npu-classify in
# rounds of configurations whose order rotates from round to round, and the
# median over the rounds. Sourced, not run; it defines functions and sets
# nothing until they are called.
#
# The caller sets PROG (its name for messages), MODEL, COUNT and ROUNDS
# (its defaults), HELP_LINES (the lines of its header comment that --help
# prints) and BUILD, then:
#
#   bench_parse "$@"          -m MODEL -n COUNT -r ROUNDS [-- NPU-VM-OPTIONS]
#                             into MODEL, COUNT, ROUNDS and VM_ARGS
#   bench_need FILE...        exit 1 when a file of the build is missing
#   bench_run CONFIGS CASES [EPILOGUE]
#                             run ROUNDS rounds of the space-separated
#                             CONFIGS in the guest and print one line
#                             "CONFIG MEAN P50 MIN" (ms, npu-classify's
#                             figures) per run; CASES is the body of a
#                             busybox sh "case $1 in ... esac" that runs
#                             npu-classify for configuration $1 with "$M"
#                             (the model's path) and "$N" (COUNT); EPILOGUE,
#                             guest shell code run after the rounds, may
#                             print lines of its own
#   $BENCH_AWK                awk code for the host's table: it reads those
#                             lines into cnt[CONFIG] and v[CONFIG, K, I]
#                             (K 1 mean, 2 p50, 3 min; I the run) and
#                             defines median(CONFIG, K), median_ci(A, N)
#                             (the median of A[1..N] into md, its 95 %
#                             interval into ci_lo and ci_hi, as below), and
#                             paired(CONFIG, BASE, K), which pairs the runs
#                             of each round: it sets md to the median
#                             over the rounds of CONFIG's figure divided by
#                             BASE's, and ci_lo and ci_hi to a 95 % interval
#                             of it, the 2.5th and 97.5th percentiles over
#                             1000 resamples of the rounds with replacement
#                             (seeded: a table reproduces); it returns 0,
#                             and sets nothing, unless both have a figure
#                             in every round
#   bench_guest               the guest's options, for the table's title
#
# The guest has one vCPU, so that whatever a configuration adds (the
# session's threads, a probe's handler) competes with the application for
# the CPU, as on a loaded machine; NPU-VM-OPTIONS come after --smp 1 and
# may override it. Its clocksource is then the TSC; with two vCPUs QEMU's
# TCG leaves the TSCs unsynchronized and the 6.1 kernel (npu-vm's default)
# falls back to the HPET, whose reads are exits to QEMU
# (Documentation/npu/overhead.rst, "The clock").

# Print the caller's help (HELP_LINES of its header comment).
bench_help() {
	sed -n "${HELP_LINES}p" "$0" | sed 's/^# \{0,1\}//'
}

bench_parse() {
	VM_ARGS=()
	while [ $# -gt 0 ]; do
		case "$1" in
		-m|-n|-r)
			[ $# -ge 2 ] || { echo "$PROG: option $1 needs a value" >&2; exit 2; }
			case "$1" in
			-m) MODEL=$2 ;;
			-n) COUNT=$2 ;;
			-r) ROUNDS=$2 ;;
			esac
			shift 2 ;;
		--) shift; VM_ARGS=("$@"); break ;;
		-h|--help) bench_help; exit 0 ;;
		*) echo "$PROG: unknown option $1" >&2; exit 2 ;;
		esac
	done
	case "$COUNT" in
	*[!0-9]*|''|0) echo "$PROG: -n takes a positive number" >&2; exit 2 ;;
	esac
	case "$ROUNDS" in
	*[!0-9]*|''|0) echo "$PROG: -r takes a positive number" >&2; exit 2 ;;
	esac
	case "$MODEL" in
	*[!A-Za-z0-9_.-]*|''|.*) echo "$PROG: bad model name '$MODEL'" >&2; exit 2 ;;
	esac
}

bench_need() {
	local f

	for f in "$@"; do
		[ -e "$f" ] || { echo "$PROG: $f missing; run make first" >&2; exit 1; }
	done
}

# The guest script: a warm-up run, then ROUNDS rounds of CONFIGS, the
# configuration at position i of round r being CONFIGS[(i + r) % n].
bench_script() {
	local configs=$1 cases=$2 epilogue=${3:-}

	cat <<EOS
M=\$NPU_BUILD/models/$MODEL.nmdl
N=$COUNT
lat() {
	awk '/^inferences/ { for (i = 1; i <= NF; i++) {
		if (\$i == "avg") a = \$(i + 1)
		if (\$i == "p50") p = \$(i + 1)
		if (\$i == "min") m = \$(i + 1) }
		print a, p, m }'
}
one() {
	case \$1 in
$cases
	esac
}
npu-classify -m \$M -n 10 -q >/dev/null	# warm up
set -- $configs
r=0
while [ \$r -lt $ROUNDS ]; do
	i=0
	while [ \$i -lt \$# ]; do
		k=\$(( (i + r) % \$# + 1 ))
		eval c=\\\${\$k}
		echo "\$c \$(one \$c | lat)"
		i=\$((i + 1))
	done
	r=\$((r + 1))
done
$epilogue
EOS
}

# The guest, for the table's title: "npu-vm --smp 1" and NPU-VM-OPTIONS.
bench_guest() {
	echo "guest: npu-vm --smp 1${VM_ARGS[*]:+ ${VM_ARGS[*]}}"
}

bench_run() {
	"$ROOT/tools/vm/npu-vm" --build "$BUILD" --smp 1 "${VM_ARGS[@]}" -- \
		"$(bench_script "$@")"
}

# shellcheck disable=SC2016,SC2034 # awk code for the callers, expanded by awk
BENCH_AWK='
function median(cfg, col,    n, i, a) {
	n = cnt[cfg]
	for (i = 1; i <= n; i++) a[i] = v[cfg, col, i]
	return median_of(a, n)
}
# The median of a[1..n], which it sorts.
function median_of(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# The median of a[1..n] into md, and a 95 % interval of it into ci_lo and
# ci_hi: the 2.5th and 97.5th percentiles of the median of 1000 resamples
# of a with replacement (seeded: a table reproduces). a is left as it was.
function median_ci(a, n,    b, i, x, m) {
	srand(1)
	for (b = 1; b <= 1000; b++) {
		for (i = 1; i <= n; i++) x[i] = a[int(rand() * n) + 1]
		m[b] = median_of(x, n)
	}
	median_of(m, 1000)
	ci_lo = m[25]; ci_hi = m[975]
	for (i = 1; i <= n; i++) x[i] = a[i]
	md = median_of(x, n)
}
function paired(cfg, base, col,    n, i, r) {
	n = cnt[cfg]
	if (!n || n != cnt[base]) return 0
	for (i = 1; i <= n; i++) {
		if (v[base, col, i] <= 0) return 0
		r[i] = v[cfg, col, i] / v[base, col, i]
	}
	median_ci(r, n)
	return 1
}
NF == 4 && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ {
	cnt[$1]++
	for (k = 1; k <= 3; k++) v[$1, k, cnt[$1]] = $(k + 1)
	next
}
'
