"""The sweep's progress bar columns."""

from __future__ import annotations

import time

from rich.progress import ProgressColumn, Task
from rich.text import Text

__all__ = ["EtaColumn", "FailedColumn", "RunsColumn"]


class RunsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.completed:,.0f}/{task.total or 0:,.0f} runs", style="progress.download")


class FailedColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        n = int(task.fields.get("failed", 0))
        return Text(f"{n} failed", style="bold red" if n else "dim")


class EtaColumn(ProgressColumn):
    """ETA from the runs done by this call (runs found on disk do not count)."""

    def render(self, task: Task) -> Text:
        start = task.fields.get("t0")
        done_now = task.completed - task.fields.get("skipped", 0)
        left = (task.total or 0) - task.completed
        if not start or done_now <= 0:
            return Text("eta -:--:--", style="progress.remaining")
        per = (time.perf_counter() - start) / done_now
        s = int(per * left + 0.5)
        return Text(f"eta {s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}", style="progress.remaining")

