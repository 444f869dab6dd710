"""Test words for comparing soft with hard: exhaustive, seeded random, and adversarial.

Why adversarial families: soft attention fails first where hard attention's decision is
closest to a tie — a long run of keys one score step below the maximum, a single differing
symbol at the first or last position (the key farthest from, or nearest to, the query), a
match at the far end of the word, counts that are balanced or off by one, and alternations
that put many near-maximal keys next to each other.  Random words rarely hit these at large
n, so :func:`adversarial_words` builds them from the alphabet for every pair of symbols.
All families are deterministic (random ones from an explicit seed), so a word set is named by
its :class:`WordSet` description and results can be cached and compared across runs.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from .model import Model

Word = tuple[str, ...]


def run_length(word, width: int = 48) -> str:
    """A word as runs, ``b^98 c b`` (symbols joined by spaces), cut at ``width`` characters with "…": how
    the benchmarks print the long adversarial words they report."""
    text = " ".join(s if k == 1 else f"{s}^{k}" for s, k in ((s, len(list(g))) for s, g in itertools.groupby(word)))
    return text if len(text) <= width else text[:width - 1] + "…"


def _unique(words) -> tuple[Word, ...]:
    return tuple(dict.fromkeys(tuple(w) for w in words))


def exhaustive_words(model: Model, n: int) -> tuple[Word, ...]:
    """Every word of length n, in lexicographic order of the alphabet."""
    return tuple(itertools.product(model.alphabet, repeat=n))


def random_words(model: Model, count: int, lengths: tuple[int, ...], seed: int) -> tuple[Word, ...]:
    """``count`` seeded random words; half uniform over the alphabet, half over a random pair of
    symbols (at large n a uniform word almost never has the skewed counts that matter)."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        n = rng.choice(lengths)
        symbols = model.alphabet if k % 2 == 0 or len(model.alphabet) < 3 else tuple(rng.sample(model.alphabet, 2))
        out.append(tuple(rng.choice(symbols) for _ in range(n)))
    return tuple(out)


def adversarial_words(model: Model, n: int) -> tuple[Word, ...]:
    """Words of length n built to sit near a decision boundary (see the module docstring)."""
    sigma = model.alphabet
    half = n // 2
    out: list[Word] = [tuple(s for _ in range(n)) for s in sigma]
    out.append(tuple(sigma[k % len(sigma)] for k in range(n)))  # the alphabet repeated
    for s, t in itertools.permutations(sigma, 2):
        background = [s] * n
        for p in sorted({0, 1, half, n - 2, n - 1} & set(range(n))):  # one t at a boundary or in the middle
            w = list(background)
            w[p] = t
            out.append(tuple(w))
        if n >= 2:
            out.append(tuple([t] + [s] * (n - 2) + [t]))  # a far match: t at both ends
        for k in sorted({1, half - 1, half, n - half, half + 1, n - 1} & set(range(1, n))):  # runs, balanced counts ± 1
            out.append(tuple([s] * k + [t] * (n - k)))
        out.append(tuple(s if k % 2 == 0 else t for k in range(n)))  # alternation
        out.append(tuple(t if k % 3 == 2 else s for k in range(n)))  # t every third position
    for s, t, u in itertools.permutations(sigma, 3):  # a far match of a bigram: s t … s (induction heads)
        if n >= 3:
            out.append(tuple([s, t] + [u] * (n - 3) + [s]))
    return _unique(out)


@dataclass(frozen=True)
class WordSet:
    """The words tried at one length n: adversarial families, seeded random words, and every
    word when there are at most ``exhaustive`` of them."""

    adversarial: bool = True
    random: int = 32
    exhaustive: int = 1024
    seed: int = 0

    def describe(self) -> str:
        """A canonical name (part of the cache key: the same name means the same words)."""
        return f"adversarial={int(self.adversarial)},random={self.random},exhaustive<={self.exhaustive},seed={self.seed}"

    def words(self, model: Model, n: int) -> tuple[Word, ...]:
        out: list[Word] = []
        if len(model.alphabet) ** n <= self.exhaustive:
            out.extend(exhaustive_words(model, n))
        if self.adversarial:
            out.extend(adversarial_words(model, n))
        out.extend(random_words(model, self.random, (n,), self.seed * 1_000_003 + n))
        return _unique(out)


def parse_word_set(text: str, seed: int = 0, flag: str = "--words") -> WordSet:
    """``adversarial,random:32,exhaustive:1024`` (any subset; ``random:0`` or omission turns a family off)."""
    from .errors import UserError

    fields = {"adversarial": False, "random": 0, "exhaustive": 0}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, value = part.partition(":")
        if name not in fields:
            raise UserError(f"{flag}: unknown word family {name!r} (families: adversarial, random:N, exhaustive:LIMIT)")
        if name == "adversarial":
            if value:
                raise UserError(f"{flag}: 'adversarial' takes no count")
            fields[name] = True
            continue
        if not value.isdigit():
            raise UserError(f"{flag}: {name} needs a count, e.g. {name}:32")
        fields[name] = int(value)
    if not (fields["adversarial"] or fields["random"] or fields["exhaustive"]):
        raise UserError(f"{flag}: the word set is empty")
    return WordSet(fields["adversarial"], fields["random"], fields["exhaustive"], seed)
