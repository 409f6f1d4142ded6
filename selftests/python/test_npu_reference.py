# SPDX-License-Identifier: GPL-2.0-only
"""npu.reference_run(), the outputs of libnpuref (the host reference of the
NPU's operators), on the host with no device: it equals npu-classify's
reference files (tools/npu-classify/refcache.h: npuref_run() from C) for
MNIST and MobileNet v1, float32 and uint8 outputs and inputs agree, bad
arguments raise, the GIL is released, nothing leaks. test_npu_device.py
checks the device's outputs against it in the guest, with the helpers
here. Runs on the host alone (build/tests/python-npuprof): one MobileNet
takes npuref 4 s here, a minute under TCG."""
import errno
import struct
import subprocess

import numpy as np
import pytest

import npu
from conftest import build_path
from test_npu_host import growth, spinning

# tools/npu-classify/refcache.h: struct nc_ref_hdr, then K output slots
NC_REF_MAGIC = 0x4645524e
NC_REF_HDR = struct.Struct("<IIIIQQ")


def nc_random_input(desc, seed):
    """Input SEED of npu-classify (refcache.c, nc_random_input()): a
    xorshift64 over the input's range, in the same float32 operations."""
    lo = np.float32(np.float32(0 - desc.zero_point) * np.float32(desc.scale))
    hi = np.float32(np.float32(255 - desc.zero_point) * np.float32(desc.scale))
    mask = (1 << 64) - 1
    s = (seed * 0x9e3779b97f4a7c15 + 1) & mask
    n = int(np.prod(desc.shape))
    r = np.empty(n, np.float32)
    for i in range(n):
        s ^= (s << 13) & mask
        s ^= s >> 7
        s ^= (s << 17) & mask
        r[i] = s >> 40          # < 2^24: exact in float32
    return (lo + (hi - lo) * r / np.float32(16777216.0)).reshape(desc.shape)


def read_ref(path, model):
    """The K reference outputs of npu-classify --write-ref PATH (seed,
    list of uint8 arrays). The models' one output is plain, at offset 0 of
    its slot: the slot's first bytes."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, _crc, k, seed, slot = NC_REF_HDR.unpack_from(data)
    assert (magic, version) == (NC_REF_MAGIC, 1), path
    assert len(data) == NC_REF_HDR.size + k * slot, path
    (o,) = model.outputs()
    assert o.layout == "plain" and slot >= int(np.prod(o.shape))
    outs = []
    for j in range(k):
        off = NC_REF_HDR.size + j * slot
        outs.append(np.frombuffer(data, np.uint8, int(np.prod(o.shape)),
                                  off).reshape(o.shape))
    return seed, outs


def dequantize(q, desc):
    """npu_dequantize(): (q - zero_point) * scale in float32."""
    return ((q.astype(np.int32) - desc.zero_point).astype(np.float32) *
            np.float32(desc.scale))


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def mnist_model():
    """BUILD/models/mnist.nmdl, the model of npu-classify's references"""
    return npu.Model(build_path("models", "mnist.nmdl"))


@pytest.fixture(scope="module")
def mobilenet_model():
    return npu.Model(build_path("models", "mobilenet-v1.nmdl"))


def _image(seed, shape=(1, 28, 28, 1)):
    return np.random.default_rng(seed).random(shape, np.float32)

def test_mnist_equals_npu_classify(mnist_model, tmp_path):
    """Against npuref_run() from C: npu-classify --write-ref, 3 inputs."""
    ref = str(tmp_path / "mnist.ref")
    subprocess.run([build_path("bin", "npu-classify"), "-m", mnist_model.path,
                    "-r", "7", "-k", "3", "--write-ref", ref],
                   check=True, capture_output=True)
    seed, outs = read_ref(ref, mnist_model)
    assert seed == 7 and len(outs) == 3
    (i,) = mnist_model.inputs()
    (o,) = mnist_model.outputs()
    for k, want in enumerate(outs):
        x = nc_random_input(i, seed + k)
        (q,) = npu.reference_run(mnist_model, x, output_dtype=np.uint8)
        assert same_bits(q, want), (k, q, want)
        (y,) = npu.reference_run(mnist_model.path, [x])
        assert same_bits(y, dequantize(want, o))
    # three different inputs, three different outputs
    assert len({w.tobytes() for w in outs}) == 3


