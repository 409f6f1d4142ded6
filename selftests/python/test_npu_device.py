# SPDX-License-Identifier: GPL-2.0-only
"""The runtime package npu on a device (/dev/npu0: in the VM, see
tools/vm/npu-vm): run, submit/wait from several threads, the GIL released
during a run, uint8 outputs, Futures freed without a wait, bad inputs and
a closed session; the outputs of MNIST and MobileNet v1 on every PE equal
libnpuref's bit for bit (npu.reference_run() in the guest for MNIST; for
MobileNet, whose reference takes a minute under TCG, the one the build
computed on the host, BUILD/data/mobilenet-v1.ref). Skipped on the host."""
import errno
import os
import threading
import time

import numpy as np
import pytest

import npu
from conftest import build_path
# the model fixture (to move to conftest.py with the package's next tests)
from test_npu_host import mnist, spinning  # noqa: F401
# the models of the build, their references and helpers
from test_npu_reference import (dequantize, mnist_model,  # noqa: F401
                                mobilenet_model, nc_random_input, read_ref,
                                same_bits)

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/npu0"),
                                reason="no /dev/npu0 (run in the VM)")
# the emulator's PEs (npu-vm exports them; 2 by default)
PES = int(os.environ.get("NPU_EMU_PES", "2"))


@pytest.fixture
def sess(mnist):
    with npu.Session(mnist, contexts=4) as s:
        yield s


def _image(seed):
    return np.random.default_rng(seed).random((1, 28, 28, 1), np.float32)


def test_run(sess):
    (o,) = sess.outputs()
    (y,) = sess.run(_image(1))
    assert y.shape == (1, 10) and y.dtype == np.float32
    # dequantized: every value is (q - zero_point) * scale, q in 0..255
    q = y / np.float32(o.scale) + o.zero_point
    assert np.allclose(q, np.round(q), atol=1e-3)
    assert q.min() >= -1e-3 and q.max() <= 255 + 1e-3
    # deterministic, and a list of one array is the same input
    (y2,) = sess.run([_image(1)])
    assert np.array_equal(y, y2)
    (y3,) = sess.run(_image(2))
    assert not np.array_equal(y, y3)


def test_uint8_input_is_quantized_float(sess):
    (i,) = sess.inputs()
    x = _image(3)
    q = np.clip(np.round(x / i.scale) + i.zero_point, 0, 255).astype(np.uint8)
    assert np.array_equal(sess.run(x)[0], sess.run(q)[0])


def test_submit_wait(sess):
    xs = [_image(s) for s in range(4)]
    want = [sess.run(x)[0] for x in xs]
    futs = [sess.submit(x) for x in xs]
    for f, w in zip(futs, want):
        (y,) = f.wait(timeout=60)
        assert np.array_equal(y, w)
        assert f.done()
        assert f.job["status"] == 0
        assert f.job["complete_ns"] >= f.job["submit_ns"] > 0
        assert np.array_equal(f.result()[0], w)  # again: the same result


