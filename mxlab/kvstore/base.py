"""``KVStoreBase`` (MXNet's store interface and registry) and key/value parsing.

``NOT_BUILT``: MXNet's store names mxlab does not build, and what to use instead.
"""
import typing
import warnings

from ..base import MXNetTypeError, MXNetValueError

__all__ = ["NOT_BUILT", "KVStoreBase", "TestStore", "key_value_pairs"]

NOT_BUILT = {
    "dist_async": "asynchronous updates need parameter servers; use 'dist_sync' (MPI allreduce)",
    "dist_device_async": "asynchronous updates need parameter servers; use 'dist_device_sync'",
    "dist": "MXNet's bare 'dist' store is a parameter-server mode; use 'dist_sync'",
    "nccl": "the single-process multi-GPU NCCL store is not built; use 'device'",
    "byteps": "BytePS is not built; use 'dist_sync' or 'horovod' (MPI allreduce)",
}


class KVStoreBase:
    """The interface every store implements (MXNet's ``mx.kvstore.KVStoreBase``)."""

    OPTIMIZER = "optimizer"
    kv_registry: typing.ClassVar[dict] = {}

    def broadcast(self, key, value, out, priority=0):
        """Copy rank 0's ``value`` of ``key`` into ``out`` (an array or a list) on every rank."""
        raise NotImplementedError(f"{type(self).__name__}.broadcast")

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value`` (summed) and pull the result into ``out`` (``value`` when None)."""
        raise NotImplementedError(f"{type(self).__name__}.pushpull")

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` on the store: every push then updates the stored value."""
        raise NotImplementedError(f"{type(self).__name__}.set_optimizer")

    def is_capable(self, capability):
        """Whether the store supports ``capability`` (``KVStoreBase.OPTIMIZER``)."""
        raise NotImplementedError(f"{type(self).__name__}.is_capable")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError(f"{type(self).__name__}.save_optimizer_states")

    def load_optimizer_states(self, fname):
        raise NotImplementedError(f"{type(self).__name__}.load_optimizer_states")

    @property
    def type(self):
        raise NotImplementedError(f"{type(self).__name__}.type")

    @property
    def rank(self):
        raise NotImplementedError(f"{type(self).__name__}.rank")

    @property
    def num_workers(self):
        raise NotImplementedError(f"{type(self).__name__}.num_workers")

    @staticmethod
    def register(klass):
        """Class decorator: make ``create(klass.__name__.lower())`` build ``klass()``."""
        if not isinstance(klass, type):
            raise MXNetTypeError(f"KVStoreBase.register expects a class, got {klass!r}")
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn(f"WARNING: New kvstore {klass.__module__}.{klass.__name__} is "
                          f"overriding existing kvstore {old.__module__}.{old.__name__}",
                          stacklevel=2)
        KVStoreBase.kv_registry[name] = klass
        return klass


def key_value_pairs(keys, values, what="value"):
    """``[(key, [arrays...]), ...]`` from MXNet's forms: one key with an array or a list of arrays
    (one per device), or a list of keys with one array or one list of arrays per key."""
    from ..ndarray.ndarray import NDArray

    if isinstance(keys, (list, tuple)):
        if not isinstance(values, (list, tuple)) or len(values) != len(keys):
            raise MXNetValueError(f"kvstore: {len(keys)} keys need as many {what}s, got "
                                  f"{_describe(values)}")
        return [pair for k, v in zip(keys, values) for pair in key_value_pairs(k, v, what)]
    if not isinstance(keys, (int, str)):
        raise MXNetTypeError(f"kvstore: unexpected type for keys: {type(keys).__name__}")
    arrays = [values] if isinstance(values, NDArray) else values
    if not isinstance(arrays, (list, tuple)) or not arrays \
            or not all(isinstance(a, NDArray) for a in arrays):
        raise MXNetTypeError(f"kvstore: the {what} of key {keys!r} must be an NDArray or a "
                             f"non-empty list of NDArrays, got {_describe(values)}")
    return [(keys, list(arrays))]


def _describe(values):
    if isinstance(values, (list, tuple)):
        return f"a {type(values).__name__} of {len(values)}"
    return type(values).__name__


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's registered store for tests (``mx.kv.create('teststore')``): ``broadcast`` copies,
    ``pushpull`` sums a list of values on the first one's device; no optimizer, one worker."""

    def broadcast(self, key, value, out, priority=0):
        for target in out if isinstance(out, list) else [out]:
            target[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        from ..ndarray.ndarray import NDArray

        if isinstance(value, NDArray):
            if out is not None:
                for target in out if isinstance(out, list) else [out]:
                    target[:] = value
            return
        device = value[0].device
        reduced = value[0].as_in_context(device).copy()
        for other in value[1:]:
            reduced += other.as_in_context(device)
        targets = value if out is None else (out if isinstance(out, list) else [out])
        for target in targets:
            target[:] = reduced

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise MXNetValueError(f"Unknown capability: {capability}")

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1
