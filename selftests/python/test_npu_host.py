# SPDX-License-Identifier: GPL-2.0-only
"""The runtime package npu on the host, with no device: models load and
describe themselves, bad files and missing devices raise npu.Error with
libnpu's errno, wrong argument types raise TypeError, nothing leaks.
Also the fixtures and helpers of the package's other tests."""
import contextlib
import errno
import gc
import glob
import os
import pathlib
import subprocess
import threading
import time
import tracemalloc

import numpy as np
import pytest

import npu
from conftest import build_path

NO_DEVICE = not glob.glob("/dev/npu[0-9]*")


@pytest.fixture(scope="session")
def mnist(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("models") / "mnist.nmdl")
    subprocess.run([build_path("bin", "npu-model-gen"), "-o", path, "mnist"],
                   check=True, capture_output=True)
    return path


@pytest.fixture(scope="session")
def mobilenet(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("models") / "mobilenet.nmdl")
    subprocess.run([build_path("bin", "npu-model-gen"), "-o", path,
                    "mobilenet-v1"], check=True, capture_output=True)
    return path


@contextlib.contextmanager
def spinning(period=0.001):
    """A thread that counts, a tick each PERIOD seconds, while the block
    runs; yields a function that returns the ticks so far. It runs only
    while the GIL is free: ticks counted during a call show that the call
    released it."""
    ticks = 0
    stop = False

    def spin():
        nonlocal ticks
        while not stop:
            ticks += 1
            time.sleep(period)
    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.01)
        yield lambda: ticks
    finally:
        stop = True
        t.join()


def growth(once, rounds, warm=50):
    """(bytes the Python heap grew by, as tracemalloc sees it, bytes the RSS
    grew by) over ROUNDS calls of ONCE(), after WARM calls."""
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    for _ in range(warm):
        once()
    gc.collect()
    rss0 = rss()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(rounds):
        once()
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    return (sum(s.size_diff for s in after.compare_to(before, "filename")),
            rss() - rss0)


def test_error_classes():
    assert issubclass(npu.Error, OSError)
    assert issubclass(npu.InputError, npu.Error)
    assert issubclass(npu.InputError, ValueError)
    e = npu.Error(errno.ENOENT, "x", "/dev/npu0")
    assert (e.errno, e.strerror, e.filename) == (errno.ENOENT, "x", "/dev/npu0")


def test_mnist_descs(mnist):
    m = npu.Model(mnist)
    assert m.name == "mnist"
    assert m.path == mnist
    (i,) = m.inputs()
    (o,) = m.outputs()
    assert isinstance(i, npu.TensorDesc) and isinstance(i, tuple)
    assert i.shape == (1, 28, 28, 1)
    assert i.dtype == np.dtype(np.uint8)
    assert i.scale == pytest.approx(1 / 255, rel=1e-6)
    assert i.zero_point == 0
    assert i.layout in ("plain", "nchwc16")
    assert o.shape == (1, 10)
    assert o.dtype == np.uint8
    assert o.scale > 0 and 0 <= o.zero_point <= 255
    assert i.name and o.name and i.name != o.name
    # a named tuple: fields by position too
    assert i[1] == i.shape and i[3] == i.scale
    assert "mnist" in repr(m) and "1 inputs" in repr(m)


def test_mobilenet_descs(mobilenet):
    m = npu.Model(mobilenet)
    (i,) = m.inputs()
    (o,) = m.outputs()
    assert i.shape == (1, 224, 224, 3)
    assert i.scale == pytest.approx(1 / 128, rel=1e-6)
    assert i.zero_point == 128
    assert o.shape == (1, 1001)


def test_missing_model(tmp_path):
    path = str(tmp_path / "nope.nmdl")
    with pytest.raises(npu.Error) as e:
        npu.Model(path)
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == path
    with pytest.raises(npu.Error) as e:
        npu.Session(path)
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == path


@pytest.mark.parametrize("keep", [0, 16, 100, 1000, -1])
def test_truncated_model(mnist, tmp_path, keep):
    data = pathlib.Path(mnist).read_bytes()
    p = tmp_path / "cut.nmdl"
    p.write_bytes(data[:keep] if keep >= 0 else data[:-1])
    for make in (npu.Model, npu.Session):
        with pytest.raises(npu.Error) as e:
            make(str(p))
        # before the device is looked for, whether there is one or not
        assert e.value.errno == errno.EBADMSG, e.value
        assert e.value.filename == str(p)
        assert e.value.strerror.startswith(str(p))


