"""The frozen bundle's dependency layer: everything PyInstaller makes, built once per set of inputs and cached.

A bundle (``packaging/build_bundle.py``) is two parts. The layer is PyInstaller's onedir folder without the app:
the Python runtime, the executable, every third-party and standard module the app imports (in the executable's
archive), native libraries, Qt plugins, the models' files and the dependencies' metadata. The app, the
``vancetope_desktop`` package, is added to a copy of the layer as plain files by ``build_bundle.py``
(``add_app``): the frozen program imports it from ``sys._MEIPASS``, which is on its ``sys.path``.

PyInstaller analyses every module again on every build (about 100 s of CPU here, whatever its work folder holds),
while the layer's inputs seldom change. So :func:`ensure_layer` builds it under a key, a hash of all it depends on
(:func:`layer_key`), in a user cache folder outside the repository (a CI job clones afresh and keeps its cache),
and a later build with the same key copies it instead. The layer's analysis is not given the app but the modules
the app imports (:func:`app_imports`): every ``import`` and ``from … import`` statement of its source, at any
depth, gathered into one module the analysis follows as PyInstaller would follow the app's own.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path

from platformdirs import user_cache_path

ROOT = Path(__file__).resolve().parent.parent
APP_PACKAGE = "vancetope_desktop"
APP = "vancetope-desktop"
IMPORTS_MODULE = "vancetope_app_imports"
"""The module :func:`app_imports` writes and the spec names as a hidden import (it is never run: the statements sit
in a function nobody calls; the analysis follows them all the same)."""
IMPORTS_FOLDER_ENV = "VANCETOPE_BUNDLE_IMPORTS"
"""The folder holding :data:`IMPORTS_MODULE`, handed to ``installer/vancetope.spec`` by :func:`build_layer`."""
KEPT_LAYERS = 2
"""Layers kept in the cache, the most recently used: the current one and the one before (a branch and main)."""
SYSTEM_LIBRARIES_FILE = "system-libraries.json"
"""Beside a cached layer's onedir folder: the system libraries its native files need (:func:`system_libraries`)."""
_INSTALL_RECORDS = ("/REQUESTED,", "/INSTALLER,", "/direct_url.json,")
"""dist-info files that say how pip installed a distribution (asked for by name or pulled in, from where), not what
it holds: an environment set up in another order (CI's, from a fresh clone) writes them otherwise."""


def _site_packages_entries(record: str | None) -> str:
    """The lines of a distribution's RECORD (``path,hash,size``) for the files it installs in site-packages; console
    scripts (outside) and :data:`_INSTALL_RECORDS` dropped."""
    return "\n".join(line for line in (record or "").splitlines()
                     if not line.startswith("../") and not any(mark in line for mark in _INSTALL_RECORDS))


LAYER_INPUTS = (ROOT / "installer" / "vancetope.spec", ROOT / "installer" / "entry.py",
                ROOT / "installer" / "rthook_offline.py", ROOT / "packaging" / "constraints.txt", Path(__file__))
"""The files a layer is made from, beside the installed distributions and the app's imports: the spec, the entry
script and runtime hook frozen into the executable, the environment's pins and this module (how a layer is made)."""


REQUIRED_QT_PLUGINS = ("platforms/libqxcb.so", "platforms/libqwayland", "xcbglintegrations/",
                       "wayland-shell-integration/", "wayland-decoration-client/",
                       "wayland-graphics-integration-client/libqt-plugin-wayland-egl", "imageformats/", "iconengines/",
                       "platforminputcontexts/")
"""The Qt plugins a desktop session loads (X11 or Wayland, their OpenGL, images, icons, input methods): their system
libraries must be installed. Qt loads the others (GTK's theme, VNC, the framebuffer, touch devices…) only when asked
and skips one whose libraries are missing."""


def default_cache() -> Path:
    """The builder's cache folder: ``<platformdirs user cache dir>/vancetope-desktop-build`` (``~/.cache/…`` here)."""
    return user_cache_path("vancetope-desktop-build")


