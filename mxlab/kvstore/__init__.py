"""Key-value stores for data-parallel training (``mx.kv`` / ``mx.kvstore``).

``mx.kv.create('local' | 'device')`` gives a single-process store (:mod:`.local`);
``'dist_sync' | 'dist_device_sync' | 'horovod'`` an MPI store (:mod:`.dist`, launched with
``mpiexec -n 2 python train.py``). ``gluon.Trainer(..., kvstore=...)`` uses them.
"""
from .base import KVStoreBase, create  # noqa: F401
from .local import KVStore  # noqa: F401
from .dist import DistKVStore  # noqa: F401

__all__ = ["KVStoreBase", "KVStore", "DistKVStore", "create"]
