"""Statistical checks of random generators (MXNet's ``verify_generator`` family): bucket a large
sample and compare the counts with the expected ones by Pearson's chi-square test."""
import itertools

import numpy as np

from ..base import MXNetValueError

__all__ = [
    "chi_square_check",
    "gen_buckets_probs_with_ppf",
    "mean_check",
    "var_check",
    "verify_generator",
]


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equiprobable ``(low, high)`` buckets from a distribution's inverse CDF."""
    if nbuckets <= 0:
        raise MXNetValueError(f"nbuckets must be positive, got {nbuckets}")
    edges = [ppf(i / float(nbuckets)) for i in range(nbuckets + 1)]
    return list(itertools.pairwise(edges)), [1.0 / nbuckets] * nbuckets


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the sample mean lies within 3 standard errors of ``mu``."""
    mean = np.asarray(generator(nsamples)).mean()
    margin = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - margin < mean < mu + margin)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the unbiased sample variance lies within 3 standard errors of ``sigma**2``."""
    var = np.asarray(generator(nsamples)).var(ddof=1)
    margin = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - margin < var < sigma ** 2 + margin)


def _observed(samples, buckets):
    """Counts per bucket: ``(low, high)`` intervals (continuous) or single values (discrete)."""
    samples = np.asarray(samples).ravel()
    if isinstance(buckets[0], (list, tuple)):
        edges = np.asarray(buckets, dtype=np.float64).ravel()
        if np.any(np.diff(edges) < 0):
            raise MXNetValueError("buckets must be sorted and not overlap")
        ids = np.searchsorted(edges, samples, side="right")
        inside = ids % 2 == 1     # NOTE: odd positions fall between a bucket's low and high
        return np.bincount(ids[inside] // 2, minlength=len(buckets))[:len(buckets)]
    return np.array([(samples == value).sum() for value in buckets])


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """``(p value, observed counts, expected counts)`` of ``nsamples`` draws (needs SciPy)."""
    try:
        from scipy import stats
    except ImportError:
        raise ImportError("chi_square_check needs scipy (pip install scipy)") from None
    if len(probs) != len(buckets):
        raise MXNetValueError(f"{len(buckets)} buckets but {len(probs)} probabilities")
    expected = (nsamples * np.asarray(probs, dtype=np.float32)).astype(np.int64)
    observed = _observed(generator(nsamples), list(buckets))
    # NOTE: MXNet compares raw counts; rescale so both sum alike, as scipy now requires
    scaled = expected * (observed.sum() / max(expected.sum(), 1))
    _, p = stats.chisquare(f_obs=observed, f_exp=scaled)
    return p, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Run :func:`chi_square_check` ``nrepeat`` times; fail unless at least ``success_rate`` of
    the runs have ``p > alpha``. Returns the p values."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    p_values = [p for p, _, _ in runs]
    if sum(p > alpha for p in p_values) < nrepeat * success_rate:
        raise AssertionError(
            f"Generator test fails, Chi-square p={p_values}, obs_freq={[o for _, o, _ in runs]}, "
            f"expected_freq={[e for _, _, e in runs]}\nbuckets={buckets}, probs={probs}")
    return p_values
