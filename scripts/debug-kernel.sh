#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# debug-kernel.sh - build and cache the debug guest kernel (KASAN, lockdep,
# kmemleak, fault injection, UBSAN) that npu-vm boots with --kernel debug
#
# Usage: scripts/debug-kernel.sh [--build] [--jobs N] [--force]
#        scripts/debug-kernel.sh --dir | --release | --key | --config
#
# --build (the default) unpacks Debian's linux-source-6.1 tarball, makes an
# x86_64 allnoconfig, turns on with scripts/config only what the npu-vm
# guest and npu.ko need plus the debug options (the FRAGMENT below), checks
# with "make olddefconfig" that every option asked for survived (else it
# fails, naming the option), and builds the kernel niced (nice -n 19,
# -j$(nproc)) with LOCALVERSION=-npudebug. Nothing is built when the cache
# entry exists already; --force rebuilds it.
#
# The cache lives outside the clone, in
#   $NPU_DEBUG_KERNEL_CACHE (default /var/cache/npu-debug-kernel)/KEY/
# KEY is a hash of the FRAGMENT, the base config and the tarball's identity
# (name, size, modification time), so a machine builds each kernel once.
# An entry is complete when KEY/.complete exists; it holds, as npu-vm and
# the Makefile look for an installed kernel (see scripts/kernels.sh --root):
#   boot/vmlinuz-REL   the bzImage
#   boot/vmlinux-REL   the ELF image, booted through PVH by npu-vm
#   boot/config-REL    the kernel's .config
#   lib/modules/REL/   modules.dep, modules.builtin (9p, virtio are built in)
#   lib/modules/REL/build -> the O= kbuild tree, for "make M=" module builds
#   src/               the kernel source the kbuild tree refers to
# REL is the kernel release (e.g. 6.1.192-npudebug).
#
# --dir, --release, --key and --config print the entry's directory, its
# kernel release, its key and the config fragment; --dir and --release
# exit 1 when the entry is not built.
#
# Environment: NPU_DEBUG_KERNEL_CACHE (cache root), SRC_TARBALL (default
# /usr/src/linux-source-6.1.tar.xz), JOBS (default: nproc), NICE (default 19).

set -euo pipefail

PROG=debug-kernel.sh
CACHE_ROOT=${NPU_DEBUG_KERNEL_CACHE:-/var/cache/npu-debug-kernel}
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${JOBS:-$(nproc)}
NICE=${NICE:-19}
LOCALVERSION=-npudebug
BASE=allnoconfig

