# SPDX-License-Identifier: GPL-2.0-only
"""Bad input raises clean exceptions; no leak; the GIL is released during
reads; several threads on one Trace."""
import errno
import gc
import os
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest

import npuprof
from conftest import BUILD

GETTERS = ["inferences", "npu_executions", "npu_operators",
           "external_operators", "spans", "npu_operator_records"]


def test_error_is_oserror():
    assert issubclass(npuprof.Error, OSError)


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.npuprof")
    with pytest.raises(npuprof.Error) as e:
        npuprof.open(path)
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == path.encode()
    assert "No such file" in e.value.strerror


def test_not_a_trace(tmp_path):
    p = tmp_path / "text"
    p.write_text("hello, world\n" * 100)
    with pytest.raises(npuprof.Error) as e:
        npuprof.open(str(p))
    assert e.value.errno == errno.ENOEXEC
    assert "magic" in e.value.strerror and "offset 0" in e.value.strerror


def _every_call(t):
    for g in GETTERS:
        getattr(t, g)()
    t.summary()


def test_corrupt_chunk(report_trace, tmp_path):
    """A damaged chunk is skipped and counted, the rest read: no error."""
    data = bytearray(open(report_trace, "rb").read())
    data[2000] ^= 0xff
    p = tmp_path / "bad.npuprof"
    p.write_bytes(data)
    t = npuprof.open(str(p))
    for g in GETTERS:
        getattr(t, g)()
    d = t.damage
    assert d["stretches"] == 1 and d["chunks"] == 1, d
    assert d["bytes"] > 0 and d["first_offset"] <= 2000, d
    assert "crc" in d["why"], d
    assert "Damaged chunks skipped          : 1" in t.summary()
    t.export_chrome(str(tmp_path / "x.json"))
    assert '"damaged":{"stretches":1,"chunks":1,' in \
        (tmp_path / "x.json").read_text()
    assert npuprof.open(report_trace).damage["stretches"] == 0


def test_every_flipped_byte(report_trace, tmp_path):
    """Every 7th byte flipped: an Error (the file header) or a result with
    the damaged chunk counted, never a crash."""
    data = open(report_trace, "rb").read()
    p = tmp_path / "flip.npuprof"
    errors = damaged = 0
    for off in range(0, len(data), 7):
        d = bytearray(data)
        d[off] ^= 0x5a
        p.write_bytes(d)
        try:
            t = npuprof.open(str(p))
            _every_call(t)
        except npuprof.Error as e:
            assert e.errno in (errno.EBADMSG, errno.ENOEXEC,
                               errno.EPROTONOSUPPORT), e
            assert off < 64, (off, e)
            errors += 1
            continue
        if off >= 64:
            assert t.damage["chunks"] == 1, (off, t.damage)
            damaged += 1
    assert damaged == len(range(0, len(data), 7)) - len(range(0, 64, 7))
    assert errors > 0


