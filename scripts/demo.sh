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
# Extra npu-vm/npu-emu options may be given in NPU_VM_ARGS, e.g. "--pes 4".

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KERNEL=${NPU_DEMO_KERNEL:-6.1}

[[ -x "$BUILD/bin/npu-info" ]] || { echo "demo.sh: $BUILD/bin/npu-info missing (run make)" >&2; exit 1; }

# shellcheck disable=SC2086
exec "$ROOT/tools/vm/npu-vm" --build "$BUILD" --kernel "$KERNEL" --timeout 600 ${NPU_VM_ARGS:-} -- '
echo "== guest kernel $(uname -r), npu.ko bound to the emulated NPU ($NPU_EMU_PES PEs)"
npu-info --all --ping 100
'
