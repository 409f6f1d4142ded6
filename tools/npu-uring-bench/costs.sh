#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# costs.sh - where a job's time goes, per submission path: runs
# npu-uring-bench -c in the VM while it samples the host's counters of the
# emulator and of QEMU every 50 ms. The benchmark idles a second around
# each run, so each run is a burst of the emulator's interrupt writes; the
# bursts are matched in order to the benchmark's "@@" lines. Prints per
# job, median over the rounds (range in brackets):
#
#   irq     completion interrupts in the guest (MSI-X NPU_MSIX_CPL)
#   gctx    guest context switches (all CPUs)
#   db      QEMU's write() calls: a doorbell (NPU_DB_*) is one, an eventfd
#           write; QEMU's own notifications add up to 0.5 a job at depth 1
#   msix    MSI-X raised by the emulator: its write()s to QEMU's eventfds
#   ewake   emulator wake-ups: its threads' voluntary context switches
#   ecpu    the emulator's host CPU time (all threads' schedstat), us
#   qcpu    QEMU's host CPU time (vCPUs, TCG, main loop), us
#
#   tools/npu-uring-bench/costs.sh [-n JOBS] [-r ROUNDS] [-k KERNEL]
#       [-p PATHS] [-d "DEPTHS"] [-a CPU|irq] [-R DIR] [-- NPU-VM-OPTIONS]
#
# COSTS_KEEP=DIR keeps the raw samples and runs in DIR; -R DIR prints the
# figures of such a DIR again without running anything. -a pins the
# benchmark (npu-uring-bench -a). NPU-VM-OPTIONS
# (e.g. --build DIR, --emu PATH) compare builds.
#
# A measurement tool, not a test. Needs `make` to have built the
# benchmark, npu.ko and npu-emu.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JOBS=2000
ROUNDS=3
KERNEL=6.1
PATHS=ioctl,uring
DEPTHS="1 32"
REPORT=
PIN=

while [ $# -gt 0 ]; do
	case "$1" in
	-n) JOBS=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-k) KERNEL=$2; shift 2 ;;
	-p) PATHS=$2; shift 2 ;;
	-d) DEPTHS=$2; shift 2 ;;
	-R) REPORT=$2; shift 2 ;;
	-a) PIN="-a $2"; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,30p' "$0"; exit 0 ;;
	*) echo "costs.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# every descendant of pid $1
descendants() {
	local kids k
	kids=$(ps -o pid= --ppid "$1" 2>/dev/null || true)
	for k in $kids; do
		echo "$k"
		descendants "$k"
	done
}

