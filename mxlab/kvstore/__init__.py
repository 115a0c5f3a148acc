"""Key-value stores for data-parallel training (``mx.kv`` / ``mx.kvstore``).

``mx.kv.create('local' | 'device')`` gives a single-process store (:mod:`.local`);
``'dist_sync' | 'dist_device_sync' | 'horovod'`` an MPI store (:mod:`.dist`, launched with
``mpiexec -n 2 python train.py``; ``dist_sync_device`` is accepted for ``dist_device_sync``).
``gluon.Trainer(..., kvstore=...)`` uses them. Stores registered with
:meth:`KVStoreBase.register` are created by their lower-case class name. MXNet's other stores
(``dist_async``, ``nccl``, ``byteps``, ...) raise ``NotImplementedError`` naming them; an unknown
name is a ``ValueError``.
"""
from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from . import dist, local
from .base import NOT_BUILT, KVStoreBase, TestStore
from .dist import DistKVStore
from .local import KVStore

__all__ = ["DistKVStore", "KVStore", "KVStoreBase", "TestStore", "create"]


def create(name="local"):
    """A new store of type ``name`` (the names: see the package notes)."""
    if not isinstance(name, str):
        raise MXNetTypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if local.is_local_type(name):
        return local.KVStore(name)
    if name in dist.TYPES:
        return dist.DistKVStore(name)
    if name in NOT_BUILT:
        raise MXNetNotImplementedError(f"kvstore {name!r} is not built in mxlab: "
                                       f"{NOT_BUILT[name]}")
    known = sorted(local.TYPES + tuple(dist.TYPES) + tuple(KVStoreBase.kv_registry))
    raise MXNetValueError(f"unknown kvstore type {name!r}; known: {known}")
