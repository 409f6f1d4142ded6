# SPDX-License-Identifier: GPL-2.0-only
"""npu on a stalled PE: npu-emu --stall-pe N takes jobs on PE N and never
completes them, until the driver resets the device when the oldest has run
past its job_timeout_ms (module parameter; it then fails with
NPU_JOB_TIMEOUT, the others with NPU_JOB_ABORTED).

run() and wait() with a timeout raise npu.Error ETIMEDOUT and return (the
device's reset counter shows that they did not wait for the driver's);
waiting again works; without a timeout the wait ends with the driver's
reset as npu.Error EIO naming the status; a Future freed while its job is
stalled does not wait for it; contexts held by such jobs make a run() time
out, not hang; the GIL is released while stalled; the other PE's results
stay bit-exact.

Needs /dev/npu0 and NPU_EMU_STALL_PE (npu-vm --stall-pe N exports it): run
in the guest by $(BUILD)/vmtests/python-npu-stall (vm.sh), whose options
file has --stall-pe 1; skipped elsewhere. It sets job_timeout_ms to
JOB_TIMEOUT_MS and restores it. No assertion is on time taken."""
import errno
import gc
import json
import os
import subprocess

import numpy as np
import pytest

import npu
from conftest import build_path
# the model fixture: npu-model-gen -o ... mnist
from test_npu_host import mnist, spinning  # noqa: F401

STALL = os.environ.get("NPU_EMU_STALL_PE")
pytestmark = pytest.mark.skipif(
    not os.path.exists("/dev/npu0") or STALL is None,
    reason="needs /dev/npu0 and NPU_EMU_STALL_PE (npu-vm --stall-pe N)")

PARAM = "/sys/module/npu/parameters/job_timeout_ms"
# the driver's reset comes this long after a stalled job became its PE's
# oldest: far beyond the timeouts below (0.2 to 0.5 s), as the checks
# that nothing waited for it need
JOB_TIMEOUT_MS = 2500
NPU_JOB_ABORTED = 6
NPU_JOB_TIMEOUT = 8


@pytest.fixture(scope="module", autouse=True)
def job_timeout():
    with open(PARAM) as f:
        saved = f.read().strip()
    with open(PARAM, "w") as f:
        f.write(str(JOB_TIMEOUT_MS))
    yield
    with open(PARAM, "w") as f:
        f.write(saved)


@pytest.fixture(autouse=True)
def no_stalled_job_left():
    """Each test starts with no stalled job, as its counts need: the
    sessions of the one before, which the tracebacks pytest.raises() keeps
    may hold in a reference cycle, are freed now, and freeing a session
    waits for its jobs (until the driver's reset)."""
    yield
    gc.collect()


@pytest.fixture(scope="module")
def pes():
    """(the stalled PE, a PE that runs jobs)"""
    stalled = int(STALL)
    n = int(os.environ.get("NPU_EMU_PES", "2"))
    assert n >= 2 and stalled < n, (stalled, n)
    return stalled, (stalled + 1) % n


def stats():
    """npu0's counters (npuprof devices --stats: the driver's netlink)."""
    out = subprocess.run([build_path("bin", "npuprof"), "devices", "--stats",
                          "--format", "json"], check=True,
                         capture_output=True).stdout
    return json.loads(out)[0]["stats"]


def failed(st, pe):
    return [p for p in st["pes"] if p["pe"] == pe][0]["jobs_failed"]


def _image(seed):
    return np.random.default_rng(seed).random((1, 28, 28, 1), np.float32)


def test_run_times_out(mnist, pes):
    stalled, _ = pes
    with npu.Session(mnist, pes=[stalled]) as s:
        before = stats()
        with pytest.raises(npu.Error) as e:
            s.run(_image(1), timeout=0.3)
        after = stats()
        err = e.value
        assert isinstance(err, OSError) and not isinstance(err, ValueError)
        assert err.errno == errno.ETIMEDOUT
        assert "did not complete within 0.300 s" in err.strerror
        assert "left on the device" in err.strerror
        assert err.filename == "/dev/npu0"
        # run() returned before the driver's reset ended the job
        assert after["resets"] == before["resets"]
        assert failed(after, stalled) == failed(before, stalled)

    # the session's timeout is run()'s default
    with npu.Session(mnist, pes=[stalled], timeout=0.2) as s:
        with pytest.raises(npu.Error) as e:
            s.run(_image(1))
        assert e.value.errno == errno.ETIMEDOUT
        assert "within 0.200 s" in e.value.strerror


