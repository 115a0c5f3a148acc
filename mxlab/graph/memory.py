"""Memory planning: the storage block of every entry (nnvm's ``PlanMemory``) and in-place add-to.

``plan_memory`` walks the nodes in topological order with a reference count per entry (graph
outputs +1, an op's ``ignore_inputs`` not counted). An output takes its input's block in place when
the op allows the pair, the input's block has exactly one pending reader, the output is used and the
sizes match; otherwise it asks the pool, which hands out the best-fitting free block in
``[size, size * match_range]`` or grows the largest free block in ``[size / match_range, size)``;
``match_range=0`` (NNVM_EXEC_MATCH_RANGE) never shares. Blocks return to the pool when their count
reaches zero. Storage ids: ``-1`` unassigned (unknown shape), ``-2`` external (inputs, and outputs
the caller owns), ``-3`` dynamic (shape known only at run time), ``>= 0`` pool blocks.

``detect_inplace_addto`` then turns ``_grad_add(lhs, rhs)`` into "rhs's producer adds into lhs's
block" and skips the plus node. The result is a :class:`MemoryPlan`, a plain object the notebook
draws.

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.graph.passes import apply_pass
>>> from mxlab.ops.registry import get_op
>>> e = Entry(Node(None, "x"))
>>> for i in range(3):
...     e = Entry(Node(get_op("tanh"), f"t{i}", {}, [e]))
>>> g = apply_pass(Graph([e]), "infer_shape", shapes={"x": (4,)})
>>> g = apply_pass(g, "infer_type", dtypes={"x": "float32"})
>>> plan = apply_pass(g, "plan_memory").attrs["memory_plan"]
>>> [p.storage_id for p in plan.entries], plan.planned_bytes, plan.naive_bytes
([-2, 0, 0, 0], 16, 48)
"""
import bisect
import dataclasses
import itertools

import numpy

from ..base import MXNetValueError, env_int
from ..ops.infer import known
from ..ops.registry import OpReq
from .passes import register_pass

__all__ = ["MemoryPlan", "EntryPlan", "StorageBlock", "plan_memory", "detect_inplace_addto",
           "nbytes_of", "value_readers", "BAD_STORAGE", "EXTERNAL_STORAGE", "DYNAMIC_STORAGE",
           "NEVER_REFERENCED"]

BAD_STORAGE = -1
EXTERNAL_STORAGE = -2
DYNAMIC_STORAGE = -3
NEVER_REFERENCED = -2   # inplace index of an output nobody reads


def nbytes_of(shape, dtype):
    """Bytes of an array (real dtype sizes; bfloat16 is 2); None when shape or dtype is unknown."""
    if not known(shape) or dtype is None:
        return None
    itemsize = 2 if dtype == "bfloat16" else numpy.dtype(dtype).itemsize
    return int(numpy.prod(shape, dtype=numpy.int64)) * itemsize


@dataclasses.dataclass
class EntryPlan:
    """The plan for one entry (one output of one node).

    ``inplace_index`` is the input position whose block the output reuses (-1 none, -2 never
    referenced); ``inplace_source`` the entry id whose block (and, for add-to, value) it
    continues; ``live`` the closed interval of node ids from the producer to the last value reader
    (graph outputs: to the last node).
    """
    eid: int
    node: str
    index: int
    shape: tuple
    dtype: str
    nbytes: int
    storage_id: int
    inplace_index: int = -1
    inplace_source: int = None
    addto: bool = False
    is_variable: bool = False
    is_output: bool = False
    live: tuple = (0, 0)

    @property
    def request(self):
        """How the producer writes it: add, inplace, null (never read), write; None for inputs."""
        if self.is_variable:
            return None
        if self.addto:
            return OpReq.ADDTO
        if self.inplace_index >= 0:
            return OpReq.INPLACE
        if self.inplace_index == NEVER_REFERENCED:
            return OpReq.NULL
        return OpReq.WRITE


@dataclasses.dataclass
class StorageBlock:
    """One pool block: its size (the largest request it served) and the entries that live in it."""
    sid: int
    nbytes: int
    entries: list


