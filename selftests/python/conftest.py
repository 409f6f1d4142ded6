# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures of the npuprof package's tests: the build directory (NPU_BUILD,
set by run.sh), the npuprof CLI and the traces npuprof-python-gen writes
(gen_trace.c: report_gen.h's trace of the C report tests, an empty trace,
a large one)."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("NPU_BUILD") or os.path.join(HERE, "..", "..", "build")


def build_path(*parts):
    path = os.path.join(BUILD, *parts)
    if not os.path.exists(path):
        pytest.fail(f"{path} missing: run make")
    return path


@pytest.fixture(scope="session")
def cli():
    """Run `npuprof ARGS...`; returns (status, stdout bytes, stderr)."""
    exe = build_path("bin", "npuprof")

    def run(*args):
        p = subprocess.run([exe, *args], capture_output=True)
        return p.returncode, p.stdout, p.stderr.decode(errors="replace")
    return run


def _gen(tmp_path_factory, name, *args):
    path = str(tmp_path_factory.mktemp("traces") / name)
    subprocess.run([build_path("bin", "npuprof-python-gen"), *args, path],
                   check=True)
    return path


@pytest.fixture(scope="session")
def report_trace(tmp_path_factory):
    return _gen(tmp_path_factory, "report.npuprof", "report")


@pytest.fixture(scope="session")
def empty_trace(tmp_path_factory):
    return _gen(tmp_path_factory, "empty.npuprof", "empty")


LARGE_INFERENCES = 20000


@pytest.fixture(scope="session")
def large_trace(tmp_path_factory):
    return _gen(tmp_path_factory, "large.npuprof", "large",
                str(LARGE_INFERENCES))