def test_corrupt_model(mnist, tmp_path):
    data = bytearray(pathlib.Path(mnist).read_bytes())
    data[len(data) // 2] ^= 0xff
    p = tmp_path / "flip.nmdl"
    p.write_bytes(data)
    with pytest.raises(npu.Error) as e:
        npu.Session(str(p), device="/nonexistent/npu0")
    assert e.value.errno == errno.EBADMSG


def test_not_a_model(tmp_path):
    p = tmp_path / "text.nmdl"
    p.write_text("hello, world\n" * 100)
    with pytest.raises(npu.Error) as e:
        npu.Model(str(p))
    assert e.value.errno == errno.ENOEXEC


def test_no_device_path(mnist):
    with pytest.raises(npu.Error) as e:
        npu.Session(mnist, device="/nonexistent/npu0")
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == "/nonexistent/npu0"
    assert "npu.ko" in e.value.strerror
    assert not isinstance(e.value, ValueError)


@pytest.mark.skipif(not NO_DEVICE, reason="an NPU is present")
def test_no_device_default(mnist):
    for dev in (None, 0, 3):
        with pytest.raises(npu.Error) as e:
            npu.Session(mnist, device=dev)
        assert e.value.errno == errno.ENOENT
        assert e.value.filename == f"/dev/npu{dev or 0}"
    # a loaded Model is shared, and stays usable
    m = npu.Model(mnist)
    with pytest.raises(npu.Error) as e:
        npu.Session(m, pes=[0, 1], contexts=4, timeout=1.5)
    assert e.value.errno == errno.ENOENT
    assert m.inputs()[0].shape == (1, 28, 28, 1)


def test_type_errors(mnist):
    with pytest.raises(TypeError):
        npu.Model(None)
    with pytest.raises(TypeError):
        npu.Model(42)
    with pytest.raises(TypeError):
        npu.Session(42)
    with pytest.raises(TypeError):
        npu.Session(mnist, device=1.5)
    with pytest.raises(TypeError):
        npu.Session(mnist, device=[0])
    with pytest.raises(TypeError):
        npu.Session(mnist, pes="ab")
    with pytest.raises(TypeError):
        npu.Session(mnist, pes=5)
    with pytest.raises(TypeError):
        npu.Session(mnist, timeout="soon")
    with pytest.raises(TypeError):
        npu.Session(mnist, contexts="two")
    with pytest.raises(ValueError):
        npu.Session(mnist, pes=[])
    with pytest.raises(ValueError):
        npu.Session(mnist, pes=list(range(17)))
    with pytest.raises(ValueError):
        npu.Session(mnist, pes=[-1])
    with pytest.raises(ValueError):
        npu.Session(mnist, timeout=-1)
    with pytest.raises(ValueError):
        npu.Session(mnist, device=-1)
    with pytest.raises(TypeError):
        npu.Future()


def test_output_dtype_checked_first(mnist):
    """output_dtype is float32 or uint8 (model files hold uint8 tensors
    alone), checked before the model is loaded or a device opened."""
    for bad in (np.int8, np.float64, "int32", np.dtype(np.uint16)):
        with pytest.raises(ValueError) as e:
            npu.Session(mnist, device="/nonexistent/npu0", output_dtype=bad)
        assert "output_dtype" in str(e.value)
        assert not isinstance(e.value, npu.Error)
    with pytest.raises(TypeError):
        npu.Session(mnist, device="/nonexistent/npu0", output_dtype="nonsense")
    # valid spellings get as far as the device
    for good in (None, np.float32, "float32", np.uint8, "uint8",
                 np.dtype("u1")):
        with pytest.raises(npu.Error) as e:
            npu.Session(mnist, device="/nonexistent/npu0", output_dtype=good)
        assert e.value.errno == errno.ENOENT
    # the model's own descriptors are the device tensors': uint8
    assert npu.Model(mnist).outputs()[0].dtype == np.uint8


def test_no_leak(mnist, tmp_path):
    bad = tmp_path / "cut.nmdl"
    bad.write_bytes(pathlib.Path(mnist).read_bytes()[:500])

    def once():
        m = npu.Model(mnist)
        m.inputs(), m.outputs(), m.name, repr(m)
        for args in ((mnist,), (m,), (str(bad),)):
            try:
                npu.Session(*args, device="/nonexistent/npu0", pes=[0])
            except npu.Error:
                pass
        try:
            npu.Session(mnist, pes=["x"])
        except TypeError:
            pass

    heap, rss = growth(once, 2000)
    # one leaked TensorDesc or exception a call would be > 100 kB here
    assert heap < 20000, heap
    # the models themselves are libnpu's malloc(), which tracemalloc does
    # not see: 2000 leaked models (each holds the file) would be > 100 MB
    assert rss < 8 << 20, rss
