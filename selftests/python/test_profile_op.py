# SPDX-License-Identifier: GPL-2.0-only
"""npuprof.profile_op() and the op cache functions (lib/python/npuprof/op.py):
argument checking, the command line they build, the dict they return, the
failures they raise; on the host with the real npuprof (no device) and a
stand-in that records its arguments. With /dev/npu0 (the VM) the real
thing: a measured operator, then the same from the cache."""
import json
import os
import stat
import sys

import pytest

import npuprof
from conftest import build_path

FAKE_RESULT = {"operator": "clip in=8 out=8 layout=nchwc16", "runs": 3,
               "cached": False, "ops": [{"index": 0, "median_ns": 1234}],
               "total": {"median_ns": 1234}}


@pytest.fixture
def fake(tmp_path):
    """A stand-in npuprof: writes its arguments to args.json, prints
    FAKE_RESULT (or fails as $FAKE_FAIL says)."""
    script = tmp_path / "npuprof"
    log = tmp_path / "args.json"
    script.write_text(f"""#!{sys.executable}
import json, os, sys
json.dump(sys.argv[1:], open({str(log)!r}, "w"))
fail = os.environ.get("FAKE_FAIL")
if fail:
    status, msg = fail.split(":", 1)
    sys.stderr.write(msg + "\\nTry 'npuprof op --help' for more information.\\n")
    sys.exit(int(status))
if "--cache-info" in sys.argv:
    print("directory: /c\\nentries: 3\\nbytes: 4242")
elif "--cache-clear" in sys.argv:
    print("removed 3 entries from /c")
else:
    print({json.dumps(json.dumps(FAKE_RESULT))})
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)

    def args():
        return json.loads(log.read_text())
    return str(script), args


def test_exported():
    for name in ("profile_op", "op_cache_info", "op_cache_clear", "OpError"):
        assert hasattr(npuprof, name)
    assert issubclass(npuprof.OpError, RuntimeError)


def test_opcode_arguments(fake):
    exe, args = fake
    r = npuprof.profile_op("conv2d", input=(1, 112, 112, 32), filters=64,
                           kernel=3, stride=(2, 1), pad="same", runs=7,
                           warmup=2, pe=1, device="/dev/npu1", cache=False,
                           cache_dir="/tmp/c", timeout_ms=500, npuprof=exe)
    assert r == FAKE_RESULT
    assert args() == ["op", "conv2d", "--input", "1x112x112x32",
                      "--filters", "64", "--kernel", "3", "--stride", "2x1",
                      "--pad", "same", "--runs", "7", "--warmup", "2",
                      "--pe", "1", "--device", "/dev/npu1", "--no-cache",
                      "--cache-dir", "/tmp/c", "--timeout", "500",
                      "--format", "json"]
    npuprof.profile_op("PAD", input="1x8x8x16", pad=[1, 2, 3, 4],
                       npuprof=exe)
    assert args()[:6] == ["op", "pad", "--input", "1x8x8x16", "--pad",
                          "1,2,3,4"]
    npuprof.profile_op("transpose", input=[2, 3, 4], perm=(0, 2, 1),
                       layout="plain", npuprof=exe)
    assert "--perm" in args() and args()[args().index("--perm") + 1] == "0,2,1"
    npuprof.profile_op("concat", input=(4, 4), inputs=3, axis=1,
                       npuprof=exe)
    assert args()[4:8] == ["--inputs", "3", "--axis", "1"]


def test_model_arguments(fake):
    exe, args = fake
    npuprof.profile_op(model="m.nmdl", layer="conv_dw_7", npuprof=exe)
    assert args() == ["op", "--model", "m.nmdl", "--layer", "conv_dw_7",
                      "--runs", "100", "--format", "json"]
    npuprof.profile_op(model="m.nmdl", op_index=12, op_count=3, runs=5,
                       npuprof=exe)
    assert args() == ["op", "--model", "m.nmdl", "--op-index", "12",
                      "--op-count", "3", "--runs", "5", "--format", "json"]


@pytest.mark.parametrize("kwargs,exc", [
    (dict(), ValueError),
    (dict(op=3, input=(1,)), TypeError),
    (dict(op="conv3d", input=(1,)), ValueError),
    (dict(op="clip"), ValueError),
    (dict(op="clip", input=(1, 2, 3, 4, 5)), ValueError),
    (dict(op="clip", input=(1, 0)), ValueError),
    (dict(op="clip", input=(1, -2)), ValueError),
    (dict(op="clip", input=(1, 2.0)), TypeError),
    (dict(op="clip", input=(1, True)), TypeError),
    (dict(op="clip", input="1x2y3"), ValueError),
    (dict(op="clip", input=1.5), TypeError),
    (dict(op="conv2d", input=(1, 8, 8, 3), filters="4"), TypeError),
    (dict(op="conv2d", input=(1, 8, 8, 3), kernel=(3, 3, 3)), ValueError),
    (dict(op="conv2d", input=(1, 8, 8, 3), pad="full"), ValueError),
    (dict(op="conv2d", input=(1, 8, 8, 3), pad=(1, 1)), ValueError),
    (dict(op="clip", input=(8,), layout="nhwc"), ValueError),
    (dict(op="clip", input=(8,), runs=0), ValueError),
    (dict(op="clip", input=(8,), runs="5"), TypeError),
    (dict(op="clip", input=(8,), pe=16), ValueError),
    (dict(op="clip", input=(8,), cache="no"), TypeError),
    (dict(op="clip", input=(8,), device=5), TypeError),
    (dict(op="clip", input=(8,), layer="x"), ValueError),
    (dict(op="clip", model="m.nmdl", layer="x"), ValueError),
    (dict(model="m.nmdl"), ValueError),
    (dict(model="m.nmdl", layer="a", op_index=1), ValueError),
    (dict(model="m.nmdl", layer=""), ValueError),
    (dict(model="m.nmdl", layer=7), TypeError),
    (dict(model=7, layer="a"), TypeError),
    (dict(model="m.nmdl", op_index=-1), ValueError),
    (dict(model="m.nmdl", op_index=1, op_count=17), ValueError),
    (dict(model="m.nmdl", op_index=1, input=(1,)), ValueError),
])
def test_bad_arguments(fake, kwargs, exc):
    exe, args = fake
    with pytest.raises(exc):
        npuprof.profile_op(npuprof=exe, **kwargs)


def test_failure_raises_with_message(fake, monkeypatch):
    exe, _ = fake
    monkeypatch.setenv("FAKE_FAIL", "1:npuprof: op: /dev/npu0: No such file or directory")
    with pytest.raises(npuprof.OpError) as e:
        npuprof.profile_op("clip", input=(8,), npuprof=exe)
    assert str(e.value) == "npuprof: op: /dev/npu0: No such file or directory"
    assert e.value.status == 1


def test_not_json(tmp_path):
    exe = tmp_path / "npuprof"
    exe.write_text("#!/bin/sh\necho not json\n")
    exe.chmod(0o755)
    with pytest.raises(npuprof.OpError, match="not JSON"):
        npuprof.profile_op("clip", input=(8,), npuprof=str(exe))


def test_missing_cli(tmp_path):
    with pytest.raises(npuprof.OpError) as e:
        npuprof.profile_op("clip", input=(8,),
                           npuprof=str(tmp_path / "absent"))
    assert e.value.status == 127


def test_cache_functions_fake(fake):
    exe, args = fake
    assert npuprof.op_cache_info(npuprof=exe) == {
        "directory": "/c", "entries": 3, "bytes": 4242}
    assert args() == ["op", "--cache-info"]
    assert npuprof.op_cache_clear("/c", npuprof=exe) == 3
    assert args() == ["op", "--cache-clear", "--cache-dir", "/c"]
    with pytest.raises(TypeError):
        npuprof.op_cache_info(5, npuprof=exe)


# ---- the real command, no device needed ----

def real():
    return build_path("bin", "npuprof")


def test_real_usage_error():
    with pytest.raises(npuprof.OpError) as e:
        npuprof.profile_op("conv2d", input=(1, 8, 8, 3), filters=2, kernel=9,
                           npuprof=real())
    assert e.value.status == 2
    assert str(e.value) == ("npuprof op: conv2d: the kernel does not fit "
                            "the padded input")


def test_real_no_device():
    with pytest.raises(npuprof.OpError) as e:
        npuprof.profile_op("clip", input=(8,), device="/nonexistent/npu",
                           npuprof=real())
    assert e.value.status == 1
    assert "/nonexistent/npu: No such file or directory" in str(e.value)


def test_real_cache(tmp_path):
    d = tmp_path / "cache"
    assert npuprof.op_cache_info(d, npuprof=real()) == {
        "directory": str(d), "entries": 0, "bytes": 0}
    d.mkdir()
    (d / "0123456789abcdef.op").write_bytes(b"x" * 10)
    (d / "other.txt").write_bytes(b"y")
    assert npuprof.op_cache_info(d, npuprof=real())["entries"] == 1
    assert npuprof.op_cache_info(d, npuprof=real())["bytes"] == 10
    assert npuprof.op_cache_clear(d, npuprof=real()) == 1
    assert npuprof.op_cache_info(d, npuprof=real())["entries"] == 0
    assert (d / "other.txt").exists()


# ---- on the device (the VM) ----

@pytest.mark.skipif(not os.path.exists("/dev/npu0"), reason="no /dev/npu0")
def test_device_and_cache(tmp_path):
    kw = dict(input=(1, 16, 16, 32), kernel=3, pad="same", runs=4, warmup=1,
              cache_dir=tmp_path, npuprof=real())
    r = npuprof.profile_op("dwconv2d", **kw)
    assert r["cached"] is False
    assert r["runs"] == 4
    op = r["ops"][0]
    assert op["opcode"] == "dwconv2d"
    assert op["macs"] == 16 * 16 * 32 * 9
    assert op["min_ns"] <= op["median_ns"] <= op["p99_ns"] <= op["max_ns"]
    again = npuprof.profile_op("dwconv2d", **kw)
    assert again["cached"] is True
    assert again["ops"][0]["min_ns"] == op["min_ns"]
    assert npuprof.op_cache_info(tmp_path, npuprof=real())["entries"] == 1
