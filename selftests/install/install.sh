#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# install.sh - `make install` into a DESTDIR, and a program built against
# what it installed, as a user of the libraries builds one
#
# Usage: install.sh   (from build/tests/packaging-install; NPU_SRC and
#                      NPU_BUILD name the tree and its build directory)
#
# Installs with the default PREFIX (/usr/local) into a temporary DESTDIR,
# then checks the files, sonames and links, that the .so files export only
# their prefix under their version node, the pkg-config files, that the
# public headers compile alone (C and C++), then builds consumer.c with
# nothing but `pkg-config --cflags --libs` of the DESTDIR
# (PKG_CONFIG_LIBDIR and PKG_CONFIG_SYSROOT_DIR into it, no -I into the
# tree), dynamically and statically (--static), and runs it on a model made
# by the installed npu-model-gen; checks that every command and every
# exported function has a man page, that `man -l` renders each without a
# warning, that each long option of a --help is in its page, that the
# headers' kernel-doc is complete, that every function a public header
# declares is exported by its library (declared.sh, for each pair of
# HEADER_LIBS), the udev rule and the DKMS source tree; last, that `make
# uninstall` removes every file. The DKMS build itself is dkms.sh. Prints
# kselftest TAP; exits 1 when a test failed. Everything happens in a
# temporary directory, removed at the end.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$HERE/common.sh"

D=$tmp/root
P=$D/usr/local
# Each public header and the shared library that defines what it declares,
# as installed in $P/include and $P/lib: every function the header
# declares must be exported by the library. One line per library; a file
# that is not installed fails its check.
HEADER_LIBS=(
	"libnpu.h               libnpu.so"
	"npuprof.h              libnpuprof.so"
	"npuprof_analysis.h     libnpuprof-analysis.so"
)
TOOLS=(npu-info npu-classify npu-model-gen npu-onnx npuprof npu-emu)
# exported without a page of their own: the inline hot path's, documented
# on npuprof_span_begin(3)
NO_PAGE=" npuprof_span_begin_slow npuprof_span_end_slow npuprof_spans_on "
export PKG_CONFIG_LIBDIR=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
unset PKG_CONFIG_PATH

do_install() { make_install "$D"; }

files() {
	local f bad=0
	for f in "${TOOLS[@]/#/bin/}"; do
		[[ -x $P/$f && -f $P/$f ]] || { echo "missing: $f"; bad=1; }
	done
	for f in lib/libnpu.so.$ver lib/libnpu.a lib/libnpuprof.so.$ver \
		lib/libnpuprof.a lib/libnpuprof-analysis.so.$ver \
		lib/libnpuprof-analysis.a lib/pkgconfig/libnpu.pc \
		lib/pkgconfig/libnpuprof.pc lib/pkgconfig/libnpuprof-analysis.pc \
		include/libnpu.h include/npuprof.h include/npuprof_analysis.h \
		include/npu/linux/npu.h \
		lib/udev/rules.d/60-npu.rules src/npu-$ver/dkms.conf \
		src/npu-$ver/Kbuild src/npu-$ver/uapi/linux/npu.h; do
		[[ -f $P/$f && ! -L $P/$f ]] || { echo "missing: $f"; bad=1; }
	done
	cmp -s "$P/include/npu/linux/npu.h" "$NPU_SRC/uapi/linux/npu.h" ||
		{ echo "npu/linux/npu.h is not uapi/linux/npu.h"; bad=1; }
	return $bad
}

sonames() {
	local l bad=0 so
	for l in libnpu libnpuprof libnpuprof-analysis; do
		so=$P/lib/$l.so.$ver
		readelf -d "$so" | grep >/dev/null "(SONAME).*\[$l\.so\.$sover\]" ||
			{ echo "$l: SONAME is not $l.so.$sover"; readelf -d "$so" | grep SONAME; bad=1; }
		[[ $(readlink "$P/lib/$l.so.$sover") == "$l.so.$ver" ]] ||
			{ echo "$l.so.$sover does not point to $l.so.$ver"; bad=1; }
		[[ $(readlink "$P/lib/$l.so") == "$l.so.$sover" ]] ||
			{ echo "$l.so does not point to $l.so.$sover"; bad=1; }
	done
	readelf -d "$P/lib/libnpu.so.$ver" | grep >/dev/null "(NEEDED).*\[libnpuprof\.so\.$sover\]" ||
		{ echo "libnpu does not need libnpuprof.so.$sover"; bad=1; }
	# a profiled program loads capture alone: no SQLite, no analysis
	for l in libnpu libnpuprof; do
		readelf -d "$P/lib/$l.so.$ver" | grep "(NEEDED).*\(sqlite\|analysis\)" &&
			{ echo "$l needs the above"; bad=1; }
	done
	return $bad
}

