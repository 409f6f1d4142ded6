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
# ROUNDS defaults to 12. npu-classify prints the mean, median and minimum
# latency of its inferences; the table shows, per configuration, the
# median of each over the rounds and its ratio to capture off. The mean
# carries the rare slow inferences (a reader or writer thread that runs on
# the one vCPU), the median and the minimum the cost every inference pays.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MODEL=mnist
COUNT=200
ROUNDS=12

while [ $# -gt 0 ]; do
	case "$1" in
	-m) MODEL=$2; shift 2 ;;
	-n) COUNT=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "overhead.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case "$COUNT$ROUNDS" in
*[!0-9]*|'') echo "overhead.sh: -n and -r take numbers" >&2; exit 2 ;;
esac
case "$MODEL" in
*[!A-Za-z0-9_.-]*|'') echo "overhead.sh: bad model name '$MODEL'" >&2; exit 2 ;;
esac
for f in "$BUILD/bin/npu-classify" "$BUILD/models/$MODEL.nmdl"; do
	[ -e "$f" ] || { echo "overhead.sh: $f missing; run make first" >&2; exit 1; }
done

# The guest script (busybox sh and awk): "CONFIG MEAN P50 MIN" per run.
GUEST=$(cat <<EOS
M=\$NPU_BUILD/models/$MODEL.nmdl
lat() {
	awk '/^inferences/ { for (i = 1; i <= NF; i++) {
		if (\$i == "avg") a = \$(i + 1)
		if (\$i == "p50") p = \$(i + 1)
		if (\$i == "min") m = \$(i + 1) }
		print a, p, m }'
}
one() {
	case \$1 in
	off) npu-classify -m \$M -n $COUNT -q ;;
	spans) NPUPROF_OUTPUT_PATH=/tmp/c.npuprof NPUPROF_DEVICES= \
		npu-classify -m \$M -n $COUNT -q ;;
	L*) NPUPROF_OUTPUT_PATH=/tmp/c.npuprof NPUPROF_LEVEL=\${1#L} \
		npu-classify -m \$M -n $COUNT -q ;;
	esac
}
npu-classify -m \$M -n 10 -q >/dev/null	# warm up
set -- off L0 L1 L2 spans
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
EOS
)

out=$("$ROOT/tools/vm/npu-vm" --build "$BUILD" --smp 1 "$@" -- "$GUEST")
echo "capture overhead: $MODEL, $COUNT inferences a run, $ROUNDS interleaved rounds, one vCPU (medians over the rounds of npu-classify's figures)"
echo "$out" | awk '
function median(cfg, col,    n, i, j, t, a) {
	n = cnt[cfg]
	for (i = 1; i <= n; i++) a[i] = v[cfg, col, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NF == 4 && $2 ~ /^[0-9.]+$/ { cnt[$1]++; for (k = 1; k <= 3; k++) v[$1, k, cnt[$1]] = $(k + 1) }
END {
	if (!cnt["off"]) { print "overhead.sh: no figures from the VM"; exit 1 }
	for (k = 1; k <= 3; k++) base[k] = median("off", k)
	printf "%-22s %9s %6s %9s %6s %9s %6s\n", "capture", "mean ms", "ratio", "p50 ms", "ratio", "min ms", "ratio"
	name["off"] = "off"; name["L0"] = "level 0"; name["L1"] = "level 1"
	name["L2"] = "level 2"; name["spans"] = "host spans, no ring"
	n = split("off L0 L1 L2 spans", order, " ")
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!cnt[c]) continue
		printf "%-22s", name[c]
		for (k = 1; k <= 3; k++) printf " %9.3f %6.3f", median(c, k), median(c, k) / base[k]
		printf "\n"
	}
}'