def test_threads(sess):
    xs = [_image(s) for s in range(8)]
    want = [sess.run(x)[0] for x in xs]
    got = [None] * len(xs)

    def worker(k):
        got[k] = sess.run(xs[k])[0]
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(len(xs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_gil_released(sess):
    with spinning(0.0005) as ticks:
        t0 = ticks()
        start = time.monotonic()
        for s in range(5):
            sess.run(_image(s))
        elapsed = time.monotonic() - start
        during = ticks() - t0
    # the spinner runs while the device works: at least a tick per 20 ms
    assert during >= max(2, int(elapsed / 0.02)), (during, elapsed)


def test_uint8_outputs(mnist):
    """output_dtype=uint8: the device's quantized values, of the dtype
    outputs() reports; the float32 outputs are exactly their Dequantize."""
    m = npu.Model(mnist)
    with npu.Session(m, output_dtype=np.uint8) as s8, npu.Session(m) as sf:
        (o8,) = s8.outputs()
        (of,) = sf.outputs()
        assert o8.dtype == np.uint8 and of.dtype == np.float32
        assert m.outputs()[0].dtype == np.uint8     # the device tensor's
        assert (o8.name, o8.shape, o8.scale, o8.zero_point, o8.layout) == \
            (of.name, of.shape, of.scale, of.zero_point, of.layout)
        seen = set()
        for seed in range(4):
            x = _image(seed)
            (q,) = s8.run(x)
            (y,) = sf.run(x)
            assert q.dtype == o8.dtype and q.shape == o8.shape
            assert y.dtype == of.dtype and y.shape == of.shape
            assert same_bits(dequantize(q, o8), y)
            (q2,) = s8.submit([x]).wait(timeout=60)
            assert q2.dtype == np.uint8 and np.array_equal(q2, q)
            seen.add(q.tobytes())
        assert len(seen) == 4
    for spelling in ("uint8", np.dtype("u1")):
        with npu.Session(m, output_dtype=spelling) as s:
            assert s.outputs()[0].dtype == np.uint8
            assert s.run(_image(1))[0].dtype == np.uint8
    with npu.Session(m, output_dtype="float32") as s:
        assert s.run(_image(1))[0].dtype == np.float32


def test_dropped_futures(mnist):
    """A Future freed without a wait does not wait for its job (which on a
    stalled PE could be for ever, test_npu_stall.py): the session collects
    its context later. With one context, every submit() collects the one
    before."""
    with npu.Session(mnist, contexts=1) as s:
        (want,) = s.run(_image(5))
        for _ in range(6):
            s.submit(_image(6))
        fut = s.submit(_image(6))
        del fut
        (y,) = s.run(_image(5))
        assert np.array_equal(y, want)
    # closed with a dropped Future still on the device: freed at the end
    s = npu.Session(mnist)
    s.submit(_image(1))
    s.close()
    del s


def test_bad_inputs(sess):
    with pytest.raises(npu.InputError) as e:
        sess.run(np.zeros((1, 28, 28), np.float32))
    assert e.value.errno == errno.EINVAL
    assert "(1, 28, 28)" in str(e.value) and "(1, 28, 28, 1)" in str(e.value)
    with pytest.raises(ValueError) as e:
        sess.run(np.zeros((1, 28, 28, 1), np.float64))
    assert "float64" in str(e.value)
    with pytest.raises(npu.InputError) as e:
        sess.run([_image(1), _image(2)])
    assert "takes 1 input, 2 given" in str(e.value)
    with pytest.raises(TypeError):
        sess.run(42)
    with pytest.raises(TypeError):
        sess.run([[0.0] * 784])
    with pytest.raises(TypeError):
        sess.run(_image(1), timeout="x")
    # a non-contiguous array is copied
    x = np.asfortranarray(_image(4))
    assert np.array_equal(sess.run(x)[0], sess.run(_image(4))[0])


def test_closed(mnist):
    s = npu.Session(mnist)
    fut = s.submit(_image(1))
    s.close()
    assert s.closed
    for call in (lambda: s.run(_image(1)), lambda: s.submit(_image(1)),
                 s.inputs, s.outputs, s.__enter__):
        with pytest.raises(ValueError, match="closed session"):
            call()
    # a Future of before close() still completes
    (y,) = fut.wait()
    assert y.shape == (1, 10)
    s.close()  # twice is fine


@pytest.mark.parametrize("pe", range(PES))
def test_mnist_equals_reference(mnist_model, pe):
    """Each PE, float32 and uint8 outputs, run() and submit(): libnpuref's
    outputs computed in the guest, bit for bit."""
    (o,) = mnist_model.outputs()
    xs = [_image(100 + k) for k in range(4)]
    refs = [npu.reference_run(mnist_model, x, output_dtype=np.uint8)[0]
            for x in xs]
    assert len({r.tobytes() for r in refs}) == len(xs)
    with npu.Session(mnist_model, pes=[pe]) as sf, \
            npu.Session(mnist_model, pes=[pe], output_dtype=np.uint8) as s8:
        for x, want in zip(xs, refs):
            (q,) = s8.run(x)
            assert same_bits(q, want), (pe, q, want)
            (y,) = sf.run(x)
            assert same_bits(y, dequantize(want, o))
        futs = [s8.submit(x) for x in xs[:2]]
        for f, want in zip(futs, refs):
            assert same_bits(f.wait(timeout=60)[0], want)
            assert f.job["pe"] == pe


@pytest.fixture(scope="module")
def mobilenet_ref(mobilenet_model):
    """(inputs, reference uint8 outputs) of BUILD/data/mobilenet-v1.ref"""
    seed, outs = read_ref(build_path("data", "mobilenet-v1.ref"),
                          mobilenet_model)
    (i,) = mobilenet_model.inputs()
    return [nc_random_input(i, seed + k) for k in range(len(outs))], outs


@pytest.mark.parametrize("pe", range(PES))
def test_mobilenet_equals_reference(mobilenet_model, mobilenet_ref, pe):
    """MobileNet v1 on each PE, both inputs of the build's reference."""
    (o,) = mobilenet_model.outputs()
    xs, outs = mobilenet_ref
    assert len(outs) == 2 and outs[0].tobytes() != outs[1].tobytes()
    with npu.Session(mobilenet_model, pes=[pe]) as sf, \
            npu.Session(mobilenet_model, pes=[pe],
                        output_dtype=np.uint8) as s8:
        for k, (x, want) in enumerate(zip(xs, outs)):
            (q,) = s8.run(x)
            assert same_bits(q, want), (pe, k)
            (y,) = sf.run(x)
            assert same_bits(y, dequantize(want, o))
