#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms.sh - the DKMS source tree of `make install` builds and installs
# npu.ko for each tested kernel with Debian's dkms
#
# Usage: dkms.sh   (from build/tests/packaging-dkms; NPU_SRC, NPU_BUILD,
#                   NPU_KERNELS as for scripts/check.sh)
#
# Installs with PREFIX=/usr into a temporary DESTDIR (so the sources are in
# DESTDIR/usr/src/npu-VERSION, where dkms looks for them on a real system),
# then runs dkms add, and for each installed kernel of scripts/kernels.sh
# (6.1 and 6.12; not the debug kernel of its cache) dkms build, install,
# uninstall, then dkms remove, with
# --sourcetree, --dkmstree and --installtree in the temporary directory,
# --no-depmod, and the module signing key dkms makes in it too
# (mok_signing_key, mok_certificate): nothing is written to /usr/src,
# /var/lib/dkms or /lib/modules, and nothing is loaded. Checks the built
# module's name and vermagic, and where dkms install put it.
# Needs root (dkms refuses otherwise) and the kernels' headers. Prints
# kselftest TAP; exits 1 when a test failed.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$HERE/common.sh"

D=$tmp/root
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
TREES=(--sourcetree "$D/usr/src" --dkmstree "$tmp/dkms" --installtree "$tmp/modules")
read -r -a kernels <<<"${NPU_KERNELS:-}"
if [[ ${#kernels[@]} -eq 0 ]]; then
	mapfile -t kernels < <("$NPU_SRC/scripts/kernels.sh")
fi
# DKMS builds for installed kernels (/lib/modules/VERSION/build): not for
# the debug kernel, which lives in its cache (scripts/kernels.sh --root)
installed=()
for k in "${kernels[@]}"; do
	[[ -n $("$NPU_SRC/scripts/kernels.sh" --root "$k" 2>/dev/null) ]] ||
		installed+=("$k")
done
kernels=("${installed[@]}")

if ! command -v dkms >/dev/null; then
	fail "dkms is installed (scripts/deps.sh installs it)"
	ktap_finish
fi
if [[ $(id -u) -ne 0 ]]; then
	skip "dkms add, build, install" "dkms needs root"
	ktap_finish
fi

do_install() {
	make_install "$D" PREFIX=/usr && [[ -f $D/usr/src/npu-$ver/dkms.conf ]]
}

dkms_add() {
	mkdir -p "$tmp/dkms" "$tmp/modules" &&
	dkms add -m npu -v "$ver" "${TREES[@]}" &&
	dkms status -m npu -v "$ver" "${TREES[@]}" | tee /dev/stderr | grep >/dev/null "^npu/$ver: added"
}

# build KVER: dkms build, then the module it keeps is npu for KVER
build() {
	local k=$1 ko
	dkms build -m npu -v "$ver" -k "$k" "${TREES[@]}" || {
		cat "$tmp/dkms/npu/$ver/build/make.log" 2>/dev/null | tail -n 30
		return 1
	}
	ko=$(find "$tmp/dkms/npu/$ver/$k" -name 'npu.ko*' | head -n 1)
	[[ -n $ko ]] || { echo "no npu.ko under $tmp/dkms/npu/$ver/$k"; return 1; }
	echo "$ko: $(modinfo -F vermagic "$ko")"
	[[ $(modinfo -F name "$ko") == npu ]] || { echo "not npu"; return 1; }
	[[ $(modinfo -F vermagic "$ko") == "$k "* ]] || { echo "vermagic is not $k"; return 1; }
}

install_ko() {
	local k=$1
	mkdir -p "$tmp/modules/$k" &&
	dkms install --no-depmod -m npu -v "$ver" -k "$k" "${TREES[@]}" &&
	ls "$tmp/modules/$k/updates/dkms/"npu.ko*
}

uninstall_ko() {
	local k=$1
	dkms uninstall --no-depmod -m npu -v "$ver" -k "$k" "${TREES[@]}" || return 1
	if ls "$tmp/modules/$k/updates/dkms/"npu.ko* 2>/dev/null; then
		echo "still installed"
		return 1
	fi
}

dkms_remove() {
	dkms remove --no-depmod -m npu -v "$ver" --all "${TREES[@]}" &&
	[[ ! -e $tmp/dkms/npu/$ver ]]
}

# the host is untouched: no npu in dkms's own trees
host_clean() {
	local bad=0 p
	for p in /var/lib/dkms/npu "/usr/src/npu-$ver" /var/lib/dkms/mok.key; do
		[[ -e $p && ! -e $tmp/preexisting${p//\//_} ]] && { echo "$p exists"; bad=1; }
	done
	return $bad
}

# what existed before the test is not its doing
for p in /var/lib/dkms/npu "/usr/src/npu-$ver" /var/lib/dkms/mok.key; do
	[[ -e $p ]] && touch "$tmp/preexisting${p//\//_}"
done

if ! check "make install DESTDIR=\$tmp PREFIX=/usr puts the sources in /usr/src/npu-$ver" do_install ||
   ! check "dkms add npu/$ver" dkms_add; then
	ktap_finish
fi
for k in "${kernels[@]}"; do
	if check "dkms build npu/$ver -k $k" build "$k"; then
		check "dkms install npu/$ver -k $k puts npu.ko in updates/dkms" install_ko "$k"
		check "dkms uninstall npu/$ver -k $k" uninstall_ko "$k"
	else
		skip "dkms install npu/$ver -k $k" "not built"
		skip "dkms uninstall npu/$ver -k $k" "not built"
	fi
done
check "dkms remove npu/$ver --all" dkms_remove
check "nothing written to /usr/src or /var/lib/dkms" host_clean
ktap_finish