@dataclasses.dataclass
class MemoryPlan:
    """Storage for every entry of a graph, with the numbers the notebook shows.

    ``entries`` is indexed by entry id; ``blocks`` by storage id; ``skipped_nodes`` are plus nodes
    replaced by add-to writes; ``match_range`` the pool's matching range; ``num_not_allocated``
    counts planned entries left at -1; ``node_range`` the node ids that were planned.
    """
    entries: list
    blocks: list
    match_range: int
    num_not_allocated: int = 0
    skipped_nodes: list = dataclasses.field(default_factory=list)
    node_range: tuple = None

    @property
    def planned_bytes(self):
        """Bytes of all pool blocks (what the plan allocates)."""
        return sum(b.nbytes for b in self.blocks)

    @property
    def naive_bytes(self):
        """Bytes if every pooled entry had its own buffer (no sharing, no in-place)."""
        return sum(e.nbytes for e in self.entries if e.storage_id >= 0 and e.nbytes)

    @property
    def external_bytes(self):
        return sum(e.nbytes or 0 for e in self.entries if e.storage_id == EXTERNAL_STORAGE)

    def requests(self):
        """Write request per entry id (see :attr:`EntryPlan.request`)."""
        return [e.request for e in self.entries]

    def storage_ids(self):
        return [e.storage_id for e in self.entries]

    def rows(self):
        """One dict per entry (the fields plus ``request``), ready for a table widget."""
        return [dict(dataclasses.asdict(e), request=e.request) for e in self.entries]

    def summary(self):
        """One line: blocks, planned vs naive bytes, in-place and add-to counts."""
        inplace = sum(1 for e in self.entries if e.inplace_index >= 0)
        addto = sum(1 for e in self.entries if e.addto)
        return (f"{len(self.blocks)} blocks, planned {self.planned_bytes} bytes vs naive "
                f"{self.naive_bytes} bytes, {inplace} in-place, {addto} add-to, "
                f"{len(self.skipped_nodes)} skipped nodes")

    def to_text(self, graph):
        """``graph``'s printout with ``sid=<storage> <request> <bytes>B`` after each output."""
        def note(eid):
            e = self.entries[eid]
            inplace = "" if e.inplace_source is None else f" from {e.inplace_source}"
            return f"sid={e.storage_id} {e.request or 'input'}{inplace} {e.nbytes}B"
        return graph.indexed.to_text(note) + "\n" + self.summary()

    def __repr__(self):
        return f"<MemoryPlan {self.summary()}>"


