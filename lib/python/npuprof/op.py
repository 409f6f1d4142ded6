# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""npuprof.profile_op(): time one NPU operator in isolation, as RAF's op
profiler does (Documentation/npu/opprof.rst, "Python").

    import npuprof

    r = npuprof.profile_op("conv2d", input=(1, 112, 112, 32), filters=64,
                           kernel=3, stride=1, pad="same")
    print(r["ops"][0]["median_ns"], r["ops"][0]["gmacs"])
    r = npuprof.profile_op(model="mobilenet-v1.nmdl", layer="conv_dw_7")
    npuprof.op_cache_info()      # {"directory": ..., "entries": N, "bytes": B}
    npuprof.op_cache_clear()     # entries removed (RAF's ResetCache)

profile_op() runs `npuprof op ... --format json` and returns its JSON
object as a dict: the same keys as the command's output. Arguments are
checked here first (TypeError for a wrong type, ValueError for a wrong
value); a failure of the command raises OpError with the command's own
one-line message, its exit status in .status (2: the command refused the
arguments, 1: the device, the model or the run failed).

The command is found as the npuprof= argument, else $NPUPROF_CLI, else
the npuprof next to this package in a build tree (build/bin), else on
PATH. Nothing is kept between calls: the result cache is the command's.
"""
import json
import os
import shutil
import subprocess

__all__ = ["OpError", "profile_op", "op_cache_info", "op_cache_clear",
           "OPCODES"]

OPCODES = ("conv2d", "dwconv2d", "avgpool", "maxpool", "fc", "matmul",
           "add", "clip", "pad", "reshape", "transpose", "slice", "concat")


class OpError(RuntimeError):
    """`npuprof op` failed; str() is its message, .status its exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def _cli(npuprof):
    if npuprof is not None:
        if not isinstance(npuprof, (str, os.PathLike)):
            raise TypeError("npuprof must be a path")
        return os.fspath(npuprof)
    env = os.environ.get("NPUPROF_CLI")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "bin", "npuprof")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("npuprof")
    if not found:
        raise OpError("npuprof: the npuprof command is not found (give "
                      "npuprof= or set NPUPROF_CLI)", 127)
    return found


def _int(name, v, lo=0, hi=2**32 - 1):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be an int, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in {lo}..{hi}, not {v}")
    return str(v)


def _ints(name, v, sep, n_min, n_max, lo=1):
    """A shape: "1x112x112x32" or a sequence of ints."""
    if isinstance(v, str):
        parts = v.split(sep)
        if not all(p.isdigit() for p in parts):
            raise ValueError(f"{name}: {v!r} is not {n_min}..{n_max} "
                             f"numbers joined by {sep!r}")
        v = [int(p) for p in parts]
    elif isinstance(v, int) and not isinstance(v, bool) and n_min == 1:
        v = [v]
    elif not isinstance(v, (list, tuple)):
        raise TypeError(f"{name} must be a string or a sequence of ints, "
                        f"not {type(v).__name__}")
    if not n_min <= len(v) <= n_max:
        raise ValueError(f"{name} must have {n_min}..{n_max} values, "
                         f"not {len(v)}")
    return sep.join(_int(name, x, lo) for x in v)


def _pad(v):
    if v in ("same", "valid"):
        return v
    return _ints("pad", v, ",", 4, 4, lo=0)


def _run(args, npuprof, want_json=True):
    exe = _cli(npuprof)
    try:
        p = subprocess.run([exe, "op", *args], capture_output=True)
    except OSError as e:
        raise OpError(f"npuprof: {exe}: {e.strerror}", 127) from None
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode:
        # the message is the first line; the second points to --help
        raise OpError(err.splitlines()[0] if err else
                      f"npuprof op exited with status {p.returncode}",
                      p.returncode)
    out = p.stdout.decode(errors="replace")
    if not want_json:
        return out
    try:
        return json.loads(out)
    except ValueError:
        raise OpError(f"npuprof op: output is not JSON: {out[:80]!r}",
                      1) from None


