# SPDX-License-Identifier: GPL-2.0-only
"""The two packages share one capture library in a process.

libnpuprof's state says which session receives the host spans; npu records
its spans through libnpu.so into libnpuprof.so, and npuprof.profile()
starts its session in libnpuprof.so. With a static copy of the capture
library in either extension there would be two, and npu's spans would not
reach npuprof's session.
"""
import re
import subprocess

import npu
import npuprof


def _mapped(name):
    with open("/proc/self/maps") as f:
        return sorted(set(re.findall(r"\S*/" + re.escape(name) + r"\S*", f.read())))


def test_one_capture_library_in_the_process():
    libs = _mapped("libnpuprof.so")
    assert len(libs) == 1, libs
    assert len(_mapped("libnpu.so")) == 1


def test_no_static_copy_in_the_extensions():
    for mod in (npu._npu, npuprof._npuprof):
        out = subprocess.run(["nm", mod.__file__], capture_output=True,
                             text=True, check=True).stdout
        defined = {l.split()[2] for l in out.splitlines()
                   if len(l.split()) == 3 and l.split()[1] in "TtDdBb"}
        for sym in ("npuprof_session_create", "npf_spans_attach",
                    "npuprof_spans_on"):
            assert sym not in defined, (mod.__file__, sym)