# The configuration asked for: "SYMBOL=y", "SYMBOL=n" or "SYMBOL=value".
# Every line is applied with scripts/config and must survive olddefconfig.
# REFCOUNT_FULL is not here: 6.1 has no such option (refcount_t is always
# the checked implementation since 5.5).
FRAGMENT=$(cat <<'EOF'
# machine: 64-bit SMP guest of QEMU TCG, booted through PVH or bzImage
64BIT=y
SMP=y
PREEMPT=y
HYPERVISOR_GUEST=y
PARAVIRT=y
PVH=y
ACPI=y
X86_TSC=y
PRINTK=y
PRINTK_TIME=y
LOG_BUF_SHIFT=21
# machine checks, as Debian has; it also brings lib/genalloc.c
# (GENERIC_ALLOCATOR has no prompt), which npu.ko's device memory uses
X86_MCE=y
GENERIC_ALLOCATOR=y
BUG=y
KALLSYMS=y
KALLSYMS_ALL=y
MULTIUSER=y
FUTEX=y
EPOLL=y
EVENTFD=y
SIGNALFD=y
TIMERFD=y
POSIX_TIMERS=y
FILE_LOCKING=y
SHMEM=y
TMPFS=y
BINFMT_ELF=y
BINFMT_SCRIPT=y
TTY=y
SERIAL_8250=y
SERIAL_8250_CONSOLE=y
DEVMEM=y
DEVPORT=y
PROC_FS=y
PROC_SYSCTL=y
SYSFS=y
DEVTMPFS=y
BLK_DEV_INITRD=y
RD_GZIP=y
RD_XZ=y
UNIX=y
# cgroup v2 with the memory controller (trace_limits: memory.max), PID
# namespaces
CGROUPS=y
MEMCG=y
NAMESPACES=y
PID_NS=y
# modules, loaded and unloaded by the guest's /init and the tests
MODULES=y
MODULE_UNLOAD=y
# the device: PCI with MSI/MSI-X (ivshmem-doorbell, npu.ko), hot-plugged
# through ACPI (QEMU's device_del and device_add)
PCI=y
PCI_MSI=y
HOTPLUG_PCI=y
HOTPLUG_PCI_ACPI=y
# 9p over virtio-pci (npu-vm --out, --share), built in like all the rest
NET=y
INET=y
VIRTIO_MENU=y
VIRTIO_PCI=y
NET_9P=y
NET_9P_VIRTIO=y
NETWORK_FILESYSTEMS=y
9P_FS=y
# virtio-serial: the QEMU monitor port of npu-vm --monitor
VIRTIO_CONSOLE=y
# tracing: tracepoints, tracefs, debugfs; BPF and io_uring system calls
DEBUG_FS=y
FTRACE=y
ENABLE_DEFAULT_TRACERS=y
BPF_SYSCALL=y
IO_URING=y
# the debug options
DEBUG_KERNEL=y
STACKTRACE=y
KASAN=y
KASAN_GENERIC=y
KASAN_INLINE=y
KASAN_VMALLOC=y
PROVE_LOCKING=y
DEBUG_ATOMIC_SLEEP=y
DEBUG_LIST=y
HARDENED_USERCOPY=y
FORTIFY_SOURCE=y
DEBUG_OBJECTS=y
DEBUG_OBJECTS_FREE=y
DEBUG_OBJECTS_TIMERS=y
DEBUG_OBJECTS_WORK=y
DEBUG_OBJECTS_RCU_HEAD=y
DEBUG_KMEMLEAK=y
DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
DEBUG_KMEMLEAK_DEFAULT_OFF=n
DEBUG_KMEMLEAK_AUTO_SCAN=n
FAULT_INJECTION=y
FAILSLAB=y
FAIL_PAGE_ALLOC=y
FAULT_INJECTION_DEBUG_FS=y
UBSAN=y
UBSAN_BOUNDS=y
UBSAN_SHIFT=y
UBSAN_DIV_ZERO=y
UBSAN_BOOL=y
UBSAN_ENUM=y
UBSAN_SANITIZE_ALL=y
EOF
)

usage() { sed -n '4,37p' "$0" | sed 's/^# \{0,1\}//'; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

key() {
	local id
	id=$(stat -L -c '%n %s %Y' "$SRC_TARBALL" 2>/dev/null) ||
		die "$SRC_TARBALL not found (package linux-source-6.1: run scripts/deps.sh)"
	printf '%s\n%s\n%s\n%s\n' "$BASE" "$LOCALVERSION" "$FRAGMENT" "$id" |
		sha256sum | cut -c1-16
}

# allnoconfig, the FRAGMENT, olddefconfig; fail if an option was dropped
configure() {
	local args=() bad=() line sym val

	"${KMAKE[@]}" -s "$BASE"
	while IFS= read -r line; do
		[[ -z "$line" || "$line" == \#* ]] && continue
		sym=${line%%=*}
		val=${line#*=}
		case "$val" in
		y) args+=(--enable "$sym") ;;
		n) args+=(--disable "$sym") ;;
		*) args+=(--set-val "$sym" "$val") ;;
		esac
	done <<<"$FRAGMENT"
	"$DIR/src/scripts/config" --file "$DIR/build/.config" "${args[@]}"
	"${KMAKE[@]}" -s olddefconfig
	# a dependency that was not met drops the option silently: fail instead
	while IFS= read -r line; do
		[[ -z "$line" || "$line" == \#* ]] && continue
		sym=${line%%=*}
		val=${line#*=}
		if [[ $val == n ]]; then
			grep -qx "CONFIG_$sym=[ym]" "$DIR/build/.config" && bad+=("CONFIG_$sym (wanted off)")
		else
			grep -qx "CONFIG_$sym=$val" "$DIR/build/.config" || bad+=("CONFIG_$sym=$val")
		fi
	done <<<"$FRAGMENT"
	[[ ${#bad[@]} -eq 0 ]] || die "olddefconfig dropped: ${bad[*]}"
}

ACTION=build
FORCE=0
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--build) ACTION=build ;;
	--dir) ACTION=dir ;;
	--release) ACTION=release ;;
	--key) ACTION=key ;;
	--config) ACTION=config ;;
	--force) FORCE=1 ;;
	--jobs) [[ $# -ge 2 ]] || die "--jobs needs a value"; JOBS=$2; shift ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done

case "$ACTION" in
config) printf '%s\n' "$FRAGMENT"; exit 0 ;;
key) key; exit 0 ;;
esac

