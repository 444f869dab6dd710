"""The one config object of the Theorem 26 derivation (all tunable constants)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeriveConfig:
    n_max: int = 10**9                      # the proved n-range is [1, n_max] (real n)
    table_ns: tuple[int, ...] = (10, 10**3, 10**6, 10**9)
    ratio_n: int = 10**6                    # where the elementary form is compared with the exact τ
    prec_bits: int = 192                    # arb working precision
    bisect_steps: int = 70                  # root isolation of the exact τ (relative width ~2^-60)
    ucover_depth: int = 8                   # ball cover of a u-interval (fallback when not monotone)
    cover_pieces: int = 240                 # initial geometric pieces of [1, n_max]
    cover_depth: int = 16                   # bisections allowed per piece
    fit_points_per_decade: int = 4          # exact τ samples used to propose C and A
    c_denominator: int = 100                # C is rounded up to a multiple of 1/c_denominator
    fit_margins: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.25, 0.5)
    max_L: int = 64                         # the shipped Dyck-2 model has 17 layers


CONFIG = DeriveConfig()