def profile_op(op=None, *, input=None, filters=None, kernel=None,
               stride=None, pad=None, output=None, perm=None, inputs=None,
               axis=None, layout=None, model=None, layer=None,
               op_index=None, op_count=None, runs=100, warmup=None, pe=None,
               device=None, cache=True, cache_dir=None, timeout_ms=None,
               npuprof=None):
    """Profile one operator on the NPU; the result of `npuprof op` as a dict.

    Either op (an opcode of OPCODES) with input= and the shape options of
    that opcode, or model= with layer= or op_index= (and op_count=).
    Shapes are sequences of ints or "AxBxC" strings; kernel and stride an
    int or a pair; pad "same", "valid" or (top, left, bottom, right).
    runs, warmup, pe, device, cache (False: --no-cache), cache_dir and
    timeout_ms are the command's options. The dict holds "operator",
    "device", "pe", "runs", "warmup", "cached", "peak_gmacs", "ops" (one
    dict per device operator: index, opcode, layer, min_ns, median_ns,
    p99_ns, max_ns, mean_ns, iowait_ns, macs, gmacs, peak_pct, dma_bytes,
    sram_bytes, sram_fits, latency_ns, iowait_dist_ns, run_ns,
    compute_ns, dma_ns) and "total".
    """
    args = []
    if model is not None:
        if op is not None:
            raise ValueError("give op or model, not both")
        if not isinstance(model, (str, os.PathLike)):
            raise TypeError("model must be a path")
        args += ["--model", os.fspath(model)]
        if (layer is None) == (op_index is None):
            raise ValueError("model needs one of layer and op_index")
        if layer is not None:
            if not isinstance(layer, str):
                raise TypeError("layer must be a string")
            if not layer:
                raise ValueError("layer must not be empty")
            args += ["--layer", layer]
        else:
            args += ["--op-index", _int("op_index", op_index)]
        if op_count is not None:
            args += ["--op-count", _int("op_count", op_count, 1, 16)]
        shape = dict(input=input, filters=filters, kernel=kernel,
                     stride=stride, pad=pad, output=output, perm=perm,
                     inputs=inputs, axis=axis, layout=layout)
        given = [k for k, v in shape.items() if v is not None]
        if given:
            raise ValueError(f"model takes no shape arguments ({given[0]})")
    else:
        if op is None:
            raise ValueError("give op (an opcode) or model")
        if not isinstance(op, str):
            raise TypeError(f"op must be a string, not {type(op).__name__}")
        if op.lower() not in OPCODES:
            raise ValueError(f"unknown opcode {op!r}: one of "
                             + ", ".join(OPCODES))
        if layer is not None or op_index is not None or op_count is not None:
            raise ValueError("layer, op_index and op_count need model")
        if input is None:
            raise ValueError("input (the input's dims) is required")
        args += [op.lower(), "--input", _ints("input", input, "x", 1, 4)]
        if filters is not None:
            args += ["--filters", _int("filters", filters, 1)]
        if kernel is not None:
            args += ["--kernel", _ints("kernel", kernel, "x", 1, 2)]
        if stride is not None:
            args += ["--stride", _ints("stride", stride, "x", 1, 2)]
        if pad is not None:
            args += ["--pad", _pad(pad)]
        if output is not None:
            args += ["--output", _ints("output", output, "x", 1, 4)]
        if perm is not None:
            args += ["--perm", _ints("perm", perm, ",", 1, 4, lo=0)]
        if inputs is not None:
            args += ["--inputs", _int("inputs", inputs, 2, 3)]
        if axis is not None:
            args += ["--axis", _int("axis", axis, 0, 3)]
        if layout is not None:
            if layout not in ("nchwc16", "plain"):
                raise ValueError("layout must be 'nchwc16' or 'plain'")
            args += ["--layout", layout]
    args += ["--runs", _int("runs", runs, 1, 100000)]
    if warmup is not None:
        args += ["--warmup", _int("warmup", warmup, 0, 100000)]
    if pe is not None:
        args += ["--pe", _int("pe", pe, 0, 15)]
    if device is not None:
        if not isinstance(device, (str, os.PathLike)):
            raise TypeError("device must be a path")
        args += ["--device", os.fspath(device)]
    if not isinstance(cache, bool):
        raise TypeError("cache must be True or False")
    if not cache:
        args.append("--no-cache")
    if cache_dir is not None:
        args += ["--cache-dir", _path("cache_dir", cache_dir)]
    if timeout_ms is not None:
        args += ["--timeout", _int("timeout_ms", timeout_ms, 1, 3600000)]
    return _run(args + ["--format", "json"], npuprof)


def _path(name, v):
    if not isinstance(v, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path")
    return os.fspath(v)


def op_cache_info(cache_dir=None, *, npuprof=None):
    """The op profiler's cache: {"directory", "entries", "bytes"} (RAF's
    GetCacheSize)."""
    args = ["--cache-info"]
    if cache_dir is not None:
        args += ["--cache-dir", _path("cache_dir", cache_dir)]
    out = _run(args, npuprof, want_json=False)
    info = {}
    for line in out.splitlines():
        key, _, value = line.partition(": ")
        if key == "directory":
            info[key] = value
        elif key in ("entries", "bytes"):
            info[key] = int(value)
    return info


def op_cache_clear(cache_dir=None, *, npuprof=None):
    """Empty the op profiler's cache (RAF's ResetCache); entries removed."""
    args = ["--cache-clear"]
    if cache_dir is not None:
        args += ["--cache-dir", _path("cache_dir", cache_dir)]
    out = _run(args, npuprof, want_json=False)
    words = out.split()
    return int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
