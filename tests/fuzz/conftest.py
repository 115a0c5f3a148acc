"""Hypothesis profiles of the differential fuzzer, chosen with MXLAB_FUZZ_PROFILE (default: quick
in the default suite; ``pytest -m slow tests/fuzz`` runs the ``slow`` test with the ``slow``
profile, >= 10,000 cases)."""
import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                      HealthCheck.data_too_large])
# NOTE: the quick profile is derandomized, so the default suite runs the same cases every time
settings.register_profile("fuzz-quick", max_examples=12, derandomize=True, **_COMMON)
settings.register_profile(
    "fuzz-slow", max_examples=int(os.environ.get("MXLAB_FUZZ_EXAMPLES", "10000")), **_COMMON)


def fuzz_settings(kind):
    """The profile a test of ``kind`` (quick or slow) runs under; MXLAB_FUZZ_PROFILE overrides."""
    return settings.get_profile(os.environ.get("MXLAB_FUZZ_PROFILE", f"fuzz-{kind}"))