# exports LIB PREFIX NODE: every defined dynamic symbol is PREFIX* at
# NODE (or NODE itself), and there are some
exports() {
	local lib=$1 prefix=$2 node=$3
	nm -D --defined-only "$P/lib/$lib" >"$tmp/nm" || return 1
	awk -v p="$prefix" -v n="$node" '
		$3 == n && $2 == "A" { next }
		{ count++ }
		index($3, p) != 1 || $3 !~ ("@@" n "$") { print "exported: " $3; bad = 1 }
		END { if (!count) print "nothing exported"; exit bad || !count }' "$tmp/nm" &&
	echo "$(wc -l <"$tmp/nm") symbols"
}

pkgconfig() {
	local bad=0 l v
	for l in libnpu libnpuprof libnpuprof-analysis; do
		v=$(pkg-config --modversion "$l") || return 1
		[[ $v == "$ver" ]] || { echo "$l: Version $v, not $ver"; bad=1; }
		v=$(pkg-config --cflags "$l")
		[[ $v == "-I$P/include -I$P/include/npu " || $v == "-I$P/include -I$P/include/npu" ]] ||
			{ echo "$l: Cflags: $v"; bad=1; }
	done
	v=$(pkg-config --libs libnpu)
	[[ $v == *-lnpu* && $v != *-lnpuprof* ]] || { echo "libnpu Libs: $v"; bad=1; }
	v=$(pkg-config --static --libs libnpu)
	[[ $v == *"-lnpu "*-lnpuprof* ]] || { echo "libnpu --static Libs: $v"; bad=1; }
	return $bad
}

# headers_alone: each public header compiles as the first and only include
# of a C11 file and of a C++17 file
headers_alone() {
	local h bad=0
	for h in libnpu.h npuprof.h npuprof_analysis.h; do
		printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$tmp/h.c"
		cp "$tmp/h.c" "$tmp/h.cc"
		# shellcheck disable=SC2046
		cc -std=c11 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags libnpu) \
			-fsyntax-only "$tmp/h.c" || { echo "$h: C"; bad=1; }
		# shellcheck disable=SC2046
		c++ -std=c++17 -Wall -Wextra -Werror $(pkg-config --cflags libnpu) \
			-fsyntax-only "$tmp/h.cc" || { echo "$h: C++"; bad=1; }
	done
	return $bad
}

consumer_build() {	# OUTPUT [--static]
	local out=$1 cflags libs
	cflags=$(pkg-config --cflags libnpu libnpuprof libnpuprof-analysis) || return 1
	libs=$(pkg-config ${2:+--static} --libs libnpu libnpuprof libnpuprof-analysis) || return 1
	echo "cc $cflags consumer.c $libs${2:+ -static}"
	(cd "$tmp/consumer" &&
	 # shellcheck disable=SC2086
	 cc -std=gnu11 -Wall -Wextra -Werror $cflags -o "$out" consumer.c $libs \
		${2:+-static} &&
	 # every header of ours comes from the DESTDIR
	 cc $cflags -M consumer.c >"$tmp/deps") || return 1
	if grep -q "$NPU_SRC" "$tmp/deps" ||
	   ! grep -q "$P/include/npu/linux/npu.h" "$tmp/deps"; then
		echo "headers not from the DESTDIR:"
		cat "$tmp/deps"
		return 1
	fi
}

model() {
	"$P/bin/npu-model-gen" -o "$tmp/mnist.nmdl" mnist
}