DIR=$CACHE_ROOT/$(key)
case "$ACTION" in
dir|release)
	[[ -f "$DIR/.complete" ]] || exit 1
	if [[ $ACTION == dir ]]; then
		printf '%s\n' "$DIR"
	else
		cat "$DIR/release"
	fi
	exit 0
	;;
esac

if [[ -f "$DIR/.complete" && $FORCE -eq 0 ]]; then
	log "cached: $DIR ($(cat "$DIR/release"))"
	printf '%s\n' "$DIR"
	exit 0
fi

for tool in make gcc flex bison bc perl xz; do
	command -v "$tool" >/dev/null || die "$tool not found (run scripts/deps.sh)"
done
mkdir -p "$CACHE_ROOT" || die "cannot create $CACHE_ROOT"
# one build per entry at a time; a second caller waits for the first
exec 9>"$CACHE_ROOT/.lock-${DIR##*/}"
flock 9
if [[ -f "$DIR/.complete" && $FORCE -eq 0 ]]; then
	printf '%s\n' "$DIR"
	exit 0
fi

T0=$(date +%s)
KMAKE=(make -C "$DIR/src" O="$DIR/build" ARCH=x86_64 LOCALVERSION="$LOCALVERSION")
# An interrupted build of this entry (same fragment, config checked) is
# resumed: make rebuilds only what is missing.
if [[ $FORCE -eq 0 && -f "$DIR/.configured" && -f "$DIR/src/Makefile" ]] &&
   [[ "$(cat "$DIR/fragment" 2>/dev/null)" == "$FRAGMENT" ]]; then
	log "resuming the interrupted build in $DIR"
else
	rm -rf "$DIR"
	mkdir -p "$DIR/src" "$DIR/build"
	log "unpacking $SRC_TARBALL into $DIR/src"
	tar -xJf "$SRC_TARBALL" -C "$DIR/src" --strip-components=1 --no-same-owner
	printf '%s\n' "$FRAGMENT" >"$DIR/fragment"
	configure
	touch "$DIR/.configured"
fi
T1=$(date +%s)
log "config ready in $((T1 - T0)) s; building with nice -n $NICE -j$JOBS"
nice -n "$NICE" "${KMAKE[@]}" -j"$JOBS" all
REL=$("${KMAKE[@]}" -s kernelrelease)
T2=$(date +%s)
log "built $REL in $((T2 - T1)) s"

mkdir -p "$DIR/boot"
cp "$DIR/build/arch/x86/boot/bzImage" "$DIR/boot/vmlinuz-$REL"
cp "$DIR/build/vmlinux" "$DIR/boot/vmlinux-$REL"
cp "$DIR/build/.config" "$DIR/boot/config-$REL"
"${KMAKE[@]}" -s INSTALL_MOD_PATH="$DIR" modules_install
mkdir -p "$DIR/lib/modules/$REL"
ln -sfn "$DIR/build" "$DIR/lib/modules/$REL/build"
ln -sfn "$DIR/src" "$DIR/lib/modules/$REL/source"
# the objects are not needed for "make M=": drop them, keep the tools
find "$DIR/build" -name '*.o' ! -path "$DIR/build/scripts/*" \
	! -path "$DIR/build/tools/*" -delete
printf '%s\n' "$REL" >"$DIR/release"
{
	echo "built=$(date -u +%FT%TZ)"
	echo "seconds_config=$((T1 - T0))"
	echo "seconds_build=$((T2 - T1))"
	echo "jobs=$JOBS"
	echo "nproc=$(nproc)"
} >"$DIR/stats"
touch "$DIR/.complete"
log "cached $REL in $DIR ($(du -sh "$DIR" | cut -f1)); $((T2 - T0)) s in all"
printf '%s\n' "$DIR"