class _Pool:
    """Free blocks ordered by size (then release order), nnvm's ``GraphAllocator``."""

    def __init__(self, match_range):
        self.match_range = match_range
        self.sizes = []
        self.free = []          # sorted (bytes, release sequence, sid)
        self.sequence = itertools.count()

    def request(self, nbytes):
        if self.match_range == 0:
            return self._alloc(nbytes)
        mid = bisect.bisect_left(self.free, (nbytes,))
        end = bisect.bisect_right(self.free, (nbytes * self.match_range, float("inf")))
        if mid < end:
            return self._take(mid, nbytes)
        begin = bisect.bisect_left(self.free, (nbytes // self.match_range,))
        if mid > begin:
            return self._take(mid - 1, nbytes)
        return self._alloc(nbytes)

    def release(self, sid):
        bisect.insort(self.free, (self.sizes[sid], next(self.sequence), sid))

    def _take(self, position, nbytes):
        sid = self.free.pop(position)[2]
        self.sizes[sid] = max(self.sizes[sid], nbytes)
        return sid

    def _alloc(self, nbytes):
        self.sizes.append(nbytes)
        return len(self.sizes) - 1


def value_readers(idx):
    """For each entry id, the node ids reading its value (``ignore_inputs`` only use the shape)."""
    readers = [[] for _ in range(idx.num_entries)]
    for n in idx.nodes:
        if n.is_variable:
            continue
        ignored = set(n.op.ignore_inputs)
        for i, eid in enumerate(n.inputs):
            if i not in ignored:
                readers[eid].append(n.nid)
    return readers


def _ref_counts(idx):
    """Readers per entry (ignored inputs excluded) plus one per graph output."""
    counts = [len(r) for r in value_readers(idx)]
    for eid in idx.outputs:
        counts[eid] += 1
    return counts


class _Planner:
    """State of one planning walk (storage, in-place indices, per-block pending readers)."""

    def __init__(self, idx, nbytes, dtypes, refs, pool):
        self.idx, self.nbytes, self.dtypes, self.refs, self.pool = idx, nbytes, dtypes, refs, pool
        self.storage = [BAD_STORAGE] * idx.num_entries
        self.inplace = [-1] * idx.num_entries
        self.source = [None] * idx.num_entries
        self.block_refs = {}

    def _try_inplace(self, n):
        taken = set()
        ignore_all = len(n.op.ignore_inputs) == len(n.inputs) and n.inputs
        for i, o in n.op.inplace:
            out, inp = self.idx.node_row_ptr[n.nid] + o, n.inputs[i]
            sid = self.storage[inp]
            if (i in taken or self.storage[out] != BAD_STORAGE or sid < 0 or ignore_all
                    or self.block_refs[sid] != 1 or self.refs[out] == 0
                    or not self._same_size(inp, out)):
                continue
            taken.add(i)
            self.storage[out] = sid
            self.block_refs[sid] += self.refs[out]
            self.inplace[out] = i
            self.source[out] = inp

    def _same_size(self, a, b):
        da, db = self.dtypes[a], self.dtypes[b]
        return (self.nbytes[a] is not None and self.nbytes[a] == self.nbytes[b]
                and (da == db or numpy.dtype(da).itemsize == numpy.dtype(db).itemsize))

    def _allocate_outputs(self, n):
        eids = [e for e in self.idx.output_entries(n.nid) if self.storage[e] == BAD_STORAGE]
        # NOTE: larger outputs first, as nnvm walks its size-keyed multimap from the back.
        for eid in sorted(eids, key=lambda e: (self.nbytes[e] or 0, e), reverse=True):
            if self.nbytes[eid] is None:
                continue
            sid = self.pool.request(self.nbytes[eid])
            self.block_refs[sid] = self.refs[eid]
            self.storage[eid] = sid

    def _release(self, sid):
        self.block_refs[sid] -= 1
        if self.block_refs[sid] == 0:
            self.pool.release(sid)

    def visit(self, n):
        if n.op.dynamic_shape:
            for eid in self.idx.output_entries(n.nid):
                self.storage[eid] = DYNAMIC_STORAGE
        self._try_inplace(n)
        self._allocate_outputs(n)
        ignored = set(n.op.ignore_inputs)
        for i, eid in enumerate(n.inputs):
            if i not in ignored and self.storage[eid] >= 0:
                self._release(self.storage[eid])
        for eid in self.idx.output_entries(n.nid):
            sid = self.storage[eid]
            if sid >= 0 and self.block_refs[sid] == 0:
                self.pool.release(sid)
                self.inplace[eid] = NEVER_REFERENCED


def _live_intervals(idx):
    """Closed node-id interval per entry: producer to last value reader (outputs: last node)."""
    last = idx.num_nodes - 1
    outputs = set(idx.outputs)
    intervals = []
    for eid, readers in enumerate(value_readers(idx)):
        first = idx.node_of_entry(eid)
        intervals.append((first, last if eid in outputs else max(readers, default=first)))
    return intervals


def _build_plan(idx, shapes, dtypes, nbytes, planner, match_range, node_range):
    intervals = _live_intervals(idx)
    outputs = set(idx.outputs)
    entries = []
    for eid in range(idx.num_entries):
        nid = idx.node_of_entry(eid)
        entries.append(EntryPlan(
            eid, idx[nid].name, eid - idx.node_row_ptr[nid], shapes[eid], dtypes[eid], nbytes[eid],
            planner.storage[eid], planner.inplace[eid], planner.source[eid], False,
            idx[nid].is_variable, eid in outputs, intervals[eid]))
    blocks = [StorageBlock(sid, size, []) for sid, size in enumerate(planner.pool.sizes)]
    for e in entries:
        if e.storage_id >= 0:
            blocks[e.storage_id].entries.append(e.eid)
    start, stop = node_range
    planned = range(idx.node_row_ptr[start], idx.node_row_ptr[stop])
    not_allocated = sum(1 for eid in planned if entries[eid].storage_id == BAD_STORAGE)
    return MemoryPlan(entries, blocks, match_range, not_allocated, node_range=node_range)


@register_pass("plan_memory", requires=("shape", "dtype"), provides=("memory_plan",))
def plan_memory(graph, match_range=None, external=(), external_outputs=False, node_range=None,
                storage=None):
    """Plan storage for every entry; see the module doc.

    Parameters
    ----------
    match_range : int, optional
        Overrides NNVM_EXEC_MATCH_RANGE (default 16; 0 disables sharing between entries).
    external : iterable of int
        Entry ids the caller owns (storage -2), besides every variable.
    external_outputs : bool
        Treat the graph outputs as external (CachedOp writes them into the user's arrays).
    node_range : (int, int), optional
        Plan only nodes ``start <= nid < stop`` (CachedOp plans forward and backward apart);
        entries produced outside keep their ``storage`` value and are never reused.
    storage : list of int, optional
        Initial storage id per entry id (e.g. -2 / -3 set by the caller); -1 means "plan it".
    """
    idx = graph.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    match_range = env_int("NNVM_EXEC_MATCH_RANGE", 16) if match_range is None else match_range
    if match_range < 0:
        raise MXNetValueError(f"plan_memory: match_range must be >= 0, got {match_range}")
    nbytes = [nbytes_of(s, d) for s, d in zip(shapes, dtypes)]
    planner = _Planner(idx, nbytes, dtypes, _ref_counts(idx), _Pool(match_range))
    if storage is not None:
        if any(sid >= 0 for sid in storage):
            raise MXNetValueError("plan_memory: storage may only preset -1 (plan), -2 (external) "
                                  "or -3 (dynamic) ids")
        planner.storage = list(storage)
    externals = set(external) | (set(idx.outputs) if external_outputs else set())
    externals |= {idx.node_row_ptr[nid] for nid in idx.input_nodes}
    for eid in externals:
        planner.storage[eid] = EXTERNAL_STORAGE
    node_range = tuple(node_range) if node_range is not None else (0, idx.num_nodes)
    for n in idx.nodes[node_range[0]:node_range[1]]:
        if not n.is_variable:
            planner.visit(n)
    plan = _build_plan(idx, shapes, dtypes, nbytes, planner, match_range, node_range)
    return graph.copy(memory_plan=plan)


def _reader_counts(idx):
    """Every read of every entry (ignored inputs too) plus outputs, as DetectInplaceAddTo counts."""
    counts = [0] * idx.num_entries
    for n in idx.nodes:
        for eid in n.inputs:
            counts[eid] += 1
    for eid in idx.outputs:
        counts[eid] += 1
    return counts


@register_pass("detect_inplace_addto", requires=("memory_plan",), provides=("memory_plan",))
def detect_inplace_addto(graph, plus_op="_grad_add"):
    """For ``plus_op(lhs, rhs)``, let rhs's producer add into lhs's block; skip the plus node.

    Conditions (MXNet's DetectInplaceAddTo): the plus output is in place on ``lhs``; neither input
    is a variable; ``rhs`` has exactly one reader and is produced after ``lhs``; ``rhs`` is not
    dynamic.
    """
    idx = graph.indexed
    plan = graph.attrs["memory_plan"]
    entries = [dataclasses.replace(e) for e in plan.entries]
    readers = _reader_counts(idx)
    skipped = list(plan.skipped_nodes)
    for n in idx.nodes:
        if n.is_variable or n.op.name != plus_op:
            continue
        lhs, rhs = n.inputs
        out = idx.node_row_ptr[n.nid]
        sid = entries[lhs].storage_id
        lhs_node, rhs_node = idx.node_of_entry(lhs), idx.node_of_entry(rhs)
        if (sid != entries[out].storage_id or sid < 0 or idx[lhs_node].is_variable
                or idx[rhs_node].is_variable or readers[rhs] != 1 or lhs_node >= rhs_node
                or entries[rhs].storage_id == DYNAMIC_STORAGE):
            continue
        entries[rhs] = dataclasses.replace(entries[rhs], storage_id=sid, addto=True,
                                           inplace_index=-1, inplace_source=lhs)
        # NOTE: the skipped node's output continues the sum that rhs's producer accumulated.
        entries[out] = dataclasses.replace(entries[out], inplace_source=rhs)
        skipped.append(n.nid)
    blocks = [StorageBlock(b.sid, b.nbytes, [e.eid for e in entries if e.storage_id == b.sid])
              for b in plan.blocks]
    plan = dataclasses.replace(plan, entries=entries, blocks=blocks, skipped_nodes=skipped)
    return graph.copy(memory_plan=plan)
