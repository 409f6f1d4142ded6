# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""npuprof: profile a running program and read .npuprof trace files.

    import npuprof

    with npuprof.profile(file="run.json", format="chrome") as profiler:
        with profiler.record("warm up"):
            ...
        with profiler.record("trace"):
            ...
    profiler.print_summary()
    df = profiler.get_pandas_dataframe()
    print(df[df["name"] == "trace"][["trace_id", "name", "thread.id", "dur"]])

    with npuprof.open("mnist.npuprof") as trace:
        trace.print_summary()
        df = trace.npu_executions()

profile() is a context manager and a decorator over a libnpuprof session
(FuriosaAI's profiler.profile, MegEngine's @profile()); start(), stop(),
get(), clear() and dump() are RAF's shape of the same. npuprof.open()
reads a trace file: Trace.print_summary(), print_inferences(),
print_npu_executions(), print_npu_operators() and
print_external_operators() print what `npuprof summary` and `npuprof
report` print; inferences(), npu_executions(), npu_operators(),
external_operators(), spans() and npu_operator_records() return pandas
DataFrames with the columns and values of `npuprof report --format csv`
(columns=[...] keeps only those); get_pandas_dataframe() has every span,
NPU execution and NPU operator record in the reference profiler's
columns; analyze(), breakdown() and npuprof.diff(a, b) give the tables of
`npuprof analyze` and `npuprof diff` as DataFrames; export_chrome(path)
and export_sqlite(path) write the exports. Errors of
the libraries raise npuprof.Error, a subclass of OSError (errno,
strerror, filename). Documentation/npu/python.rst has the details.
"""
import contextlib
import enum
import errno as _errno
import functools
import io
import os
import shutil
import tempfile
import threading

from ._npuprof import Error, Trace, diff, open
from . import _npuprof
from .op import OpError, op_cache_clear, op_cache_info, profile_op  # noqa: F401

__all__ = ["Error", "Trace", "diff", "open", "profile", "Profile",
           "RecordFormat",
           "record", "start", "stop", "get", "clear", "dump"]


class RecordFormat(str, enum.Enum):
    """The formats of profile(format=...), with FuriosaAI's names."""
    ChromeTrace = "chrome"
    Npuprof = "npuprof"
    PandasDataFrame = "pandas"


_FORMATS = ("chrome", "npuprof", "pandas")


def _check(format, level):
    if isinstance(format, RecordFormat):
        format = format.value
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, "
                         f"not {format!r}")
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"level must be an int, not {type(level).__name__}")
    if not 0 <= level <= 2:
        raise ValueError(f"level must be 0, 1 or 2, not {level}")
    return format


def _write_out(src, file, binary):
    """Copy the file @src to @file: a path or an open file object."""
    if isinstance(file, (str, bytes, os.PathLike)):
        shutil.copyfile(src, file)
        return
    mode = "rb" if binary or not isinstance(file, io.TextIOBase) else "r"
    with io.open(src, mode) as f:
        shutil.copyfileobj(f, file)
    if hasattr(file, "flush"):
        file.flush()


class _Record:
    """profiler.record(label): a labelled region of this thread."""
    __slots__ = ("label",)

    def __init__(self, label):
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, not {type(label).__name__}")
        self.label = label

    def __enter__(self):
        _npuprof.region_begin(self.label)
        return self

    def __exit__(self, *exc):
        _npuprof.region_end()
        return False