consumer_dynamic() {
	local bad=0
	readelf -d "$tmp/consumer/dyn" | grep >/dev/null "(NEEDED).*\[libnpu\.so\.$sover\]" ||
		{ echo "consumer does not need libnpu.so.$sover"; bad=1; }
	LD_LIBRARY_PATH=$P/lib ldd "$tmp/consumer/dyn" | grep >/dev/null "libnpuprof.so.$sover => $P/lib/" ||
		{ echo "libnpuprof.so.$sover is not found in $P/lib:"; LD_LIBRARY_PATH=$P/lib ldd "$tmp/consumer/dyn"; bad=1; }
	LD_LIBRARY_PATH=$P/lib "$tmp/consumer/dyn" "$tmp/mnist.nmdl" "$tmp/dyn.npuprof" || bad=1
	return $bad
}

# recorder: a program that only records (a session and a labelled region)
# builds with libnpuprof's pkg-config alone, and needs neither the analysis
# library nor SQLite at run time
recorder() {
	local cflags libs bad=0
	cat >"$tmp/rec.c" <<'EOF2'
#include <npuprof.h>

int main(void)
{
	struct npuprof_opts o;
	struct npuprof_session *s;
	int ret;

	npuprof_opts_init(&o);
	o.output = "/dev/null";
	ret = npuprof_session_create(&o, &s);
	if (!ret)
		npuprof_session_free(s);
	return npuprof_region_begin("r") || npuprof_region_end() ? 1 : 0;
}
EOF2
	cflags=$(pkg-config --cflags libnpuprof) || return 1
	libs=$(pkg-config --libs libnpuprof) || return 1
	[[ $libs != *analysis* && $libs != *sqlite* ]] || { echo "libnpuprof Libs: $libs"; bad=1; }
	# shellcheck disable=SC2086
	cc -std=c11 -Wall -Wextra -Werror $cflags -o "$tmp/rec" "$tmp/rec.c" $libs ||
		return 1
	LD_LIBRARY_PATH=$P/lib ldd "$tmp/rec" | grep "analysis\|sqlite" &&
		{ echo "the recorder loads the above"; bad=1; }
	LD_LIBRARY_PATH=$P/lib "$tmp/rec" || { echo "the recorder failed"; bad=1; }
	return $bad
}

consumer_static() {
	if readelf -d "$tmp/consumer/static" 2>/dev/null | grep >/dev/null '(NEEDED)'; then
		echo "the static consumer needs:"
		readelf -d "$tmp/consumer/static" | grep NEEDED
		return 1
	fi
	"$tmp/consumer/static" "$tmp/mnist.nmdl" "$tmp/static.npuprof"
}

npuprof_commands() {
	"$P/bin/npuprof" --help | awk '
		/^[A-Z]/ { in_cmds = ($0 == "COMMANDS"); next }
		in_cmds && /^    [a-z][a-z-]*   */ && $1 != "help" { print $1 }'
}

man_pages() {
	local bad=0 t c s
	for t in "${TOOLS[@]}"; do
		[[ -f $P/share/man/man1/$t.1 ]] || { echo "no page $t(1)"; bad=1; }
	done
	for c in $(npuprof_commands); do
		[[ -f $P/share/man/man1/npuprof-$c.1 ]] || { echo "no page npuprof-$c(1)"; bad=1; }
	done
	for s in $(nm -D --defined-only "$P/lib/libnpu.so.$ver" "$P/lib/libnpuprof.so.$ver" \
		   "$P/lib/libnpuprof-analysis.so.$ver" |
		   awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }'); do
		[[ $NO_PAGE == *" $s "* ]] && continue
		[[ -f $P/share/man/man3/$s.3 ]] || { echo "no page $s(3)"; bad=1; }
	done
	[[ $(man -M "$P/share/man" -w 3 npu_model_load) == "$P/share/man/man3/npu_model_load.3" ]] ||
		{ echo "man -M does not find npu_model_load(3)"; bad=1; }
	echo "$(ls "$P/share/man/man1" | wc -l) command pages, $(ls "$P/share/man/man3" | wc -l) library pages"
	return $bad
}

