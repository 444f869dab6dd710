"""Progress for the commands that can take more than a few seconds (certify, check, compile --check, prove, run).

Why on stderr, always: stdout carries the result (or the --json object), so progress must
never mix into it, and a user who pipes stdout still wants to see that work is going on.
On a terminal it is a rich progress bar (transient); elsewhere (a pipe, a log file, CI) it
is plain ``certify: STAGE DONE/TOTAL`` lines, one when a stage starts or ends and at most
one every ``EVERY`` seconds in between.  ``--quiet`` turns it off.
"""
from __future__ import annotations

import sys
import time

EVERY = 2.0


class Progress:
    """A context manager whose value is the ``progress(stage, done, total)`` callback the API takes."""

    def __init__(self, enabled: bool, stream=None):
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.bar = None
        self.tasks: dict[str, int] = {}
        self.stage: str | None = None
        self.last = 0.0

    def __enter__(self):
        if self.enabled and self.stream.isatty():
            from rich.console import Console
            from rich.progress import Progress as Bar

            self.bar = Bar(console=Console(file=self.stream), transient=True)
            self.bar.start()
        return self.update

    def update(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            if stage not in self.tasks:
                self.tasks[stage] = self.bar.add_task(stage, total=total)
            self.bar.update(self.tasks[stage], completed=done, total=total)
            return
        now = time.monotonic()
        if stage != self.stage or done >= total or now - self.last >= EVERY:
            print(f"certify: {stage} {done}/{total}", file=self.stream, flush=True)
            self.stage, self.last = stage, now

    def __exit__(self, *exc) -> bool:
        if self.bar is not None:
            self.bar.stop()
        return False