def test_contexts_held_by_stalled_jobs(mnist, pes):
    """Both contexts held by runs that timed out: the next run() times out
    waiting for one, with a message that says so, instead of hanging; with
    no timeout it gets one when the driver resets the device, and its own
    job, stalled in turn, fails with the status of the driver's timeout."""
    stalled, _ = pes
    with npu.Session(mnist, pes=[stalled], contexts=2) as s:
        before = stats()
        for k in range(2):
            with pytest.raises(npu.Error) as e:
                s.run(_image(k), timeout=0.2)
            assert e.value.errno == errno.ETIMEDOUT
        with pytest.raises(npu.Error) as e:
            s.run(_image(3), timeout=0.3)
        assert e.value.errno == errno.ETIMEDOUT
        assert "no free context within 0.300 s" in e.value.strerror
        assert "2 of the session's 2" in e.value.strerror
        assert stats()["resets"] == before["resets"]

        with pytest.raises(npu.Error) as e:
            s.run(_image(4))
        assert e.value.errno == errno.EIO
        assert f"failed on PE {stalled}: status {NPU_JOB_TIMEOUT} (timeout)" \
            in e.value.strerror
        assert "job_timeout_ms" in e.value.strerror
        # one reset for the two orphans (the first timed out, the other
        # was aborted), one for the last run's job
        after = stats()
        assert after["resets"] == before["resets"] + 2
        assert failed(after, stalled) == failed(before, stalled) + 3


def test_wait_again(mnist, pes):
    stalled, _ = pes
    before = stats()
    with npu.Session(mnist, pes=[stalled], contexts=2) as s:
        f = s.submit(_image(1))
        f2 = s.submit(_image(2))
        for timeout in (0.2, 0):
            with pytest.raises(npu.Error) as e:
                f.wait(timeout=timeout)
            assert e.value.errno == errno.ETIMEDOUT
            assert "wait() again" in e.value.strerror
            assert not f.done() and f.job is None
        # no timeout: until the driver's reset
        with pytest.raises(npu.Error) as e:
            f.wait()
        assert e.value.errno == errno.EIO
        assert "status 8 (timeout)" in e.value.strerror
        assert f.done()
        assert f.job["status"] == NPU_JOB_TIMEOUT and f.job["pe"] == stalled
        with pytest.raises(npu.Error) as e2:
            f.result(timeout=0)
        assert e2.value.errno == errno.EIO
        assert e2.value.strerror == e.value.strerror
        # the job behind it was aborted by the same reset, the only one
        # (its CQE is posted apart from f's: a bounded wait, far shorter
        # than a second reset's JOB_TIMEOUT_MS)
        with pytest.raises(npu.Error) as e:
            f2.wait(timeout=1)
        assert e.value.errno == errno.EIO, e.value.strerror
        assert stats()["resets"] == before["resets"] + 1
        assert f2.job["status"] == NPU_JOB_ABORTED
        assert "the device was reset" in e.value.strerror


def test_gil_released_while_stalled(mnist, pes):
    stalled, _ = pes
    with npu.Session(mnist, pes=[stalled]) as s:
        f = s.submit(_image(1))
        with spinning() as ticks:
            t0 = ticks()
            with pytest.raises(npu.Error) as e:
                f.wait(timeout=0.5)
            during = ticks() - t0
        assert e.value.errno == errno.ETIMEDOUT
        # the spinner ran while this thread waited; with the GIL held it
        # could not have run at all
        assert during >= 10, during
        with pytest.raises(npu.Error) as e:
            f.wait()
        assert e.value.errno == errno.EIO


def test_other_pe_unaffected(mnist, pes):
    """While a job stalls on one PE, the other's results are libnpuref's
    bit for bit (computed first: the reset aborts what is in flight)."""
    stalled, good = pes
    m = npu.Model(mnist)
    xs = [_image(10 + k) for k in range(3)]
    refs = [npu.reference_run(m, x, output_dtype=np.uint8)[0] for x in xs]
    with npu.Session(m, pes=[stalled]) as bad, \
            npu.Session(m, pes=[good], output_dtype=np.uint8) as ok:
        f = bad.submit(_image(1))
        for x, want in zip(xs, refs):
            (q,) = ok.run(x, timeout=30)
            assert q.tobytes() == want.tobytes()
        with pytest.raises(npu.Error) as e:
            f.wait()
        assert e.value.errno == errno.EIO
        assert f.job["status"] == NPU_JOB_TIMEOUT and f.job["pe"] == stalled


def test_dropped_future(mnist, pes):
    """A Future freed while its job stalls: freeing it did not wait for the
    driver's reset; the session collects the job when it is freed."""
    stalled, _ = pes
    before = stats()
    s = npu.Session(mnist, pes=[stalled])
    f = s.submit(_image(1))
    del f
    mid = stats()
    assert mid["resets"] == before["resets"]
    assert failed(mid, stalled) == failed(before, stalled)
    s.close()               # collects what has ended: nothing yet
    assert s.closed
    del s                   # waits for the job, GIL released
    after = stats()
    assert after["resets"] == before["resets"] + 1
    assert failed(after, stalled) == failed(before, stalled) + 1
