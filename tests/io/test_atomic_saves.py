"""Every writer of a user's file keeps the last good file whole: a save that fails or is killed
half-way leaves either the previous file or the complete new one, never a truncated one, and
follows no file planted beside the target."""
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import zipfile

import numpy
import pytest

import mxlab as mx
from mxlab.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "atomic_save_worker.py")
KILLED_WRITERS = ["nd_save", "npx_save", "npx_savez", "symbol_save", "export", "save_parameters",
                  "block_save", "trainer_save_states", "kvstore_save_optimizer_states",
                  "module_save_checkpoint", "recordio"]
KILLS = 5


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _net():
    net = nn.HybridSequential()
    net.add(nn.Dense(3))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 2)))
    return net


def _trainer():
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam")
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 2))).sum()
    loss.backward()
    trainer.step(1)
    return trainer


def _kvstore():
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(momentum=0.9))
    kv.init(0, mx.nd.ones(3))
    kv.push(0, mx.nd.ones(3))
    return kv


def _recordio(path, records):
    out = mx.recordio.MXRecordIO(path, "w")
    for record in records:
        out.write(record)
    out.close()


def _profiler_dump(path):
    previous = mx.profiler._PROFILER.config["filename"]
    mx.profiler.set_config(filename=path)
    try:
        mx.profiler.dump()
    finally:
        mx.profiler.set_config(filename=previous)


# name -> save(path, version): the public writers, each saving content that differs by version
SAVES = {
    "nd.save": lambda p, v: mx.nd.save(p, {"w": mx.nd.ones(v + 1)}),
    "npx.save": lambda p, v: mx.npx.save(p, mx.np.ones(v + 1)),
    "npx.savez": lambda p, v: mx.npx.savez(p, mx.np.ones(v + 1)),
    "Symbol.save": lambda p, v: mx.sym.var(f"x{v}").save(p),
    "save_parameters": lambda p, v: _net().save_parameters(p),
    "Trainer.save_states": lambda p, v: _trainer().save_states(p),
    "kvstore.save_optimizer_states": lambda p, v: _kvstore().save_optimizer_states(p),
    "MXRecordIO": lambda p, v: _recordio(p, [b"r"] * (v + 1)),
    "profiler.dump": lambda p, v: _profiler_dump(p),
}


