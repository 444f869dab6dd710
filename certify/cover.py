"""Box covers of the length range [n_min, n_max].

Small lengths get one box each (exact n); beyond, boxes grow geometrically so
that a cover of [1, 10^12] has a few hundred boxes and costs little more than a
cover of [1, 10^3].  Boxes are contiguous with integer endpoints, which the
checker re-verifies.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class CoverConfig:
    singletons_up_to: int = 64
    ratio: Fraction = Fraction(17, 16)


def cover(n_min: int, n_max: int, cfg: CoverConfig = CoverConfig()) -> list[tuple[int, int]]:
    if n_min < 1 or n_max < n_min:
        raise ValueError(f"bad range [{n_min}, {n_max}]")
    boxes = []
    a = n_min
    while a <= n_max:
        b = a if a <= cfg.singletons_up_to else min(n_max, int(a * cfg.ratio))
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
