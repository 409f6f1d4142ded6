# SPDX-License-Identifier: GPL-2.0-only
"""Execute one Jupyter notebook with nbclient, as `jupyter nbconvert --execute`
does, and write the executed copy (outputs, PNGs included).

Usage: execute.py NOTEBOOK OUTPUT KERNEL_NAME TIMEOUT

The kernel is KERNEL_NAME, a kernelspec the caller puts on JUPYTER_PATH (run.sh:
Debian's /usr/bin/python3 -m ipykernel_launcher). Exits 0 when every cell ran,
1 when a cell raised (its traceback goes to stdout), 2 when the notebook is
not valid nbformat 4 or the kernel did not start."""
import os
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main():
    path, out, kernel, timeout = sys.argv[1:5]
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # noqa: BLE001: any parse or schema error
        print(f"{path}: not a valid nbformat 4 notebook: {e}")
        return 2
    if nb.nbformat != 4:
        print(f"{path}: nbformat {nb.nbformat}, not 4")
        return 2
    client = NotebookClient(
        nb, kernel_name=kernel, timeout=int(timeout), startup_timeout=60,
        allow_errors=False, record_timing=True,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
    t0 = time.monotonic()
    status = 0
    try:
        client.execute()
    except CellExecutionError as e:
        # IPython colours its tracebacks: no escape sequences in the TAP log
        print(re.sub(r"\x1b\[[0-9;]*m", "", str(e)))
        status = 1
    except Exception as e:  # noqa: BLE001: kernel died, timeout, ...
        print(f"{type(e).__name__}: {e}")
        status = 2
    finally:
        nbformat.write(nb, out)
    # A cell's error output without an exception would be a bug of nbclient,
    # but it costs nothing to check.
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error" and status == 0:
                print(f"cell {i}: {o.get('ename')}: {o.get('evalue')}")
                status = 1
    images = sum(1 for c in nb.cells for o in c.get("outputs", [])
                 if "image/png" in o.get("data", {}))
    print(f"{len(nb.cells)} cells, {images} PNG outputs, "
          f"{time.monotonic() - t0:.1f} s; executed copy: {out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