@pytest.mark.parametrize("name", sorted(SAVES))
def test_a_failed_save_keeps_the_previous_file_and_leaves_no_temp(name, tmp_path, monkeypatch):
    path = str(tmp_path / "saved")
    SAVES[name](path, 0)
    before = _read(path)

    def disk_full(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", disk_full)   # NOTE: fails after the new bytes are written
    with pytest.raises(OSError):
        SAVES[name](path, 1)
    assert _read(path) == before
    assert os.listdir(tmp_path) == ["saved"]


def test_an_error_while_writing_keeps_the_previous_file(tmp_path, monkeypatch):
    path = str(tmp_path / "a.npz")
    mx.npx.savez(path, mx.np.ones(2))
    before = _read(path)

    def half_written(handle, **entries):
        handle.write(b"PK\x03\x04 half a zip")
        raise MemoryError("out of memory while zipping")
    monkeypatch.setattr(numpy, "savez", half_written)
    with pytest.raises(MemoryError):
        mx.npx.savez(path, mx.np.arange(9))
    assert _read(path) == before and os.listdir(tmp_path) == ["a.npz"]


@pytest.mark.parametrize("name", ["nd.save", "npx.save", "Symbol.save", "Trainer.save_states",
                                  "kvstore.save_optimizer_states", "MXRecordIO"])
def test_a_symlink_planted_at_the_old_temp_name_is_not_followed(name, tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    path = str(tmp_path / "saved")
    os.symlink(victim, path + ".tmp")
    SAVES[name](path, 0)
    assert victim.read_bytes() == b"precious" and os.path.islink(path + ".tmp")
    assert not os.path.islink(path) and os.path.getsize(path) > 0


def test_saved_files_get_the_usual_permissions_or_keep_the_replaced_ones(tmp_path):
    umask = os.umask(0o027)
    try:
        path = str(tmp_path / "a.params")
        mx.nd.save(path, mx.nd.ones(2))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640   # not mkstemp's 0o600
        os.chmod(path, 0o604)
        mx.nd.save(path, mx.nd.ones(3))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o604
    finally:
        os.umask(umask)


def test_a_recordio_writer_replaces_the_file_and_index_only_on_close(tmp_path):
    rec, idx = str(tmp_path / "a.rec"), str(tmp_path / "a.idx")
    old = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    old.write_idx(0, b"old")
    old.close()
    before = _read(rec), _read(idx)
    new = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(3):
        new.write_idx(i, b"new record")
    assert (_read(rec), _read(idx)) == before   # a kill now loses nothing
    new.close()
    new.close()
    reader = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    assert reader.keys == [0, 1, 2] and reader.read_idx(2) == b"new record"
    assert sorted(os.listdir(tmp_path)) == ["a.idx", "a.rec"]


def test_a_recordio_writer_left_open_is_written_when_collected(tmp_path):
    path = str(tmp_path / "a.rec")
    out = mx.recordio.MXRecordIO(path, "w")
    out.write(b"abc")
    del out                                  # MXNet's writer flushes on destruction too
    assert mx.recordio.MXRecordIO(path, "r").read() == b"abc"
    assert os.listdir(tmp_path) == ["a.rec"]


@pytest.fixture(scope="module")
def killed_saves(tmp_path_factory):
    """Run the worker: for each writer, KILLS saves of a large new version SIGKILLed at random
    moments over a small good version (see atomic_save_worker.py)."""
    root = str(tmp_path_factory.mktemp("killed"))
    tree = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    env = dict(os.environ, PYTHONPATH=tree, MXNET_ENGINE_TYPE="NaiveEngine")
    done = subprocess.run([sys.executable, WORKER, root, str(KILLS), "0", *KILLED_WRITERS],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    return root, {r["writer"]: r for r in reports}


def _same_npz(a, b):
    with numpy.load(a) as x, numpy.load(b) as y:
        return sorted(x.files) == sorted(y.files) and all(
            numpy.array_equal(x[k], y[k]) for k in x.files)


def _whole(snap, good, ref):
    """Whether ``snap`` is the good file or a complete new one (an .npz's zip records its write
    time, so two complete saves compare by content)."""
    data = _read(snap)
    if data in (_read(good), _read(ref)):
        return True
    if snap.endswith(".npz"):
        try:
            return _same_npz(snap, ref)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError):
            return False
    return False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the worker forks its savers")
@pytest.mark.parametrize("name", KILLED_WRITERS)
def test_a_save_killed_at_any_moment_leaves_the_old_or_the_new_file_whole(name, killed_saves):
    root, reports = killed_saves
    report = reports[name]
    home = os.path.join(root, name)
    for k in range(KILLS):
        for f in report["files"]:
            snap = os.path.join(home, f"snap{k}", f)
            good, ref = os.path.join(home, "good", f), os.path.join(home, "ref", f)
            assert os.path.getsize(good) != os.path.getsize(ref)   # the versions differ
            assert os.path.exists(snap), f"{name}: {f} missing after kill {k}"
            assert _whole(snap, good, ref), (
                f"{name}: {f} is neither the previous nor a complete new file after a kill "
                f"{report['delays'][k]:.3f} s into saving ({os.path.getsize(snap)} bytes; "
                f"old {os.path.getsize(good)}, new {os.path.getsize(ref)})")


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_a_dataset_archive_unpacks_whole_files_and_nothing_outside_its_root(tmp_path):
    row = bytes([7]) + bytes(range(256)) * 12     # a label and a 32x32x3 image
    root = tmp_path / "cifar"
    root.mkdir()
    _tar(root / "cifar-10-binary.tar.gz", [("cifar-10-batches-bin/test_batch.bin", row * 2)])
    data = mx.gluon.data.vision.CIFAR10(root=str(root), train=False)
    assert len(data) == 2 and data[1][1] == 7
    assert (root / "cifar-10-batches-bin" / "test_batch.bin").read_bytes() == row * 2
    assert os.listdir(root / "cifar-10-batches-bin") == ["test_batch.bin"]   # no temp left

    evil = tmp_path / "evil"
    evil.mkdir()
    _tar(evil / "cifar-10-binary.tar.gz", [("../outside.bin", b"x")])
    with pytest.raises(tarfile.OutsideDestinationError):
        mx.gluon.data.vision.CIFAR10(root=str(evil), train=False)[0]
    assert not (tmp_path / "outside.bin").exists()
