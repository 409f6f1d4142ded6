#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh - the main job: profile MobileNet v1 on the emulated NPU
#
# Usage: scripts/demo.sh   (run by `make demo`, after `make all`)
#
# Boots the newest 6.1 kernel (NPU_DEMO_KERNEL overrides) in npu-vm with the
# emulated NPU and npu.ko, prints the device information read with
# NPU_IOCTL_GET_INFO (npu-info), then runs `npuprof record` around
# npu-classify: MobileNet v1 inferences on the NPU's PEs, every output
# checked bit for bit against the host reference (npuref), traced at
# level 2 (every execution and operator) with the host spans of libnpu.
# The trace comes back to the host through a shared directory
# ($NPU_DEMO_OUT, default build/demo), where npuprof writes a Chrome trace
# (mobilenet.json, with device memory counters), a SQLite database
# (mobilenet.sqlite) and the memory flow (mobilenet-memory.svg), and prints
# the summary, the latency breakdown, each execution's IoWait against its
# overlap with the other PE (the shared DRAM), the operators whose IoWait
# contention raised most (analyze's excess_ns), the slowest operator types
# and layers (by the names and shapes of the model's layer table) and the
# device memory report.
# NPU_DEMO_N sets the number of inferences (default 8); extra
# npu-vm/npu-emu options may be given in NPU_VM_ARGS, e.g. "--pes 4".

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KERNEL=${NPU_DEMO_KERNEL:-6.1}
OUT=${NPU_DEMO_OUT:-$BUILD/demo}
N=${NPU_DEMO_N:-8}
NPUPROF=$BUILD/bin/npuprof

for b in npu-info npuprof; do
	[[ -x "$BUILD/bin/$b" ]] || { echo "demo.sh: $BUILD/bin/$b missing (run make)" >&2; exit 1; }
done
mkdir -p "$OUT"
rm -f "$OUT/mobilenet.npuprof" "$OUT/mobilenet.json" "$OUT/mobilenet.sqlite" \
	"$OUT/mobilenet-memory.svg"

# shellcheck disable=SC2016,SC2086
"$ROOT/tools/vm/npu-vm" --build "$BUILD" --kernel "$KERNEL" --timeout 600 \
	-o "$OUT" ${NPU_VM_ARGS:-} -- '
set -e
echo "== guest kernel $(uname -r), npu.ko bound to the emulated NPU ($NPU_EMU_PES PEs)"
npu-info --all --ping 100
model=$NPU_BUILD/models/mobilenet-v1.nmdl
ref=$NPU_BUILD/data/mobilenet-v1.ref
[ -f "$ref" ] || ref=
echo
echo "== npuprof record: MobileNet v1 (int8), '"$N"' inferences, 2 threads, verified against npuref"
npuprof record -q -o /tmp/mobilenet.npuprof -- \
	npu-classify -m "$model" -n '"$N"' -j 2 --verify ${ref:+--ref "$ref"}
cp /tmp/mobilenet.npuprof /out/mobilenet.npuprof
'

trace=$OUT/mobilenet.npuprof
echo
echo "== on the host: $trace"
"$NPUPROF" export --format chrome -o "$OUT/mobilenet.json" "$trace"
"$NPUPROF" export --format sqlite -o "$OUT/mobilenet.sqlite" "$trace"
"$NPUPROF" export --format memory-svg -o "$OUT/mobilenet-memory.svg" "$trace"
"$NPUPROF" summary "$trace"
echo
"$NPUPROF" analyze --breakdown "$trace"
echo
echo "== NPU IoWait against the other PE's overlap (from mobilenet.sqlite)"
/usr/bin/python3 - "$OUT/mobilenet.sqlite" <<'PY'
import sqlite3, sys

db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT job_id, pe, start_tick, end_tick, iowait_ns "
                  "FROM executions WHERE start_tick < end_tick "
                  "ORDER BY start_tick").fetchall()
print("%8s %3s %14s %26s" % ("job", "PE", "IoWait ns", "overlap, other PE (ticks)"))
alone = []
for job, pe, s, e, io in rows:
    ov = sum(max(0, min(e, e2) - max(s, s2))
             for _, pe2, s2, e2, _ in rows if pe2 != pe)
    if not ov:
        alone.append(io)
    print("%8d %3d %14s %26d" % (job, pe, "{:,}".format(io), ov))
if rows:
    least = min(r[4] for r in rows)
    total = sum(r[4] for r in rows)
    print("least IoWait %s ns (%s); the %d wait %s ns in all, %s ns more "
          "than %d times the least" % ("{:,}".format(least),
          "an execution alone: %s ns" % "{:,}".format(min(alone)) if alone
          else "no execution ran alone", len(rows), "{:,}".format(total),
          "{:,}".format(total - len(rows) * least), len(rows)))
PY
cat <<'MSG'
The two threads' inferences run on the two PEs at once, and the PEs' DMA
shares the DRAM bandwidth (DRAM_BW, by default one PE's DMA_BW: see
Documentation/npu/hw.rst, "Shared DRAM bandwidth"). A transfer that meets
one of the other PE's moves at its share (half, by default), and the extra
time is IoWait where the previous operator's compute does not hide it.
MobileNet is compute-bound: its transfers are short bursts at operator
boundaries, so two executions may overlap for long without their bursts
meeting and wait as one alone does; those whose bursts met wait more, by
an amount that varies from run to run. The breakdown's NPU IoWait is the
IoWait's share of the device time inside each inference's waits
(Documentation/npu/analysis.rst). With NPU_VM_ARGS="--dram-bw 4000" (twice
DMA_BW) both PEs move at full speed and every execution waits as one alone
does; selftests/npu-dram measures the contention exactly, with transfers
that do meet.
MSG
echo
echo "== what contention cost each operator (npuprof analyze -t 5 --type npu --order-by excess)"
echo "excess_ns: IoWait above the same operator's least in the trace, what contention added (0 if no bursts met); contended_ns: IoWait that must lie while the other PE ran"
"$NPUPROF" analyze -t 5 --type npu --order-by excess "$trace"
echo
echo "== the slowest operator types (npuprof analyze -t 8 --aggregate-by type)"
"$NPUPROF" analyze -t 8 --aggregate-by type "$trace"
echo
echo "== the slowest layers, by name (npuprof analyze -t 8 --type npu --aggregate-by layer --wide)"
"$NPUPROF" analyze -t 8 --type npu --aggregate-by layer --wide "$trace"
echo
echo "== device memory (npuprof memory)"
"$NPUPROF" memory "$trace"
cat <<MSG

== files
  $trace          the trace (npuprof dump|report|analyze|diff read it)
  $OUT/mobilenet.json            Chrome trace: open it in the Perfetto UI
      (https://ui.perfetto.dev, "Open trace file"), chrome://tracing ("Load")
      or speedscope (https://www.speedscope.app)
  $OUT/mobilenet.sqlite          SQLite: sqlite3 $OUT/mobilenet.sqlite 'select * from executions'
  $OUT/mobilenet-memory.svg      memory flow (time across, device address down, a
      rectangle per buffer, its owner, size and times as a tooltip): open it in
      a web browser (chromium $OUT/mobilenet-memory.svg, or drag it into a tab)
MSG
