"""Box covers of the length range [n_min, n_max].

Small lengths get one box each (exact n); beyond, boxes grow geometrically (by
1/16 up to 4096, then doubling) so that a cover of [1, 10^12] has about 170 boxes
and costs little more than a cover of [1, 10^3] (about 110).  Boxes are contiguous with integer endpoints, which the
checker re-verifies.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class CoverConfig:
    singletons_up_to: int = 64
    ratio: Fraction = Fraction(17, 16)
    fine_up_to: int = 4096  # beyond this, boxes double (ratio-free bounds such as |A(n)|/τ(n) lose nothing)
    coarse_ratio: Fraction = Fraction(2)


def cover(n_min: int, n_max: int, cfg: CoverConfig = CoverConfig()) -> list[tuple[int, int]]:
    if n_min < 1 or n_max < n_min:
        raise ValueError(f"bad range [{n_min}, {n_max}]")
    boxes = []
    a = n_min
    while a <= n_max:
        ratio = cfg.ratio if a <= cfg.fine_up_to else cfg.coarse_ratio
        b = a if a <= cfg.singletons_up_to else min(n_max, int(a * ratio))
        b = min(max(a, b), n_max)
        boxes.append((a, b))
        a = b + 1
    return boxes


def split(box: tuple[int, int]) -> list[tuple[int, int]]:
    a, b = box
    if a == b:
        return [box]
    m = (a + b) // 2
    return [(a, m), (m + 1, b)]