class Profile(contextlib.ContextDecorator):
    """What profile() returns: a context manager and a decorator."""

    def __init__(self, file=None, format="chrome", level=2, output_path=None):
        self.format = _check(format, level)
        self.level = level
        self.file = file
        self.output_path = output_path
        self._session = None
        self._trace = None
        self._tmp = None
        self._keep = False	# keep a temporary trace file until close()

    # -- capture --------------------------------------------------------

    def _output(self):
        if self.output_path is not None:
            return os.fspath(self.output_path), None
        if self.format == "npuprof" and isinstance(
                self.file, (str, bytes, os.PathLike)):
            return os.fspath(self.file), None
        fd, tmp = tempfile.mkstemp(prefix="npuprof-", suffix=".npuprof")
        os.close(fd)
        return tmp, tmp

    def start(self):
        if self._session is not None:
            raise Error(_errno.EALREADY, "the profiler is running")
        self.close()
        out, tmp = self._output()
        try:
            sess = _npuprof.session(out, self.level)
            try:
                sess.start()
            except BaseException:
                sess.close()
                raise
        except BaseException:
            if tmp:
                os.unlink(tmp)
            raise
        self._session, self._tmp = sess, tmp
        return self

    def stop(self):
        """Stop the session, complete the file, open it as the Trace and
        write file in the chosen format."""
        sess = self._session
        if sess is None:
            raise Error(_errno.EINVAL, "the profiler is not running")
        self._session = None
        try:
            sess.stop()
        finally:
            sess.close()
        path = sess.output
        try:
            self._trace = open(path)
            if self.file is not None:
                if self.format == "chrome":
                    self._write_chrome(self.file)
                elif self.format == "npuprof" and (
                        self._tmp or self.output_path is not None):
                    _write_out(path, self.file, True)
        finally:
            if self._tmp and not self._keep:	# the Trace keeps it open
                os.unlink(self._tmp)
                self._tmp = None

    def _write_chrome(self, file):
        if isinstance(file, (str, bytes, os.PathLike)):
            self.trace.export_chrome(file)
            return
        with tempfile.TemporaryDirectory(prefix="npuprof-") as d:
            tmp = os.path.join(d, "trace.json")
            self.trace.export_chrome(tmp)
            _write_out(tmp, file, False)

    def pause(self):
        if self._session is None:
            raise Error(_errno.EINVAL, "the profiler is not running")
        self._session.pause()

    def resume(self):
        if self._session is None:
            raise Error(_errno.EINVAL, "the profiler is not running")
        self._session.resume()

    def record(self, label):
        """A labelled region (npuprof_region_begin()/_end()) of this
        thread, as a context manager."""
        return _Record(label)

    def stats(self):
        """The counters of the running session (npuprof_session_stats())."""
        if self._session is None:
            raise Error(_errno.EINVAL, "the profiler is not running")
        return self._session.stats()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _recreate_cm(self):
        return self

    # -- results --------------------------------------------------------

    @property
    def running(self):
        return self._session is not None

    @property
    def trace(self):
        """The Trace of the last capture (npuprof.open() of its file)."""
        if self._trace is None:
            raise Error(_errno.ENODATA, "nothing captured: the profiler "
                        + ("is running" if self._session else "has no result"))
        return self._trace

    def close(self):
        """Drop the result; a running session is stopped and discarded."""
        sess, self._session = self._session, None
        if sess is not None:
            sess.close()
        if self._tmp:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
            self._tmp = None
        trace, self._trace = self._trace, None
        if trace is not None:
            trace.close()

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()

    def get_pandas_dataframe(self):
        return self.trace.get_pandas_dataframe()

    def _delegate(name):
        def method(self, *args, **kw):
            return getattr(self.trace, name)(*args, **kw)
        method.__name__ = name
        method.__doc__ = f"Trace.{name}() of the captured trace."
        return method

    for _name in ("print_summary", "print_inferences", "print_npu_executions",
                  "print_npu_operators", "print_external_operators",
                  "summary", "inferences", "npu_executions", "npu_operators",
                  "external_operators", "spans", "npu_operator_records",
                  "table", "export_chrome", "export_sqlite",
                  "get_max_memory_info", "get_memory_trace", "memory"):
        locals()[_name] = _delegate(_name)
    del _name, _delegate


def profile(file=None, format="chrome", level=2, output_path=None):
    """Profile a block or, as a decorator, every call of a function.

    file: where the result goes when the block ends (a path or an open
    file object): Chrome JSON with format "chrome", the .npuprof trace
    with "npuprof"; nothing is written with "pandas". level: the trace
    level of the device rings (0..2). output_path: the trace file the
    session writes (default: a temporary file, removed once read).
    """
    return Profile(file=file, format=format, level=level,
                   output_path=output_path)


def record(label):
    """A labelled region of this thread (Profile.record() without a
    Profile), for start()/stop()."""
    return _Record(label)


# -- RAF's shape: one global profiler ------------------------------------

_global_lock = threading.Lock()
_global = None


def start(level=2, output_path=None):
    """Start the process's profiler (RAF's profiler.start()); a previous
    result is dropped."""
    global _global
    with _global_lock:
        if _global is not None and _global.running:
            raise Error(_errno.EALREADY, "the profiler is running")
        if _global is not None:
            _global.close()
        p = Profile(format="pandas", level=level, output_path=output_path)
        p._keep = True	# for dump(format="npuprof")
        p.start()
        _global = p


def stop():
    """Stop the process's profiler; get() then returns what it captured."""
    with _global_lock:
        if _global is None or not _global.running:
            raise Error(_errno.EINVAL, "the profiler is not running")
        _global.stop()


def get():
    """The Trace of what the process's profiler captured."""
    with _global_lock:
        if _global is None:
            raise Error(_errno.ENODATA, "nothing captured: call start()")
        return _global.trace


def clear():
    """Drop the captured result (and a running session)."""
    global _global
    with _global_lock:
        p, _global = _global, None
    if p is not None:
        p.close()


def dump(path, format="chrome"):
    """Write the captured result to path: Chrome JSON, or with format
    "npuprof" the trace file."""
    fmt = _check(format, 2)
    if fmt == "pandas":
        raise ValueError("dump() writes 'chrome' or 'npuprof'")
    trace = get()
    if fmt == "chrome":
        trace.export_chrome(path)
    else:
        _write_out(trace.path, path, True)
