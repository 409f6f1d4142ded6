# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""npuprof: read .npuprof trace files from Python.

    import npuprof
    with npuprof.open("mnist.npuprof") as trace:
        trace.print_summary()
        df = trace.npu_executions()

Trace.print_summary(), print_inferences(), print_npu_executions(),
print_npu_operators() and print_external_operators() print what
`npuprof summary` and `npuprof report` print; inferences(),
npu_executions(), npu_operators(), external_operators(), spans() and
npu_operator_records() return pandas DataFrames with the columns and
values of `npuprof report --format csv`; export_chrome(path) and
export_sqlite(path) write the exports. Errors of the trace library raise
npuprof.Error, a subclass of OSError (errno, strerror, filename).
Documentation/npu/python.rst has the details.
"""
from ._npuprof import Error, Trace, open

__all__ = ["Error", "Trace", "open"]
