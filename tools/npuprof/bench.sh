#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - what profiling costs an application: MobileNet latency with
# npu-classify under `npuprof record` at levels 0, 1 and 2, against
# profiling off, in the VM. A benchmark, not a test: it prints figures.
#
#   tools/npuprof/bench.sh [-n COUNT] [-r REPEAT] [-- NPU-VM-OPTIONS]
#
# Each of REPEAT rounds (default 7) runs npu-classify once per
# configuration (off, level 0, 1, 2; interleaved, so that a slow period of
# the host hits all of them) with COUNT inferences (default 4) and takes
# their mean latency from npu-classify's own figures (the profiler's reads
# and writes happen inside them). The table shows the median over the
# rounds and its ratio to profiling off, the size of the last run's trace
# file and the events `npuprof dump` prints from it. Needs `make` (npu.ko, npu-emu, npuprof,
# npu-classify, build/models). Under QEMU TCG the figures are noisy: compare
# ratios, not absolute times.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
COUNT=4
REPEAT=7

while [ $# -gt 0 ]; do
	case "$1" in
	-n) COUNT=$2; shift 2 ;;
	-r) REPEAT=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case "$COUNT$REPEAT" in
*[!0-9]*|'') echo "bench.sh: -n and -r take numbers" >&2; exit 2 ;;
esac

for f in "$BUILD/bin/npuprof" "$BUILD/bin/npu-classify" \
	 "$BUILD/models/mobilenet-v1.nmdl"; do
	[ -e "$f" ] || { echo "bench.sh: $f missing; run make first" >&2; exit 1; }
done

# The guest script (busybox sh and awk). Latencies in ms, one line per run:
# "CONFIG MEAN_MS".
GUEST=$(cat <<EOS
set -e
M=\$NPU_BUILD/models/mobilenet-v1.nmdl
lat() { awk '/^inferences/ { for (i = 1; i <= NF; i++) if (\$i == "avg") print \$(i + 1) }'; }
npu-classify -m \$M -n 1 -q >/dev/null	# warm up
r=0
while [ \$r -lt $REPEAT ]; do
	echo "off \$(npu-classify -m \$M -n $COUNT -q | lat)"
	for l in 0 1 2; do
		echo "L\$l \$(npuprof record -q -l \$l -o /tmp/l\$l.npuprof -- npu-classify -m \$M -n $COUNT -q | lat)"
	done
	r=\$((r + 1))
done
for l in 0 1 2; do
	echo "size L\$l \$(wc -c </tmp/l\$l.npuprof) \$(npuprof dump /tmp/l\$l.npuprof | grep -vc '^#')"
done
EOS
)

out=$("$ROOT/tools/vm/npu-vm" --build "$BUILD" "$@" -- "$GUEST")
echo "npuprof overhead: MobileNet v1, $COUNT inferences per run, median of $REPEAT runs (npu-classify mean latency)"
echo "$out" | awk -v count="$COUNT" '
function median(cfg,    n, i, j, t, a) {
	n = cnt[cfg]
	for (i = 1; i <= n; i++) a[i] = v[cfg, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "size" { size[$2] = $3; lines[$2] = $4; next }
NF == 2 && $2 ~ /^[0-9.]+$/ { cnt[$1]++; v[$1, cnt[$1]] = $2 }
END {
	if (!cnt["off"]) { print "bench.sh: no figures from the VM"; exit 1 }
	base = median("off")
	printf "%-8s %12s %8s %12s %12s\n", "profile", "latency ms", "ratio", "file bytes", "events"
	printf "%-8s %12.3f %8.3f %12s %12s\n", "off", base, 1, "-", "-"
	for (l = 0; l <= 2; l++) {
		c = "L" l
		if (!cnt[c]) continue
		m = median(c)
		printf "%-8s %12.3f %8.3f %12d %12d\n", "level " l, m, m / base, size[c], lines[c]
	}
}'