def test_truncated(report_trace, tmp_path):
    """Cut at every 13th byte: an Error before the first chunk, then a
    truncated trace that reports what it holds."""
    data = open(report_trace, "rb").read()
    p = tmp_path / "cut.npuprof"
    opened = 0
    for n in range(0, len(data), 13):
        p.write_bytes(data[:n])
        try:
            t = npuprof.open(str(p))
        except npuprof.Error as e:
            assert e.errno in (errno.EBADMSG, errno.ENOEXEC), e
            continue
        opened += 1
        try:
            _every_call(t)
        except npuprof.Error as e:
            assert e.errno == errno.EBADMSG, e
            continue
        assert t.truncated is True
        assert len(t.inferences()) <= 4
    assert opened > 100
    p.write_bytes(data[:len(data) // 2])
    t = npuprof.open(str(p))
    assert t.truncated is True
    assert len(t.npu_executions()) < 7


def test_wrong_types(report_trace, tmp_path):
    for bad in (None, 123, 1.5, ["x"]):
        with pytest.raises(TypeError):
            npuprof.open(bad)
    with pytest.raises(ValueError):
        npuprof.open("a\0b")
    t = npuprof.open(report_trace)
    with pytest.raises(TypeError):
        t.export_chrome(5)
    with pytest.raises(TypeError):
        t.table(3)
    with pytest.raises(ValueError, match="unknown table"):
        t.table("nope")
    with pytest.raises(ValueError, match="format"):
        t.summary(format="xml")
    with pytest.raises(TypeError):
        t.inferences(1)
    with pytest.raises(AttributeError):
        t.print_summary(file=5)
    with pytest.raises(npuprof.Error) as e:
        t.export_chrome(str(tmp_path / "no" / "such" / "dir.json"))
    assert e.value.errno == errno.ENOENT
    with pytest.raises(npuprof.Error):
        t.export_sqlite(str(tmp_path / "no" / "such" / "dir.sqlite"))
    # the Trace still works after every error
    assert len(t.inferences()) == 4


def test_closed(report_trace):
    t = npuprof.open(report_trace)
    with t:
        assert not t.closed
    assert t.closed
    t.close()  # idempotent
    for g in GETTERS:
        with pytest.raises(ValueError, match="closed"):
            getattr(t, g)()
    with pytest.raises(ValueError):
        t.print_summary()
    with pytest.raises(ValueError):
        t.truncated
    with pytest.raises(ValueError):
        with t:
            pass
    assert "closed" in repr(t)


def _rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_no_leak(report_trace, tmp_path):
    missing = str(tmp_path / "missing")

    def once():
        with npuprof.open(report_trace) as t:
            _every_call(t)
            t.print_summary(file=open(os.devnull, "w"))
        try:
            npuprof.open(missing)
        except npuprof.Error:
            pass

    for _ in range(30):
        once()
    gc.collect()
    tracemalloc.start()
    rss0 = _rss_kb()
    snap0 = tracemalloc.take_snapshot()
    for _ in range(300):
        once()
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    rss1 = _rss_kb()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert grown < 64 * 1024, f"Python heap grew by {grown} bytes"
    assert rss1 - rss0 < 2048, f"RSS grew by {rss1 - rss0} KiB"


def test_gil_released(large_trace, tmp_path):
    """A Python thread keeps running while the main thread is inside a long
    read: its longest pause during the call is a small part of the call
    (with the GIL held across the call, it would be the whole call). The
    best of 3 calls, against the scheduler of a busy machine."""
    t = npuprof.open(large_trace)
    state = {"stop": False, "gap": 0.0}

    def ticker():
        last = time.monotonic()
        while not state["stop"]:
            now = time.monotonic()
            state["gap"] = max(state["gap"], now - last)
            last = now

    th = threading.Thread(target=ticker)
    th.start()
    ratios = []
    try:
        for call in (lambda: t.export_chrome(str(tmp_path / "big.json")),
                     lambda: t.export_sqlite(str(tmp_path / "big.sqlite")),
                     lambda: t.export_chrome(str(tmp_path / "big.json"))):
            time.sleep(0.01)
            state["gap"] = 0.0
            t0 = time.monotonic()
            call()
            took = time.monotonic() - t0
            ratios.append((state["gap"] / took, took))
    finally:
        state["stop"] = True
        th.join()
    assert min(r[1] for r in ratios) > 0.02, ratios
    assert min(r[0] for r in ratios) < 0.5, ratios


def test_threads_share_a_trace(report_trace):
    t = npuprof.open(report_trace)
    want = {g: getattr(t, g)() for g in GETTERS}
    bad = []

    def work(g):
        for _ in range(20):
            if not getattr(t, g)().equals(want[g]):
                bad.append(g)

    ths = [threading.Thread(target=work, args=(g,)) for g in GETTERS * 2]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    assert bad == []


def test_dev_mode(report_trace, empty_trace):
    """python3 -X dev (debug hooks of the allocators, warnings as they
    come): everything, clean exit, nothing on stderr."""
    code = f"""
import io, npuprof
t = npuprof.open({report_trace!r})
for g in ("inferences", "npu_executions", "npu_operators",
          "external_operators", "spans", "npu_operator_records"):
    getattr(t, g)()
t.print_summary(file=io.StringIO())
try:
    npuprof.open("/nonexistent/x")
except npuprof.Error:
    pass
t.close()
e = npuprof.open({empty_trace!r})
assert len(e.spans()) == 0 and len(e.npu_executions()) == 0
print("done")
"""
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"),
               PYTHONMALLOC="debug", MALLOC_CHECK_="3", MALLOC_PERTURB_="165")
    dbg = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
    if os.path.exists(dbg):     # glibc's checks of free() and realloc()
        env["LD_PRELOAD"] = dbg
    p = subprocess.run([sys.executable, "-X", "dev", "-W", "error", "-c", code],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "done\n" and p.stderr == ""
