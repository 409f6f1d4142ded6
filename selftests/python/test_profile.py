# SPDX-License-Identifier: GPL-2.0-only
"""npuprof.profile() and RAF's start/stop/get/clear/dump on the host, with
no device: the session records labelled regions (host spans), and what
the tests read back from the trace is what they recorded."""
import gc
import io
import json
import os
import resource
import threading
import tracemalloc

import pytest

import npuprof


def records(trace):
    """The labelled regions of a trace: {name: row} (names unique)."""
    df = trace.get_pandas_dataframe()
    rec = df[df["cat"] == "record"]
    assert rec["name"].is_unique
    return {r["name"]: r for _, r in rec.iterrows()}


def test_npuprof_file_nesting_pause_resume(tmp_path):
    path = tmp_path / "run.npuprof"
    with npuprof.profile(file=str(path), format="npuprof") as p:
        assert p.running
        with p.record("warm up"):
            with p.record("inner"):
                pass
        p.pause()
        with p.record("paused"):
            pass
        p.resume()
        with p.record("trace"):
            pass
    assert not p.running
    assert path.stat().st_size > 0
    with npuprof.open(path) as t:
        recs = records(t)
        sp = t.spans()
    assert set(recs) == {"warm up", "inner", "trace"}
    assert recs["inner"]["parent_span_id"] == recs["warm up"]["span_id"]
    assert recs["warm up"]["parent_span_id"] is None
    assert recs["trace"]["parent_span_id"] is None
    w, i = recs["warm up"], recs["inner"]
    assert w["start"] <= i["start"] <= i["end"] <= w["end"]
    assert recs["trace"]["start"] >= w["end"]
    assert (sp["pid"] == os.getpid()).all()
    assert (sp["tid"] == threading.get_native_id()).all()
    assert len(sp) == 3
    # the profiler's own Trace reads the same
    assert set(records(p.trace)) == set(recs)


def test_seed_dataframe_filter():
    with npuprof.profile(format=npuprof.RecordFormat.PandasDataFrame) as p:
        with p.record("warm up"):
            pass
        for _ in range(3):
            with p.record("trace"):
                pass
    df = p.get_pandas_dataframe()
    sel = df[df["name"] == "trace"][["trace_id", "name", "thread.id", "dur"]]
    assert len(sel) == 3
    assert (sel["thread.id"] == threading.get_native_id()).all()
    assert (sel["dur"] >= 0).all()
    assert sel["trace_id"].is_unique
    out = io.StringIO()
    p.print_summary(file=out)
    assert "Host spans                      : 4" in out.getvalue()
    for fn in ("print_inferences", "print_npu_executions",
               "print_npu_operators", "print_external_operators"):
        getattr(p, fn)(file=io.StringIO())
    assert len(p.spans()) == 4 and len(p.inferences()) == 0


def chrome_labels(doc):
    return sorted(e["name"] for e in doc["traceEvents"]
                  if e.get("cat") == "label")


def test_chrome_to_path(tmp_path):
    path = tmp_path / "run.json"
    with npuprof.profile(file=str(path)) as p:
        with p.record("warm up"):
            pass
        with p.record("trace"):
            pass
    with open(path) as f:
        assert chrome_labels(json.load(f)) == ["trace", "warm up"]


@pytest.mark.parametrize("mode", ["w", "wb"])
def test_chrome_to_file_object(tmp_path, mode):
    path = tmp_path / "run.json"
    with open(path, mode) as output:
        with npuprof.profile(file=output) as p:
            with p.record("only"):
                pass
        assert not output.closed
    with open(path) as f:
        assert chrome_labels(json.load(f)) == ["only"]
    # a temporary trace file is not left behind once read
    assert not os.path.exists(p.trace.path)


def test_output_path_kept(tmp_path):
    out = tmp_path / "kept.npuprof"
    buf = io.BytesIO()
    with npuprof.profile(file=buf, format="npuprof", output_path=out) as p:
        with p.record("r"):
            pass
    assert out.read_bytes() == buf.getvalue()
    assert len(buf.getvalue()) > 0


def test_decorator():
    prof = npuprof.profile(format="pandas")

    @prof
    def work(n):
        for k in range(n):
            with prof.record(f"step {k}"):
                pass
        return n * 2

    assert work(3) == 6
    assert sorted(records(prof.trace)) == ["step 0", "step 1", "step 2"]
    assert work(1) == 2	# each call is a new capture
    assert sorted(records(prof.trace)) == ["step 0"]