# S="CPU_NS SYSCR SYSCW VOLUNTARY_CSW" of process $1, all its threads
sample() {
	local pid=$1 ns=0 cr=0 cw=0 vcs=0 t k v r
	for t in /proc/"$pid"/task/*; do
		read -r r _ <"$t/schedstat" 2>/dev/null && ns=$((ns + r))
		while read -r k v; do
			[ "$k" = voluntary_ctxt_switches: ] && vcs=$((vcs + v))
		done <"$t/status" 2>/dev/null || true
	done
	while read -r k v; do
		case "$k" in
		syscr:) cr=$v ;;
		syscw:) cw=$v ;;
		esac
	done </proc/"$pid"/io 2>/dev/null || true
	S="$ns $cr $cw $vcs"
}

# COSTS_KEEP=DIR keeps the raw samples and runs there; -R DIR reports them
if [ -n "$REPORT" ]; then
	TMP=$REPORT
else
	TMP=${COSTS_KEEP:-$(mktemp -d)}
	mkdir -p "$TMP"
	[ -n "${COSTS_KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
	rm -f "$TMP/samples"
fi

[ -n "$REPORT" ] || {
"$ROOT/tools/vm/npu-vm" --kernel "$KERNEL" -t 900 "$@" -- \
	"npu-uring-bench -c -n $JOBS -r $ROUNDS -p $PATHS $PIN $DEPTHS" >"$TMP/out" &
VM_PID=$!
EMU_PID= QEMU_PID=
while kill -0 "$VM_PID" 2>/dev/null; do
	if [ -z "$QEMU_PID" ]; then
		for p in $(descendants "$VM_PID"); do
			case "$(cat /proc/"$p"/comm 2>/dev/null)" in
			npu-emu) EMU_PID=$p ;;
			qemu-system-x86) QEMU_PID=$p ;;
			esac
		done
	elif [ -d /proc/"$QEMU_PID" ]; then
		sample "$EMU_PID" 2>/dev/null; E=$S
		sample "$QEMU_PID" 2>/dev/null
		echo "$E $S $EPOCHREALTIME" >>"$TMP/samples"
	fi
	sleep 0.05
done
wait "$VM_PID" || { cat "$TMP/out"; echo "costs.sh: npu-vm failed" >&2; exit 1; }
grep -v '^@@ ' "$TMP/out" || true
grep '^@@ ' "$TMP/out" | cut -c4- >"$TMP/runs"
}

echo "== per job, median [range] over $ROUNDS rounds of $JOBS jobs, kernel $KERNEL (host load $(cut -d' ' -f1-3 /proc/loadavg))"
# A burst: samples whose emulator write count moved, split by 0.5 s of none
# (column 9 is the sample's time);
# a run's counters go from the sample before its first move to its last.
awk -v jobs="$JOBS" '
NR == FNR { run[++nr] = $0; next }
# a sample taken while QEMU or the emulator exited reads zeros: skip it
n && ($3 < s[n, 3] || $5 < s[n, 5]) { next }
{
	n++
	for (i = 1; i <= 9; i++) s[n, i] = $i
	if (n > 1 && s[n, 3] != s[n - 1, 3]) {
		if (!open || s[n - 1, 9] - s[last, 9] > 0.5) {
			nb++; first[nb] = n - 1; open = 1
		}
		last = n; end[nb] = n
	}
}
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	# the probe and boot make small bursts first: keep the last nr (a run
	# with merged interrupts may raise only a few dozen)
	big = 0
	for (b = 1; b <= nb; b++)
		if (s[end[b], 3] - s[first[b], 3] >= 5) keep[++big] = b
	if (big < nr) {
		printf "costs.sh: %d bursts for %d runs: no figures\n", big, nr
		exit 1
	}
	off = big - nr
	for (r = 1; r <= nr; r++) {
		split(run[r], f, " ")
		if (f[1] == "warm") continue
		b = keep[off + r]; y = first[b]; z = end[b]
		k = f[1] " " f[2]; j = f[3]
		if (!(k in cnt)) order[++nk] = k
		i = ++cnt[k]
		v["irq", k, i] = f[4] / j
		v["gctx", k, i] = f[5] / j
		v["db", k, i] = (s[z, 7] - s[y, 7]) / j
		v["msix", k, i] = (s[z, 3] - s[y, 3]) / j
		v["ewake", k, i] = (s[z, 4] - s[y, 4]) / j
		v["ecpu", k, i] = (s[z, 1] - s[y, 1]) / 1e3 / j
		v["qcpu", k, i] = (s[z, 5] - s[y, 5]) / 1e3 / j
	}
	split("irq gctx db msix ewake ecpu qcpu", names, " ")
	printf "%-9s", "path"
	for (c = 1; c <= 7; c++) printf " %17s", names[c]
	printf "\n"
	for (o = 1; o <= nk; o++) {
		k = order[o]
		printf "%-9s", k
		for (c = 1; c <= 7; c++) {
			lo = 1e18; hi = -1e18
			for (i = 1; i <= cnt[k]; i++) {
				w[i] = v[names[c], k, i]
				if (w[i] < lo) lo = w[i]
				if (w[i] > hi) hi = w[i]
			}
			fmt = c >= 6 ? "%5.0f [%4.0f-%4.0f]" : "%5.2f [%.2f-%.2f]"
			printf " " fmt, med(w, cnt[k]), lo, hi
		}
		printf "\n"
	}
}' "$TMP/runs" "$TMP/samples"
