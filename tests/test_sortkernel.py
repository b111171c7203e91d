"""lib.sortkernel names the kernel numpy's quicksort actually dispatched to (balance/README.md)."""
import os
import subprocess
import sys

import pytest

from lib import sortkernel

# argsort of 2000 float64 with 20 distinct values: the tie order is the kernel's
_PROBE = ("import numpy as np, hashlib; from lib import sortkernel; "
          "h = np.random.RandomState(0).randint(0, 20, 2000) / 10.0; "
          "print(sortkernel.numpy_sort_kernel(), hashlib.sha1(np.argsort(h, kind='quicksort').tobytes()).hexdigest())")


def _probe(disable: str | None) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = disable
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    kernel, digest = out.stdout.split()
    return kernel, digest


def test_kernel_name_follows_numpy_dispatch():
    """Switching the SIMD levels off at import makes numpy sort on its scalar kernel: the name says
    so and the tie order changes (why the balancing goldens are kept per kernel)."""
    if sortkernel.numpy_sort_kernel() not in ("avx2", "avx512_skx"):
        pytest.skip(f"no x86 SIMD sort kernel here ({sortkernel.describe()})")
    kernel, simd = _probe(None)
    assert kernel == sortkernel.numpy_sort_kernel()
    off, scalar = _probe("X86_V3 X86_V4 AVX2 AVX512F AVX512CD AVX512_SKX")
    assert off == "scalar"
    assert scalar != simd
