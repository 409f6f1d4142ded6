#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh - the main job: boot the VM and show the NPU through the driver
#
# Usage: scripts/demo.sh   (run by `make demo`, after `make all`)
#
# Boots the newest 6.1 kernel (NPU_DEMO_KERNEL overrides) in npu-vm with the
# emulated NPU, loads npu.ko, and prints the device information read with
# NPU_IOCTL_GET_INFO plus 100 doorbell-to-interrupt round trips (npu-info).
# When npu-classify and the MobileNet v1 model are built, it then runs 8
# MobileNet inferences on the NPU's two PEs and checks every output bit for
# bit against the host reference (npuref).
# Extra npu-vm/npu-emu options may be given in NPU_VM_ARGS, e.g. "--pes 4".

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KERNEL=${NPU_DEMO_KERNEL:-6.1}

[[ -x "$BUILD/bin/npu-info" ]] || { echo "demo.sh: $BUILD/bin/npu-info missing (run make)" >&2; exit 1; }

# shellcheck disable=SC2016,SC2086
exec "$ROOT/tools/vm/npu-vm" --build "$BUILD" --kernel "$KERNEL" --timeout 900 ${NPU_VM_ARGS:-} -- '
set -e
echo "== guest kernel $(uname -r), npu.ko bound to the emulated NPU ($NPU_EMU_PES PEs)"
npu-info --all --ping 100
model=$NPU_BUILD/models/mobilenet-v1.nmdl
ref=$NPU_BUILD/data/mobilenet-v1.ref
if command -v npu-classify >/dev/null && [ -f "$model" ]; then
	echo
	echo "== MobileNet v1 (int8) on the NPU: 8 inferences, 2 threads, verified against npuref"
	npu-classify -m "$model" -n 8 -j 2 --verify ${ref:+--ref "$ref"}
fi
'
