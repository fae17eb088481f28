"""Where the shipped resources (demo library, stylesheets, icons, examples) live."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    """The path of a file under ``resources/`` (e.g. ``resource_path("demo", "demo.yaml")``).

    Raises:
        FileNotFoundError: the resource is missing (a broken install).
    """
    path = RESOURCES.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"missing resource {path}")
    return path
