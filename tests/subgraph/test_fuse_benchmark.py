"""benchmarks/fuse_chain.py runs (small size only: timings themselves are not asserted)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_fuse_chain_benchmark_runs():
    sys.path.insert(0, ROOT)
    try:
        from benchmarks import fuse_chain
    finally:
        sys.path.remove(ROOT)
    results = fuse_chain.run(repeats=1, sizes=(64,))
    assert set(results[64]) == {"numpy", "fused block", "plain block", "fused kernel"}
    assert all(seconds > 0 for seconds in results[64].values())
