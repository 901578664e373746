"""Disjoint, sorted text regions: is this span inside one, does it touch one."""

from __future__ import annotations

from bisect import bisect_right


class Regions:
    """Disjoint, sorted text regions, for "is this span inside one?" lookups."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def covers(self, start: int, end: int) -> bool:
        """Tell whether ``start:end`` lies within one region."""
        index = bisect_right(self._starts, start) - 1
        return index >= 0 and end <= self._ends[index]

    def overlaps(self, start: int, end: int) -> bool:
        """Tell whether ``start:end`` shares a character with a region."""
        index = bisect_right(self._starts, end - 1) - 1
        return index >= 0 and start < self._ends[index]
