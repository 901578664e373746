"""The detector's exceptions."""

from __future__ import annotations

import os

from relapse.exceptions import RelapseError

__all__ = ["DetectorInputError", "DetectorModelError"]


class DetectorModelError(RelapseError, FileNotFoundError):
    """
    A detector model cannot be loaded: the directory, a file in it, or the hub id is missing.

    Attributes:
        path: The directory (or hub id) that was being loaded.
        missing: The file names it lacks (one of each alternative group),
            empty when the directory itself cannot be found.
    """

    def __init__(
        self, message: str, path: os.PathLike[str] | str, missing: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.path = path
        self.missing = missing

    def __reduce__(
        self,
    ) -> tuple[type[DetectorModelError], tuple[str, os.PathLike[str] | str, tuple[str, ...]]]:
        return (type(self), (str(self), self.path, self.missing))


class DetectorInputError(RelapseError, ValueError):
    """An answer the detector cannot judge: it does not fit in the model's window on its own."""