def app_sources(root: Path = ROOT) -> list[Path]:
    """The app's Python modules, sorted: those of its package folder, Alembic's revisions included (read as files,
    run by Alembic). The files of ``vancetope_desktop.assets`` (``resources/``) are data: its examples are read, not
    run by the app, and its ``__init__.py`` imports nothing."""
    return sorted(path for path in (root / APP_PACKAGE).rglob("*.py") if "__pycache__" not in path.parts)


def app_imports(sources: list[Path]) -> str:
    """The source of :data:`IMPORTS_MODULE`: every absolute import of ``sources`` that is not the app's own, one
    statement per module, in a function that is never called.

    ``import a.b`` stays as written; ``from a import x, y`` gathers every name taken from ``a`` (a name may be a
    submodule, which the analysis then collects, as for the app). Relative imports and ``vancetope_desktop.*`` are
    the app's, added as files; ``__future__`` is the compiler's. Raises SyntaxError on a file that does not parse.
    """
    plain: set[str] = set()
    names: dict[str, set[str]] = {}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                plain.update(alias.name for alias in node.names if alias.name.split(".")[0] != APP_PACKAGE)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module.split(".")[0] not in (
                    APP_PACKAGE, "__future__"):
                names.setdefault(node.module, set()).update(alias.name for alias in node.names)
    lines = [f'"""The modules the app imports ({APP_PACKAGE}/, scanned by packaging/bundle_layer.py)."""', "",
             "", "def _imports():"]
    lines += [f"    import {module}" for module in sorted(plain)]
    lines += [f"    from {module} import {', '.join(sorted(taken))}" for module, taken in sorted(names.items())]
    return "\n".join(lines) + "\n"


def layer_key(imports: str) -> str:
    """A hash of what the layer is made from: Python's version and platform, every installed distribution (name,
    version and its RECORD, which lists each file's hash: PyInstaller, its hooks and the models' distributions
    too), pyproject's dependencies, :data:`LAYER_INPUTS` and the modules the app's imports (``imports``,
    :func:`app_imports`) can bring in (:func:`imported_modules`: a name newly imported from a module already
    imported, a class or a function, leaves the key as it is). 16 hex digits of its sha256."""
    digest = hashlib.sha256()

    def add(label: str, data: str | bytes) -> None:
        data = data.encode() if isinstance(data, str) else data
        digest.update(f"{label}\0{len(data)}\0".encode() + data)

    add("python", f"{sys.version}\0{platform.machine()}\0{platform.libc_ver()}\0{sys.base_prefix}")
    # The app's own distribution is left out: its metadata is the app part's (made from pyproject.toml), and the
    # dependencies the layer copies the metadata of are pyproject's, added below.
    # A RECORD's entries outside site-packages ("../../../bin/chroma") are console scripts, whose hash covers a
    # shebang naming the environment's own path: left out, so that a clone elsewhere (CI's) finds the same layer.
    installed = sorted((dist.metadata["Name"] or "", dist.version, _site_packages_entries(dist.read_text("RECORD")))
                       for dist in metadata.distributions() if dist.metadata["Name"] != APP)
    for name, version, record in installed:
        add("distribution", f"{name}\0{version}\0{record}")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    add("dependencies", json.dumps([project.get("dependencies"), project.get("optional-dependencies")],
                                   sort_keys=True))
    for path in LAYER_INPUTS:
        add(path.name, path.read_bytes())
    add("imports", "\n".join(imported_modules(imports)))
    return digest.hexdigest()[:16]


