"""Construction correctness as a gate: compiled hard model vs. the reference.

A :class:`Task` pairs a compiled model with its specification (a function from a
word to the expected decisions at the model's output positions).  :func:`check`
runs the model's exact hard semantics (``certify.evaluate.hard_run``) on every
word up to the exhaustive length and on random words, and stops at the first
counterexample; it then compares the soft model at the model's proposed
temperature (``soft_run``, mpmath) with the hard one on a sample of those words
(an empirical check; certification is issue 6's job).
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Callable, Sequence

from certify.evaluate import hard_run, soft_run
from certify.model import Model, format_word, model_from_dict

from .compiler import compile_formula
from .formula import evaluate, parse_formula
from .tasks import (BRACKETS, compile_dyck, compile_induction, dyck_alphabet, dyck_reference,
                    induction_reference)


@dataclass(frozen=True)
class Task:
    """A compiled model and the specification it must meet."""

    model: dict
    reference: Callable[[tuple], tuple[bool, ...]]
    sampler: Callable[[random.Random, int], tuple] | None = None  # word of a given length

    @property
    def alphabet(self) -> tuple[str, ...]:
        return tuple(self.model["alphabet"])


def formula_task(text: str, alphabet: Sequence[str], scheme: str, transduction: bool = False,
                 name: str | None = None) -> Task:
    f = parse_formula(text)
    model = compile_formula(f, alphabet, scheme, transduction, name=name, source=text)
    if transduction:
        return Task(model, lambda w: tuple(evaluate(f, w)))
    return Task(model, lambda w: (evaluate(f, w)[-1],))


def induction_task(alphabet: Sequence[str], target: str, scheme: str, name: str | None = None) -> Task:
    model = compile_induction(tuple(alphabet), target, scheme, name)
    return Task(model, lambda w: tuple(induction_reference(w, target)))


def dyck_task(k: int, name: str | None = None) -> Task:
    model = compile_dyck(k, name=name)
    return Task(model, lambda w: (dyck_reference(w, k),), lambda rng, n: dyck_sample(rng, n, k))


def dyck_sample(rng: random.Random, n: int, k: int) -> tuple:
    """Near-members of Dyck-k: a random balanced word, then (half the time) one edit."""
    pairs = BRACKETS[:k]
    word, stack = [], []
    while len(word) + len(stack) < n:
        if stack and (rng.random() < 0.5 or len(word) + len(stack) + 2 > n):
            word.append(stack.pop())
        else:
            o, c = rng.choice(pairs)
            word.append(o)
            stack.append(c)
    word += stack[::-1]
    word = word[:n]
    if rng.random() < 0.5 and word:
        word[rng.randrange(len(word))] = rng.choice(dyck_alphabet(k))
    return tuple(word)


@dataclass
class CheckResult:
    ok: bool
    hard_words: int = 0
    soft_words: int = 0
    counterexample: str | None = None
    messages: list[str] = field(default_factory=list)


def words(alphabet: Sequence[str], exhaustive: int, random_count: int, max_len: int, seed: int, sampler=None):
    """Every word of length 1..exhaustive, then ``random_count`` random words of
    length 1..max_len (half from ``sampler`` when the task has one)."""
    for n in range(1, exhaustive + 1):
        yield from itertools.product(alphabet, repeat=n)
    rng = random.Random(seed)
    for k in range(random_count):
        n = rng.randint(1, max(1, max_len))
        if sampler is not None and k % 2 == 0:
            yield sampler(rng, n)
        else:
            yield tuple(rng.choice(alphabet) for _ in range(n))


def _describe(model: Model, word, got, want) -> str:
    first = 0 if model.bos else 1
    positions = [n + first for n in range(len(got))] if model.output.position == "all" else [len(word)]
    for p, g, e in zip(positions, got, want):
        if g != e:
            return (f"word {format_word(model, word)!r} (n={len(word)}), position {p}: model says "
                    f"{str(g).lower()}, reference says {str(e).lower()}")
    return f"word {format_word(model, word)!r}: outputs differ in length"


def _no_progress(_stage: str, _done: int, _total: int) -> None:
    return None


def check(task: Task, exhaustive: int = 8, random_count: int = 500, max_len: int = 64, seed: int = 0,
          soft: int = 10, progress: Callable[[str, int, int], None] = _no_progress) -> CheckResult:
    """``progress(stage, done, total)`` is called once a word (``certify compile --check`` shows it)."""
    model = model_from_dict(task.model)
    result = CheckResult(ok=True)
    checked = []
    total = sum(len(task.alphabet) ** n for n in range(1, exhaustive + 1)) + random_count
    for w in words(task.alphabet, exhaustive, random_count, max_len, seed, task.sampler):
        got = hard_run(model, w).decisions
        want = tuple(task.reference(w))
        result.hard_words += 1
        progress("hard words", result.hard_words, total)
        if got != want:
            result.ok = False
            result.counterexample = "hard model disagrees with the reference: " + _describe(model, w, got, want)
            return result
        checked.append((w, got))
    if model.temperature is None or soft <= 0:
        return result
    sample = soft_sample(checked, soft)
    for w, got in sample:
        s = soft_run(model, w, model.temperature).decisions
        result.soft_words += 1
        progress("soft words", result.soft_words, len(sample))
        if s != got:
            result.ok = False
            result.counterexample = ("soft model at the proposed temperature disagrees with the hard model: "
                                     + _describe(model, w, s, got))
            return result
    return result


def soft_sample(checked: list, count: int) -> list:
    """``count`` checked words spread evenly over the lengths, longest included."""
    by_length = sorted(checked, key=lambda item: len(item[0]))
    if count >= len(by_length):
        return by_length
    step = (len(by_length) - 1) / max(1, count - 1)
    return [by_length[round(k * step)] for k in range(count)]
