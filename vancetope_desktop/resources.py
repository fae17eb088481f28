"""Where the app's run-time files live (icons, styles, the user guide, the demo library, the examples), and
the one way to reach them.

The design card's top-level ``resources/`` folder is their source. The build installs it as the package
``vancetope_desktop.assets`` (pyproject ``[tool.setuptools.package-dir]`` maps that package onto the folder and
``package-data`` names the files it takes; ``resources/screenshots``, README's pictures, stays out), so an
installed wheel holds them inside the package and reads them with :mod:`importlib.resources`. Run from a
source checkout (``PYTHONPATH``, or the editable install ``packaging/dev.py setup`` makes), the package reads
the checkout's own ``resources/``: the editable finder maps ``vancetope_desktop.assets`` to the checkout it was
installed from, which is another one when a second work tree runs on the same virtualenv.

Qt (QIcon, a stylesheet's ``url()``) and PyMuPDF open files by path, so :func:`resource_path` hands out a real
file path through :func:`importlib.resources.as_file`: on an installed package that is the file itself; from an
archive it would be a copy that lives until the process ends.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

ASSETS = "vancetope_desktop.assets"
"""The installed package that holds the resources (pyproject ``[tool.setuptools.package-dir]``)."""

_CHECKOUT = Path(__file__).resolve().parent.parent
# Copies made by as_file for a resource inside an archive: kept until the process ends, as Qt may read them late.
_extracted = ExitStack()
atexit.register(_extracted.close)


def source_checkout() -> Path | None:
    """The source checkout this package runs from (the folder holding ``pyproject.toml`` and ``resources/``
    beside the package), or None for an installed package."""
    if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "resources").is_dir():
        return _CHECKOUT
    return None


def resources_root() -> Traversable:
    """The folder of the resources: the checkout's ``resources/`` when this package runs from a source
    checkout (:func:`source_checkout`), else the installed package :data:`ASSETS`.

    Raises:
        FileNotFoundError: neither is there (a broken install).
    """
    checkout = source_checkout()
    if checkout is not None:
        return checkout / "resources"
    try:
        return resources.files(ASSETS)
    except ModuleNotFoundError:
        raise FileNotFoundError(f"missing resources: no package {ASSETS} and no checkout at {_CHECKOUT}") from None


def resource_path(*parts: str) -> Path:
    """A real file-system path of the resource ``parts`` (e.g. ``resource_path("demo", "demo.yaml")``, or
    ``resource_path("icons")`` for the folder), valid until the process ends.

    Raises:
        FileNotFoundError: the resource is missing (a broken install).
    """
    resource = resources_root().joinpath(*parts)
    if not (resource.is_file() or resource.is_dir()):
        raise FileNotFoundError(f"missing resource {'/'.join(parts)} in {resources_root()}")
    if isinstance(resource, Path):  # on disk (a checkout, an installed wheel): the file itself
        return resource
    return _extracted.enter_context(resources.as_file(resource))