def test_threads():
    n, per = 6, 20
    barrier = threading.Barrier(n)
    tids = []

    def worker(i):
        tids.append(threading.get_native_id())
        barrier.wait()
        for k in range(per):
            with p.record(f"t{i}"):
                with p.record(f"t{i}.inner"):
                    pass

    with npuprof.profile(format="pandas") as p:
        th = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
        for t in th:
            t.start()
        for t in th:
            t.join()
    df = p.get_pandas_dataframe()
    assert len(df) == n * per * 2
    counts = df.groupby("name").size()
    assert all(counts[f"t{i}"] == per for i in range(n))
    assert set(df["thread.id"]) == set(tids)
    # each inner region's parent is an outer region of its own thread
    ids = df.set_index("span_id")
    inner = df[df["name"].str.endswith(".inner")]
    for _, r in inner.iterrows():
        parent = ids.loc[r["parent_span_id"]]
        assert parent["name"] + ".inner" == r["name"]
        assert parent["thread.id"] == r["thread.id"]


def test_second_session_refused():
    with npuprof.profile(format="pandas") as p:
        with pytest.raises(npuprof.Error) as e:
            with npuprof.profile(format="pandas"):
                pass
        assert e.value.errno == 16	# EBUSY
        with p.record("still"):
            pass
    assert list(records(p.trace)) == ["still"]
    # and once it ended, another one starts
    with npuprof.profile(format="pandas") as q:
        pass
    assert len(q.spans()) == 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        npuprof.profile(format="perfetto")
    with pytest.raises(ValueError):
        npuprof.profile(level=3)
    with pytest.raises(ValueError):
        npuprof.profile(level=-1)
    with pytest.raises(TypeError):
        npuprof.profile(level="2")
    p = npuprof.profile(format="pandas")
    with pytest.raises(npuprof.Error):
        p.pause()	# not running
    with pytest.raises(npuprof.Error):
        p.trace	# nothing captured
    with pytest.raises(TypeError):
        p.record(3)
    with pytest.raises(npuprof.Error) as e:
        with npuprof.profile(output_path="/nonexistent-dir/x.npuprof"):
            pass
    assert e.value.errno == 2
    with p:
        p.pause()
        with pytest.raises(npuprof.Error):
            p.pause()	# EALREADY
        p.resume()
        with pytest.raises(npuprof.Error):
            p.start()
    with pytest.raises(npuprof.Error):
        npuprof._npuprof.region_end()	# no open region


def test_region_depth_limit():
    with npuprof.profile(format="pandas") as p:
        opened = []
        with pytest.raises(npuprof.Error) as e:
            for k in range(40):
                p.record(f"d{k}").__enter__()
                opened.append(k)
        assert e.value.errno == 7	# E2BIG
        for _ in opened:
            npuprof._npuprof.region_end()
    assert len(opened) == 32
    assert len(p.spans()) == 32


def test_raf_start_stop_get_clear_dump(tmp_path):
    npuprof.clear()
    with pytest.raises(npuprof.Error):
        npuprof.get()
    npuprof.start(level=1)
    with pytest.raises(npuprof.Error):
        npuprof.start()
    with npuprof.record("raf"):
        pass
    npuprof.stop()
    with pytest.raises(npuprof.Error):
        npuprof.stop()
    t = npuprof.get()
    assert t is npuprof.get()	# kept until clear()
    assert list(records(t)) == ["raf"]
    npuprof.dump(tmp_path / "raf.json")
    with open(tmp_path / "raf.json") as f:
        assert chrome_labels(json.load(f)) == ["raf"]
    npuprof.dump(tmp_path / "raf.npuprof", format="npuprof")
    with npuprof.open(tmp_path / "raf.npuprof") as t2:
        assert list(records(t2)) == ["raf"]
    path = t.path
    npuprof.clear()
    assert t.closed and not os.path.exists(path)
    with pytest.raises(npuprof.Error):
        npuprof.get()


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def test_no_leak():
    def rounds(n):
        for _ in range(n):
            with npuprof.profile(format="pandas") as p:
                with p.record("a"):
                    with p.record("b"):
                        pass
            assert len(p.spans()) == 2
            p.close()
            with pytest.raises(ValueError):
                npuprof.profile(format="x")
            try:
                npuprof._npuprof.session("/nonexistent-dir/x", 2)
            except npuprof.Error:
                pass

    rounds(30)	# warm up caches and pandas
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rss = rss_kb()
        rounds(200)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, f"Python heap grew {grown} bytes"
    assert rss_kb() - rss < 4096, "RSS grew"