def imported_modules(imports: str) -> list[str]:
    """The modules the analysis of ``imports`` (:func:`app_imports`) can take, sorted: each ``import`` statement's
    module, and for ``from X import a, b``, X and X.a, X.b, leaving out the names that cannot be submodules: X is
    a module file, or a package in whose folders nothing bears the name (:func:`_package_entries`); when X's files
    cannot be found (a finder of its own), every name is kept. The analysis follows X.a only when it is a module, so
    two sets of statements with the same modules make the same layer."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(imports)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module)
            entries = _package_entries(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names
                           if entries is None or alias.name in entries)
    return sorted(modules)


def _package_entries(module: str) -> set[str] | None:
    """What lies in the folders of the package ``module`` (file and folder names up to their first dot), found
    without importing it; an empty set for a module that is a file; None when its files cannot be found."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations is None:
        # A module (a file, built into Python or frozen into it) has no submodules.
        known = spec.origin in ("built-in", "frozen") or (spec.origin and Path(spec.origin).is_file())
        return set() if not rest and known else None
    entries: set[str] | None = None
    for location in spec.submodule_search_locations:
        folder = Path(location).joinpath(*rest)
        if folder.is_dir():
            entries = (entries or set()) | {name.split(".")[0] for name in os.listdir(folder)}
        elif rest and any(folder.parent.glob(f"{folder.name}.*")) and entries is None:
            entries = set()  # a module file inside the package: only attributes to import from it
    return entries


def ensure_layer(work: Path, cache: Path | None = None, fresh: bool = False) -> Path:
    """The layer's onedir folder for the current inputs, in ``cache`` (:func:`default_cache` when None): the
    cached one, else built (:func:`build_layer`) and cached. ``fresh``: build even when cached, and replace it.

    Prints "layer: cached KEY" or "layer: built KEY" with the seconds and CPU seconds it took. Keeps the
    :data:`KEPT_LAYERS` most recently used layers. Never modify the returned folder: copy it.
    """
    cache = cache or default_cache()
    cache.mkdir(parents=True, exist_ok=True)
    imports = app_imports(app_sources())
    key = layer_key(imports)
    layer = cache / f"layer-{key}"
    started, cpu = time.monotonic(), cpu_seconds()
    if fresh or not (layer / APP).is_dir():
        build_layer(imports, work, cache, layer)
        print(f"layer: built {key} in {time.monotonic() - started:.0f} s ({cpu_seconds() - cpu:.0f} s of CPU), "
              f"cached in {layer}", flush=True)
    else:
        print(f"layer: cached {key} ({layer})", flush=True)
    os.utime(layer)  # its last use, for the pruning
    _prune(cache)
    return layer / APP


def build_layer(imports: str, work: Path, cache: Path, layer: Path) -> None:
    """Run PyInstaller on the spec with ``imports`` (:func:`app_imports`) for the app, strip the libraries'
    debug sections (:func:`strip_debug_info`), and move the result to ``layer`` in one rename.

    The build goes to a folder of its own in ``cache``, renamed into place only when complete: a killed build leaves
    no layer that a later one would use, and two builds at once each make theirs (the second's rename replaces the
    first's identical layer, or when ``layer`` was not there, simply lands)."""
    building = cache / f".building-{layer.name}-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    imports_folder = work / "app-imports"
    imports_folder.mkdir(parents=True, exist_ok=True)
    (imports_folder / f"{IMPORTS_MODULE}.py").write_text(imports, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env[IMPORTS_FOLDER_ENV] = str(imports_folder)
    try:
        subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath",
                        str(building), "--workpath", str(work), str(ROOT / "installer" / "vancetope.spec")],
                       env=env, cwd=ROOT, check=True)
        stripped = strip_debug_info(building / APP)
        print(f"layer: debug information stripped from {stripped} libraries", flush=True)
        (building / SYSTEM_LIBRARIES_FILE).write_text(json.dumps(system_libraries(building / APP), indent=1),
                                                      encoding="utf-8")
        stale = cache / f".stale-{layer.name}-{os.getpid()}"
        if layer.exists():  # a fresh build (--fresh-layer), or a build run at the same time finished first
            layer.rename(stale)
        building.rename(layer)
        shutil.rmtree(stale, ignore_errors=True)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def system_libraries(bundle: Path) -> dict[str, list[str]]:
    """The shared libraries that the bundle's executable, its Python extensions and libraries, and the Qt plugins
    of :data:`REQUIRED_QT_PLUGINS` take from the system: {soname: the bundle's files needing it}. Read with
    ``ldd`` with the bundle's folders first on the library path, as the frozen program loads them; a library
    this machine lacks is listed too (``ldd`` says "not found"). The app part adds no native file (``add_app`` in
    build_bundle.py refuses one): a layer's are its bundle's, recorded once (:func:`layer_system_libraries`)."""
    internal = bundle / "_internal"
    plugins = internal / "PySide6" / "Qt" / "plugins"
    files = [bundle / APP]
    for path in sorted(internal.rglob("*.so*")):
        if path.is_file() and not path.is_symlink():
            relative = path.relative_to(plugins).as_posix() if path.is_relative_to(plugins) else None
            if relative is None or relative.startswith(REQUIRED_QT_PLUGINS):
                files.append(path)
    folders = sorted({str(path.parent) for path in internal.rglob("*.so*")})
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(folders))
    needed: dict[str, set[str]] = {}
    for path in files:
        done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
        for line in done.stdout.splitlines():
            name, arrow, target = line.strip().partition(" => ")
            if arrow and not target.startswith(str(internal)):
                needed.setdefault(name, set()).add(str(path.relative_to(bundle)))
    return {name: sorted(files) for name, files in sorted(needed.items())}


