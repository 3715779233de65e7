"""What a reproduction wrote: the output folder and the files written into it."""

from __future__ import annotations

from dataclasses import dataclass

from synthcert._result import Result


@dataclass(frozen=True)
class Written(Result):
    """The base of a reproduction's result: the output folder and every file written into it
    (as strings, in the order written); each reproduction adds its headline figures.

    Attributes
    ----------
    out_dir : str
        The output directory.
    files : tuple of str
        Every file written.
    """

    out_dir: str
    files: tuple[str, ...]


__all__ = ["Written"]