def test_mobilenet_equals_build_reference(mobilenet_model):
    """Against BUILD/data/mobilenet-v1.ref (npu-classify's, made by make),
    with a thread counting while libnpuref runs: the GIL is released."""
    seed, outs = read_ref(build_path("data", "mobilenet-v1.ref"),
                          mobilenet_model)
    x = nc_random_input(mobilenet_model.inputs()[0], seed)
    with spinning() as ticks:
        t0 = ticks()
        (q,) = npu.reference_run(mobilenet_model, x, output_dtype=np.uint8)
        during = ticks() - t0
    assert same_bits(q, outs[0])
    assert q.shape == (1, 1001)
    # 3.7 s of scalar loops: the spinner ran thousands of times; with the
    # GIL held it would not have run at all
    assert during >= 50, during


def test_float_and_uint8(mnist_model):
    (i,) = mnist_model.inputs()
    (o,) = mnist_model.outputs()
    for seed in range(4):
        x = _image(seed)
        (y,) = npu.reference_run(mnist_model, x)
        (q,) = npu.reference_run(mnist_model, x, output_dtype="uint8")
        assert y.dtype == np.float32 and q.dtype == np.uint8
        assert y.shape == q.shape == o.shape
        assert same_bits(y, dequantize(q, o))
        # npu_quantize(): round half to even, saturated; the same outputs
        xq = np.clip(np.round(x / np.float32(i.scale)) + i.zero_point,
                     0, 255).astype(np.uint8)
        assert same_bits(npu.reference_run(mnist_model, xq)[0], y)
        # deterministic
        assert same_bits(npu.reference_run(mnist_model, x)[0], y)
    a = npu.reference_run(mnist_model, _image(1))[0]
    b = npu.reference_run(mnist_model, _image(2))[0]
    assert not np.array_equal(a, b)


def test_errors(mnist_model, tmp_path):
    x = _image(1)
    with pytest.raises(npu.InputError) as e:
        npu.reference_run(mnist_model, np.zeros((1, 28, 28), np.float32))
    assert e.value.errno == errno.EINVAL and "(1, 28, 28, 1)" in str(e.value)
    with pytest.raises(ValueError, match="float64"):
        npu.reference_run(mnist_model, x.astype(np.float64))
    with pytest.raises(npu.InputError, match="takes 1 input, 2 given"):
        npu.reference_run(mnist_model, [x, x])
    with pytest.raises(TypeError):
        npu.reference_run(mnist_model, 3)
    with pytest.raises(TypeError):
        npu.reference_run(42, x)
    with pytest.raises(TypeError):
        npu.reference_run(mnist_model)
    for bad in (np.int8, np.float64, "int32"):
        with pytest.raises(ValueError, match="output_dtype"):
            npu.reference_run(mnist_model, x, output_dtype=bad)
    with pytest.raises(TypeError):
        npu.reference_run(mnist_model, x, output_dtype="no such dtype")
    missing = str(tmp_path / "nope.nmdl")
    with pytest.raises(npu.Error) as e:
        npu.reference_run(missing, x)
    assert e.value.errno == errno.ENOENT and e.value.filename == missing
    # a non-contiguous input is copied
    f = np.asfortranarray(x)
    assert same_bits(npu.reference_run(mnist_model, f)[0],
                     npu.reference_run(mnist_model, x)[0])


def test_no_leak(mnist_model):
    x = _image(3)

    def once():
        npu.reference_run(mnist_model, x)
        npu.reference_run(mnist_model.path, [x], output_dtype=np.uint8)
        try:
            npu.reference_run(mnist_model, x[0])
        except npu.InputError:
            pass

    heap, rss = growth(once, 300, warm=20)
    assert heap < 20000, heap
    # libnpuref's slots are malloc() (22 kB of MNIST a run): 900 leaked
    # runs would be 20 MB
    assert rss < 4 << 20, rss
