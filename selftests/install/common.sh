# SPDX-License-Identifier: GPL-2.0-only
#
# common.sh - what the packaging tests share (sourced by install.sh and
# dkms.sh; bash): the tree (NPU_SRC, NPU_BUILD, the version), a temporary
# directory $tmp removed at exit, make_install, and kselftest TAP output.
#
# Each test is one "check DESCRIPTION COMMAND..." (COMMAND's output is shown
# as "# " lines when it fails) or one of pass/fail/skip; ktap_finish prints
# the plan and the "# Totals:" line that scripts/totals.sh adds up, and
# exits 1 when a test failed. The install is the user's: nothing of an
# outer make (MAKEFLAGS) or of the caller's install variables leaks in.
# Under pipefail, "CMD | grep -q" fails when grep exits before CMD has
# written everything (SIGPIPE): the tests write "| grep >/dev/null".

NPU_SRC=${NPU_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
NPU_BUILD=${NPU_BUILD:-$NPU_SRC/build}
ver=$(sed -n 's/^NPU_VERSION := //p' "$NPU_SRC/packaging/version.mk")
sover=$(sed -n 's/^NPU_SOVERSION := //p' "$NPU_SRC/packaging/version.mk")
unset MAKEFLAGS MFLAGS MAKELEVEL PREFIX DESTDIR BINDIR LIBDIR INCLUDEDIR \
	MANDIR PKGCONFIGDIR UDEVRULESDIR DKMSDIR

tmp=$(mktemp -d "${TMPDIR:-/tmp}/npu-packaging.XXXXXX")
ktap_out=$tmp/.out
trap 'rm -rf "$tmp"' EXIT

ktap_n=0 ktap_pass=0 ktap_fail=0 ktap_skip=0
echo "TAP version 13"

pass() { ktap_n=$((ktap_n + 1)) ktap_pass=$((ktap_pass + 1)); echo "ok $ktap_n $*"; }
fail() { ktap_n=$((ktap_n + 1)) ktap_fail=$((ktap_fail + 1)); echo "not ok $ktap_n $*"; }
skip() {	# DESCRIPTION REASON
	ktap_n=$((ktap_n + 1)) ktap_skip=$((ktap_skip + 1))
	echo "ok $ktap_n $1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: one test, passed when COMMAND exits 0
check() {
	local what=$1
	shift
	if "$@" >"$ktap_out" 2>&1; then
		pass "$what"
	else
		tail -n 40 "$ktap_out" | sed 's/^/# /'
		fail "$what"
	fi
}

ktap_finish() {
	echo "1..$ktap_n"
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:$ktap_skip error:0"
	[[ $ktap_fail -eq 0 ]]
	exit
}

# make_install|make_uninstall DESTDIR [VAR=VALUE...]: the top-level target,
# its output in $tmp/install.log, the end of it shown when it fails. The
# pkg-config settings a test exports for its consumer (into the DESTDIR)
# are not make's: a target that relinks libnpu.so (a library rebuilt since
# the build) asks pkg-config for libnl from the system.
make_install() { run_make install "$@"; }
make_uninstall() { run_make uninstall "$@"; }
run_make() {
	local target=$1 destdir=$2
	shift 2
	env -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_SYSROOT_DIR -u PKG_CONFIG_PATH \
		make -C "$NPU_SRC" --no-print-directory "$target" DESTDIR="$destdir" \
		BUILD="$NPU_BUILD" "$@" >"$tmp/install.log" 2>&1 && return
	tail -n 40 "$tmp/install.log"
	return 1
}
