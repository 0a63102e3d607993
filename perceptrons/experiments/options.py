"""What every reproduction's ``run`` takes: :class:`RunOptions`."""

from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunOptions"]


@dataclass(frozen=True)
class RunOptions:
    """Options of ``perceptrons reproduce NAME`` and of a reproduction's ``run``.

    New options go here, with a default, so every reproduction keeps its
    signature ``run(options)``.

    Parameters
    ----------
    output_dir : path-like, default="perceptrons_output"
        Where results, tables and figures are written.
    quick : bool, default=False
        The small configuration (seconds, for CI), instead of the paper's.
    progress : bool or None, default=None
        Show progress bars; None: only on a terminal.
    jobs : int, default=1
        Parallel worker processes (joblib) for the tasks.
    resume : bool, default=False
        Keep records already in the store and run only the missing tasks.
    scheduler : str or None, default=None
        Address of a Dask scheduler (``tcp://host:8786``, or ``local:N``
        for a new local cluster of N workers) to run the tasks on; None
        runs them locally.
    render_only : bool, default=False
        Run nothing: render the report again from the records in
        ``output_dir``.
    """

    output_dir: Path = Path("perceptrons_output")
    quick: bool = False
    progress: bool | None = None
    jobs: int = 1
    resume: bool = False
    scheduler: str | None = None
    render_only: bool = False

    def __post_init__(self):
        object.__setattr__(self, "output_dir", Path(self.output_dir))
        if int(self.jobs) < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs!r}")
