"""The MPI stores, run for real: ``mpiexec -n N python mpi_worker.py MODE OUTDIR`` subprocesses.

Every launch has a timeout, so a deadlock fails the test instead of hanging the suite. Skipped
without mpi4py or an ``mpiexec`` next to the interpreter (``pip install 'mxlab[dist]'``).
"""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy
import pytest

pytest.importorskip("mpi4py")
HERE = pathlib.Path(__file__).parent
WORKER = HERE / "mpi_worker.py"
ROOT = HERE.parent.parent
MPIEXEC = shutil.which("mpiexec", path=str(pathlib.Path(sys.executable).parent)) \
    or shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec (pip install mpich)")
TIMEOUT = 120


def _worker_module():
    spec = importlib.util.spec_from_file_location("mpi_worker", WORKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch(mode, outdir, workers=2, **env):
    """Run the worker under mpiexec; the completed process (a timeout fails the test)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    for name in ("PMI_RANK", "PMI_SIZE", "PMI_FD"):
        full_env.pop(name, None)
    command = [MPIEXEC, "-n", str(workers), sys.executable, str(WORKER), mode, str(outdir)]
    return subprocess.run(command, env=full_env, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def _train_and_compare(tmp_path, workers, **env):
    done = launch("train", tmp_path, workers, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    ranks = [numpy.load(tmp_path / f"rank{r}.npz") for r in range(workers)]
    names = [k for k in ranks[0].files if k.startswith("w")]
    for other in ranks[1:]:                       # replicas identical, bit for bit
        for name in names:
            assert numpy.array_equal(ranks[0][name], other[name]), name
    worker = _worker_module()
    ref_losses, ref_weights = worker.train(None, 0, workers)   # one process, whole batch
    mean_losses = numpy.mean([r["losses"] for r in ranks], axis=0)
    numpy.testing.assert_allclose(mean_losses, ref_losses, rtol=1e-4, atol=1e-5)
    for name, ref in zip(names, ref_weights):
        numpy.testing.assert_allclose(ranks[0][name], ref, rtol=1e-4, atol=1e-5)
    assert ref_losses[-1] < ref_losses[0] / 2     # it learned
    return [json.loads(str(r["events"])) for r in ranks]


@pytest.mark.parametrize("engine", ["NaiveEngine", "ThreadedEngine"])
def test_two_workers_train_like_one_process_on_the_whole_batch(tmp_path, engine):
    events = _train_and_compare(tmp_path, 2, MXNET_ENGINE_TYPE=engine)
    names = [name for name, _, _ in events[0]]
    params = 6
    assert names[:params] == [f"kv_broadcast:{i}" for i in range(params)]
    allreduces = [name for name in names if name.startswith("kv_allreduce")]
    assert len(allreduces) == params * 20        # per key, every step (the default)
    # pushed last layer first (backward's order); each writes its gradient and the MPI var only,
    # so it can run while backward of earlier layers is still going
    assert allreduces[:params] == [f"kv_allreduce:{i}" for i in reversed(range(params))]
    assert {writes for name, writes, _ in events[0] if name.startswith("kv_allreduce")} == {2}


@pytest.mark.parametrize("kvstore,update", [
    ("horovod", ""), pytest.param("dist_sync", "0", marks=pytest.mark.slow),
    pytest.param("dist_device_sync", "1", marks=pytest.mark.slow)])
def test_store_kinds_and_update_placement_agree(tmp_path, kvstore, update):
    _train_and_compare(tmp_path, 2, MXLAB_TEST_KVSTORE=kvstore, MXLAB_TEST_UPDATE_ON_KV=update)


def test_bucketed_allreduce_packs_keys(tmp_path):
    events = _train_and_compare(tmp_path, 2, MXLAB_KVSTORE_BUCKET_BYTES=str(1 << 20))
    allreduces = [name for name, _, _ in events[0] if name.startswith("kv_allreduce")]
    assert allreduces[0] == "kv_allreduce:5,4,3,2,1,0" and len(allreduces) == 20


def test_store_collectives(tmp_path):
    done = launch("ops", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(2):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert (got["rank"], got["size"], got["type"]) == (rank, 2, "dist_sync")
        assert got["init"] == [[1.0] * 3] * 2                  # rank 0's value
        assert got["push"] == [[5.0] * 3] * 2                  # (1+1) + (2+1)
        assert got["pushpull"] == [0.0, 3.0, 6.0, 9.0]         # arange * 1 + arange * 2
        assert got["broadcast"] == [10.0] * 3
        assert got["bucketed"] == [[1.0] * 5, [3.0] * 5, [5.0] * 5]
        numpy.testing.assert_allclose(got["optimizer"], [0.7, 0.7], rtol=1e-6)
        assert got["horovod"] == ["horovod", False, 2]


@pytest.mark.parametrize("engine", [
    "NaiveEngine", pytest.param("ThreadedEngine", marks=pytest.mark.slow)])
def test_a_failing_rank_stops_the_whole_job(tmp_path, engine):
    done = launch("fault", tmp_path, MXNET_ENGINE_TYPE=engine)  # the timeout catches a hang
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "ValueError: rank 1 failed on purpose" in output
    assert "rank 1 of 2 failed" in output


@pytest.mark.gpu
def test_gpu_arrays_reduce_through_nccl(tmp_path):
    import mxlab as mx
    if mx.num_gpus() == 0:
        pytest.skip("needs CuPy and a GPU")
    workers = min(2, mx.num_gpus())     # NOTE: NCCL wants one GPU per rank
    done = launch("gpu", tmp_path, workers)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(workers):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert got["init"] == [1.0] * 3
        total = sum(range(workers))      # rank + k summed over the ranks, twice reduced
        assert got["sums"] == [[float(workers * (total + workers * k))] * 4 for k in range(3)]


@pytest.mark.slow
def test_four_workers_train_like_one_process_on_the_whole_batch(tmp_path):
    _train_and_compare(tmp_path, 4, MXNET_ENGINE_TYPE="ThreadedEngine")