man_render() {
	local f bad=0 n=0
	for f in "$P"/share/man/man[13]/*; do
		n=$((n + 1))
		if ! MANWIDTH=80 man --warnings -l "$f" >"$tmp/page" 2>"$tmp/warn" ||
		   [[ -s $tmp/warn || ! -s $tmp/page ]]; then
			echo "${f#"$P"/}:"
			cat "$tmp/warn"
			bad=1
		fi
	done
	echo "$n pages rendered"
	return $bad
}

# help_agrees: the NAME and every long option of each --help are in the
# page man renders
help_agrees() {
	local bad=0 t c page opt
	check_page() {	# PAGE HELP-COMMAND...
		local page=$1 text o
		shift
		text=$(MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
		for o in $("$@" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			grep -q -- "$o" <<<"$text" || { echo "${page##*/}: no $o"; bad=1; }
		done
	}
	for t in "${TOOLS[@]}"; do
		check_page "$P/share/man/man1/$t.1" "$P/bin/$t" --help
	done
	for c in $(npuprof_commands); do
		check_page "$P/share/man/man1/npuprof-$c.1" "$P/bin/npuprof" help "$c"
	done
	return $bad
}

kerneldoc() {
	perl "$NPU_BUILD/linux-src/scripts/kernel-doc" -none -Werror \
		"$P/include/libnpu.h" "$P/include/npuprof.h" \
		"$P/include/npuprof_analysis.h"
}

# declared_exported HEADER LIBRARY: a pair of HEADER_LIBS, under $P
declared_exported() {
	bash "$HERE/declared.sh" "$P/include/$1" "$P/lib/$2" \
		-I"$P/include" -I"$P/include/npu"
}

# fx_lib [-DFX_ALL]: declared_fixture.c as $tmp/libfx.so
fx_lib() {
	cc -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
		"$@" -o "$tmp/libfx.so" "$HERE/declared_fixture.c"
}

# declared.sh on declared_fixture.h: it lists the functions gcc sees there
# and nothing else, fails on a library that lacks one (naming it) and
# passes on one that has them all
declared_fixture() {
	local want="fx_a fx_attr fx_b fx_c99_inline fx_one fx_ret_fp fx_split fx_typedefd"
	local got out bad=0
	got=$(bash "$HERE/declared.sh" --list "$HERE/declared_fixture.h" | xargs)
	[[ $got == "$want" ]] || { echo "listed: $got"; echo "wanted: $want"; bad=1; }
	fx_lib || return 1
	out=$(bash "$HERE/declared.sh" "$HERE/declared_fixture.h" "$tmp/libfx.so") &&
		{ echo "passed without fx_split"; bad=1; }
	echo "$out"
	[[ $(grep -c 'not exported' <<<"$out") == 2 && $out == "fx_split: "* ]] ||
		{ echo "wanted: fx_split alone, not exported"; bad=1; }
	fx_lib -DFX_ALL || return 1
	bash "$HERE/declared.sh" "$HERE/declared_fixture.h" "$tmp/libfx.so" || bad=1
	return $bad
}

# python_packages: the installed npuprof and npu packages import with
# Debian's python3 from the DESTDIR's dist-packages alone (their
# extensions find the DESTDIR's libnpu.so and libnpuprof.so through their
# RUNPATH, one copy of each), and npuprof refuses a model file as a trace
python_packages() {
	local dir p
	dir=$(echo "$P"/lib/python3*/dist-packages)
	for p in npuprof npu; do
		[[ -f $dir/$p/__init__.py ]] || { echo "no $p in $dir"; return 1; }
	done
	"$P/bin/npu-model-gen" -o "$tmp/py.nmdl" mnist >/dev/null || return 1
	PYTHONPATH=$dir PYTHONNOUSERSITE=1 /usr/bin/python3 -c '
import npu, npuprof, re, sys
for m in (npu, npuprof):
    assert m.__file__.startswith(sys.argv[1]), m.__file__
maps = open("/proc/self/maps").read()
for lib in ("libnpu.so", "libnpuprof.so"):
    found = set(re.findall(r"\S*/" + lib + r"\S*", maps))
    assert len(found) == 1 and all(f.startswith(sys.argv[3]) for f in found), found
try:
    npuprof.open(sys.argv[2])
except npuprof.Error as e:
    print("a model file is not a trace:", e.errno, e.strerror)
else:
    sys.exit("a model file opened as a trace")
' "$dir" "$tmp/py.nmdl" "$P/lib"
}

