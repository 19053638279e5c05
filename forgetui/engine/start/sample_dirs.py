"""Where the bundled samples are, and whether a PATH names one: no file model is imported here,
so the launcher knows before anything else whether the task it opens exists yet (a sample is
copied first; nothing can be read ahead of that)."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine.folder.layout import FORGE_DIR, TASK_FILE, TASKS_DIR
from forgetui.paths import data_dir


def sample_names() -> list[str]:
    root = data_dir("sample_tasks")
    return sorted(p.name for p in root.iterdir() if (p / "task.yaml").is_file())


def find_sample(name_or_path: str | Path) -> Path | None:
    """A sample folder (task.yaml + workspace/) by bundled name or by path; None if neither."""
    path = Path(name_or_path)
    if (path / "task.yaml").is_file() and (path / "workspace").is_dir():
        return path
    if isinstance(name_or_path, str) and "/" not in name_or_path:
        candidate = data_dir("sample_tasks") / name_or_path
        if (candidate / "task.yaml").is_file():
            return candidate
    return None


def opens_a_sample(path: str | None, cwd: Path) -> bool:
    """`forgetui open PATH` (`forgetui` in `cwd` without PATH) certainly copies a sample: PATH
    names one, or there is no PATH and `cwd` is neither a task folder nor a workspace. Directory
    entries only; False when in doubt (an empty tasks folder): the launcher finds out."""
    if path is not None:
        return find_sample(path) is not None
    return not (cwd / TASK_FILE).is_file() and not (cwd / FORGE_DIR / TASKS_DIR).is_dir()
