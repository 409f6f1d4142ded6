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
# the rounds and its ratio to profiling off, and the size of the last
# run's trace. The guest has one vCPU (as the npu_bpf suite: probes patch
# kernel text, see Documentation/npu/bpf.rst). Under QEMU TCG the figures
# are noisy: compare ratios, not absolute times. The mean's ratio shrinks
# as COUNT grows (a run's first inferences pay for the session's start);
# tools/npuprof-bench/overhead.sh measures library capture per level
# (Documentation/npu/overhead.rst).
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MODEL=mnist
COUNT=50
REPEAT=7

while [ $# -gt 0 ]; do
	case "$1" in
	-m) MODEL=$2; shift 2 ;;
	-n) COUNT=$2; shift 2 ;;
	-r) REPEAT=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case "$COUNT$REPEAT" in
*[!0-9]*|'') echo "bench.sh: -n and -r take numbers" >&2; exit 2 ;;
esac

for f in "$BUILD/bin/npuprof" "$BUILD/bin/npu-classify" \
	 "$BUILD/models/$MODEL.nmdl"; do
	[ -e "$f" ] || { echo "bench.sh: $f missing; run make first" >&2; exit 1; }
done

# The guest script (busybox sh and awk): "CONFIG MEAN_MS" per run.
GUEST=$(cat <<EOS
set -e
M=\$NPU_BUILD/models/$MODEL.nmdl
lat() { awk '/^inferences/ { for (i = 1; i <= NF; i++) if (\$i == "avg") print \$(i + 1) }'; }
one() {
	case \$1 in
	off) npu-classify -m \$M -n $COUNT -q ;;
	lib) npuprof record -q -o /tmp/lib.npuprof -- npu-classify -m \$M -n $COUNT -q ;;
	usdt) npuprof record --bpf -q -o /tmp/usdt.npuprof -- npu-classify -m \$M -n $COUNT -q ;;
	uprobes) npuprof record --bpf --uprobes -q -o /tmp/uprobes.npuprof -- npu-classify -m \$M -n $COUNT -q ;;
	esac
}
npu-classify -m \$M -n 1 -q >/dev/null	# warm up
r=0
while [ \$r -lt $REPEAT ]; do
	case \$((r % 4)) in
	0) order="off lib usdt uprobes" ;;
	1) order="lib usdt uprobes off" ;;
	2) order="usdt uprobes off lib" ;;
	3) order="uprobes off lib usdt" ;;
	esac
	for c in \$order; do
		echo "\$c \$(one \$c | lat)"
	done
	r=\$((r + 1))
done
for c in lib usdt uprobes; do
	echo "size \$c \$(wc -c </tmp/\$c.npuprof)"
done
EOS
)

out=$("$ROOT/tools/vm/npu-vm" --build "$BUILD" --smp 1 "$@" -- "$GUEST")
echo "eBPF probe overhead: $MODEL, $COUNT inferences per run, median of $REPEAT runs (npu-classify mean latency), one vCPU"
echo "$out" | awk '
function median(cfg,    n, i, j, t, a) {
	n = cnt[cfg]
	for (i = 1; i <= n; i++) a[i] = v[cfg, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "size" { size[$2] = $3; next }
NF == 2 && $2 ~ /^[0-9.]+$/ { cnt[$1]++; v[$1, cnt[$1]] = $2 }
END {
	if (!cnt["off"]) { print "bench.sh: no figures from the VM"; exit 1 }
	base = median("off")
	printf "%-24s %12s %8s %12s\n", "capture", "latency ms", "ratio", "file bytes"
	printf "%-24s %12.3f %8.3f %12s\n", "off", base, 1, "-"
	name["lib"] = "library (env variable)"
	name["usdt"] = "--bpf, USDT probes"
	name["uprobes"] = "--bpf --uprobes"
	n = split("lib usdt uprobes", order, " ")
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!cnt[c]) continue
		m = median(c)
		printf "%-24s %12.3f %8.3f %12d\n", name[c], m, m / base, size[c]
	}
}'