udev_rule() {
	grep -Eq '^SUBSYSTEM=="misc", KERNEL=="npu\[0-9\]\*", GROUP="npu", MODE="0660"$' \
		"$P/lib/udev/rules.d/60-npu.rules"
}

dkms_source() {
	local src=$P/src/npu-$ver o bad=0
	bash -n "$src/dkms.conf" || bad=1
	grep -qx "PACKAGE_NAME=\"npu\"" "$src/dkms.conf" || { echo "PACKAGE_NAME"; bad=1; }
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf" || { echo "PACKAGE_VERSION"; bad=1; }
	for o in $(sed -n 's/^\t\(driver\/.*\)\.o.*/\1/p' "$src/Kbuild"); do
		[[ -f $src/$o.c ]] || { echo "missing $o.c"; bad=1; }
	done
	return $bad
}

do_uninstall() {
	make_uninstall "$D" || return 1
	if [[ -n $(find "$D" ! -type d) ]]; then
		echo "left behind:"
		find "$D" ! -type d
		return 1
	fi
}

if ! check "make install DESTDIR=\$tmp (PREFIX /usr/local)" do_install; then
	ktap_finish
fi
check "the tools, libraries, headers, pkg-config files, udev rule and DKMS sources are installed" files
check "sonames of libnpu, libnpuprof and libnpuprof-analysis .so.$sover, links .so -> .so.$sover -> .so.$ver; no SQLite in a profiled program" sonames
check "libnpu.so exports npu_* only, at LIBNPU_${ver%.*}" exports "libnpu.so.$ver" npu_ "LIBNPU_${ver%.*}"
check "libnpuprof.so exports npuprof_* only, at NPUPROF_${ver%.*}" exports "libnpuprof.so.$ver" npuprof_ "NPUPROF_${ver%.*}"
check "libnpuprof-analysis.so exports npuprof_* only, at NPUPROF_ANALYSIS_${ver%.*}" exports "libnpuprof-analysis.so.$ver" npuprof_ "NPUPROF_ANALYSIS_${ver%.*}"
check "pkg-config: versions, Cflags find <linux/npu.h>, libnpuprof is private" pkgconfig
check "each public header compiles alone, in C11 and C++17" headers_alone
mkdir -p "$tmp/consumer" && cp "$HERE/consumer.c" "$tmp/consumer/"
check "the installed npu-model-gen writes mnist" model
check "a program that only records links libnpuprof alone: no analysis, no SQLite" recorder
if check "consumer builds with pkg-config --cflags --libs" consumer_build dyn; then
	check "consumer runs against libnpu.so.$sover of the DESTDIR" consumer_dynamic
else
	skip "consumer runs against libnpu.so.$sover of the DESTDIR" "not built"
fi
if check "consumer builds with pkg-config --static --libs and -static" consumer_build static --static; then
	check "the static consumer runs" consumer_static
else
	skip "the static consumer runs" "not built"
fi
check "every command and exported function has a man page" man_pages
check "man -l renders every page without a warning" man_render
check "every long option of each --help is in its man page" help_agrees
check "the public headers' kernel-doc is complete (kernel-doc -Werror)" kerneldoc
check "declared.sh finds the functions a header declares, and which are not exported" declared_fixture
for hl in "${HEADER_LIBS[@]}"; do
	read -r h l <<<"$hl"
	check "every function $h declares is exported by $l" declared_exported "$h" "$l"
done
check "the Python packages npuprof and npu import from the DESTDIR's dist-packages, one libnpuprof.so" python_packages
check "the udev rule gives /dev/npu* to group npu, mode 0660" udev_rule
check "the DKMS source tree: dkms.conf of version $ver, the driver's sources" dkms_source
check "make uninstall removes every installed file" do_uninstall
ktap_finish
