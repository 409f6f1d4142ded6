# SPDX-License-Identifier: GPL-2.0-only
"""RAF's memory getters, get_max_memory_info() and get_memory_trace(), and
Trace.memory(), on the buffer records of memory_gen.h (the C memory
tests' trace, written by npuprof-python-gen memory): the figures computed
by hand there, the same on an opened trace and on a profiler, errors as
exceptions."""
import subprocess

import pandas as pd
import pytest

import npuprof
from conftest import build_path

MIB = 1024 * 1024


@pytest.fixture(scope="session")
def memory_trace(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("traces") / "memory.npuprof")
    subprocess.run([build_path("bin", "npuprof-python-gen"), "memory", path],
                   check=True)
    return path


def test_max_memory_info(memory_trace):
    with npuprof.open(memory_trace) as t:
        info = t.get_max_memory_info()
    # device 0's peak: 64 + 32 + 128 KiB
    assert info == {"max_used": None, "max_allocated": 229376 / MIB}


@pytest.fixture(scope="session")
def used_trace(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("traces") / "used.npuprof")
    subprocess.run([build_path("bin", "npuprof-python-gen"), "memory-used",
                    path], check=True)
    return path


def test_max_used(used_trace):
    # memory_gen.h's model "tiny": 2000 bytes live at op 0, 4 pages held
    with npuprof.open(used_trace) as t:
        assert t.get_max_memory_info() == {"max_used": 2000 / MIB,
                                           "max_allocated": 16384 / MIB}
        ops = t.memory("operators")
    assert list(ops["live_bytes"]) == [2000, 1600]
    assert list(ops["name"]) == ["CONV2D", "FC"]
    assert list(ops["alloc_bytes"]) == [7424, 7424]


def test_max_memory_info_without_buffers(empty_trace):
    with npuprof.open(empty_trace) as t:
        assert t.get_max_memory_info() == {"max_used": None,
                                           "max_allocated": None}


def test_memory_trace(memory_trace, cli):
    with npuprof.open(memory_trace) as t:
        df = t.get_memory_trace()
    assert isinstance(df, pd.DataFrame)
    # 14 records, the one of size 0 left out
    assert len(df) == 13
    assert list(df["event"].value_counts().sort_index().items()) == [
        ("alloc", 6), ("fail", 2), ("free", 5)]
    peak = df[(df.device == 0) & (df.event == "alloc") & (df.bo_id == 3)]
    assert peak.iloc[0]["allocated"] == 229376
    assert peak.iloc[0]["process_allocated"] == 196608
    assert peak.iloc[0]["device_allocated"] == 294912
    assert peak.iloc[0]["address"] == "0x428000"
    fails = df[df.event == "fail"]
    assert list(fails["error"]) == ["ENOMEM", "EDQUOT"]
    assert fails["bo_id"].isna().all()
    # the same rows as npuprof memory --table events --format csv
    st, out, err = cli("memory", "--table", "events", "--format", "csv",
                       memory_trace)
    assert st == 0, err
    assert len(out.decode().splitlines()) == len(df) + 1


def test_memory_trace_columns(memory_trace):
    with npuprof.open(memory_trace) as t:
        df = t.get_memory_trace(columns=["time_ns", "size"])
    assert list(df.columns) == ["time_ns", "size"]
    assert df["size"].sum() == (65536 + 8192 + 32768 + 8192 + 131072 +
                                1048576 + 32768 + 16384 + 131072 + 8192 +
                                4096 + 4096 + 16384)


def test_memory_tables(memory_trace):
    with npuprof.open(memory_trace) as t:
        dev = t.memory()
        procs = t.memory("processes")
        bufs = t.memory(table="peak_buffers")
        with pytest.raises(ValueError):
            t.memory("nonsense")
    assert list(dev["max_allocated"]) == [229376, 8192]
    assert list(dev["fragmentation_pct"]) == [8.0, 0.0]
    assert list(procs["pid"]) == [100, 200, 300, 100]
    assert list(bufs["bo_id"]) == [3, 1, 2, 1]


def test_profile_delegates(memory_trace):
    p = npuprof.Profile()
    p._trace = npuprof.open(memory_trace)
    try:
        assert p.get_max_memory_info()["max_allocated"] == 229376 / MIB
        assert len(p.get_memory_trace()) == 13
    finally:
        p.close()


def test_closed_trace_raises(memory_trace):
    t = npuprof.open(memory_trace)
    t.close()
    with pytest.raises(Exception):
        t.get_max_memory_info()
    with pytest.raises(Exception):
        t.get_memory_trace()


MEM_TABLES = ["devices", "processes", "peak_buffers", "failures",
              "operators", "tensors", "events"]


@pytest.mark.parametrize("table", MEM_TABLES)
def test_every_memory_table_equals_cli(memory_trace, used_trace, cli, table):
    """Every table of npuprof memory, on both traces, cell for cell as
    its CSV (the frame's table ids must cover them all)."""
    from test_trace import assert_frame_is_csv
    import csv
    import io

    for path in (memory_trace, used_trace):
        st, out, err = cli("memory", "--table", table, "--format", "csv",
                           path)
        assert st == 0, err
        rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
        with npuprof.open(path) as t:
            df = t.memory(table)
        if rows[1:]:
            assert_frame_is_csv(df, rows[0], rows[1:])
        else:
            assert list(df.columns) == rows[0] and len(df) == 0
