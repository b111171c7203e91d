"""Which SIMD kernel numpy's unstable sorts (``kind="quicksort"``, pandas' default) run on.

numpy ≥ 2.0 dispatches quicksort/argsort of 32/64-bit numbers at import, by CPU feature, to
x86-simd-sort: AVX-512 (Skylake-X level) or AVX2, else its scalar introsort. The kernels order
equal keys differently, so a faithful tie rule taken from an unstable sort is reproducible only
for the same numpy version *and* kernel (``NPY_DISABLE_CPU_FEATURES`` switches levels off).
From numpy 2.4 the dispatch levels are the x86-64 micro-architecture levels X86_V4 / X86_V3;
earlier versions name the features (AVX512_SKX / AVX2).
"""
from __future__ import annotations

import platform

import numpy as np

# (kernel name, feature names that select it: numpy ≥ 2.4, then older), best first
_X86_KERNELS = (("avx512_skx", ("X86_V4", "AVX512_SKX")), ("avx2", ("X86_V3", "AVX2")))


def _features() -> dict[str, bool]:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:                      # numpy < 2.0
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


def numpy_sort_kernel() -> str:
    """``avx512_skx``, ``avx2`` or ``scalar`` on x86-64; ``<machine>`` elsewhere (not told apart here).

    Read from numpy's runtime CPU features (what this process dispatched to, after
    ``NPY_DISABLE_CPU_FEATURES``); the first feature name numpy knows decides each level.
    """
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return machine or "unknown"
    feats = _features()
    for name, keys in _X86_KERNELS:
        key = next((k for k in keys if k in feats), None)
        if key is not None and feats[key]:
            return name
    return "scalar"


def describe() -> str:
    """``numpy <version> / <kernel>``, for logs and skip reasons."""
    return f"numpy {np.__version__} / {numpy_sort_kernel()}"