def layer_system_libraries(layer: Path) -> dict[str, list[str]]:
    """What :func:`system_libraries` found in the layer whose onedir folder is ``layer`` (:func:`ensure_layer`'s),
    read with ``ldd`` when it was built (about 8 s of CPU: 250 files) and kept beside it."""
    return json.loads((layer.parent / SYSTEM_LIBRARIES_FILE).read_text(encoding="utf-8"))


def _prune(cache: Path) -> None:
    """Remove all but the :data:`KEPT_LAYERS` most recently used layers, and what builds killed mid-way left."""
    layers = sorted(cache.glob("layer-*"), key=lambda path: path.stat().st_mtime, reverse=True)
    for old in layers[KEPT_LAYERS:]:
        shutil.rmtree(old, ignore_errors=True)
    day_ago = time.time() - 86400  # a build in progress is younger
    for leftover in (*cache.glob(".building-*"), *cache.glob(".stale-*")):
        if leftover.stat().st_mtime < day_ago:
            shutil.rmtree(leftover, ignore_errors=True)


def cpu_seconds() -> float:
    """CPU seconds of this process and of the children it waited for (user + system)."""
    usage = os.times()
    return usage.user + usage.system + usage.children_user + usage.children_system


def strip_debug_info(bundle: Path) -> int:
    """Remove the debugging sections (``strip --strip-debug``) from the bundle's ELF files that have a
    ``.debug_info`` section; returns how many. Those are the libraries compiled on the build machine (pyenv's
    libpython, 23 MB of which 17 are debug information; the extensions pip built from source): 76 files, 57 MB
    before and 16 after, the .deb 14 MB lighter (3 Dec 2026). Symbols and all the loader reads stay. Libraries
    that auditwheel vendored into a wheel's ``<name>.libs`` folder are left alone even with debug sections:
    patchelf has moved their segments, and strip then breaks them ("ELF load command address/offset not
    page-aligned", numpy's libgfortran)."""
    stripped = 0
    for path in sorted(bundle.rglob("*")):
        if path.is_symlink() or not path.is_file() or any(p.endswith(".libs") for p in path.relative_to(bundle).parts):
            continue
        if ".debug_info" in _elf_sections(path):
            subprocess.run(["strip", "--strip-debug", str(path)], check=True)
            stripped += 1
    return stripped


def _elf_sections(path: Path) -> set[str]:
    """The section names of a 64-bit little-endian ELF file (x86-64, aarch64); empty for any other file."""
    with path.open("rb") as handle:
        header = handle.read(64)
        if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            return set()
        section_offset, = struct.unpack_from("<Q", header, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", header, 0x3A)
        if not count or names_index >= count:
            return set()
        handle.seek(section_offset + names_index * entry_size)
        names_offset, names_size = struct.unpack_from("<QQ", handle.read(entry_size), 0x18)
        handle.seek(names_offset)
        names = handle.read(names_size)
        found = set()
        for index in range(count):
            handle.seek(section_offset + index * entry_size)
            name_at, = struct.unpack_from("<I", handle.read(4))
            found.add(names[name_at:names.find(b"\0", name_at)].decode("ascii", "replace"))
        return found
