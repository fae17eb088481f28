"""Build the frozen app (PyInstaller, ``installer/vancetope.spec``) and its Linux package (.deb); check it runs.

Usage (from the repository root, with the dev environment of ``packaging/dev.py setup``)::

    .venv/bin/python packaging/build_bundle.py            # build dist/vancetope-desktop/ and dist/*.deb
    .venv/bin/python packaging/build_bundle.py --check    # build, then start the bundle offscreen and check it
    .venv/bin/python packaging/build_bundle.py --check --no-build   # check the bundle built before

Before the build (minutes), the script checks what the asked steps need and stops with what is missing
(:func:`preflight`): for ``--check`` the corpus paper it uploads, ``$VANCETOPE_SHARED/corpus/papers`` (default
``../shared`` beside the repository); ``strip``, ``ldd``, ``dpkg-deb`` and ``zstd``; the bundled models'
distributions; PyInstaller (pyproject's ``bundle`` extra, which ``packaging/dev.py setup`` installs; installed into
the running environment when missing).

The bundle is two parts (``packaging/bundle_layer.py``): PyInstaller's folder without the app, the dependency
layer, and the app added to a copy of it as files (:func:`add_app`: its modules compiled, its data, metadata and
ONNX graph). PyInstaller analyses every module again on every build (about 100 s of CPU here, whatever its work
folder, ``--work``, holds), so the layer is cached under a hash of its inputs in the user cache folder (``--cache``)
and only built when they change: the Python, the installed distributions, the spec, entry script and runtime hook,
and the modules the app's code imports. A build with the layer cached takes a few seconds of CPU for the app;
``--fresh-layer`` builds the layer anyway. It prints "layer: cached KEY" or "layer: built KEY" and both figures.

Why a .deb and not an AppImage: the AppImage's ``appimagetool`` and its runtime are downloaded from GitHub
releases, which this project's machines and CI cannot reach; ``dpkg-deb`` is Debian's own tool. The package
installs the bundle under ``/opt/vancetope-desktop`` with ``/usr/bin`` links, a .desktop entry and the icon, and
owns nothing else (not /opt, /usr, /usr/bin: :data:`SYSTEM_DIRS`); it depends on the packages of the libraries
the bundle takes from the system (``ldd``: libc, OpenGL/EGL, libxcb, Wayland's client, cursor and EGL libraries).

``--check`` starts the built bundle as a user would, offscreen, each program in a fresh library and
configuration folder, and fails (exit 1) at the first step that does not hold; each step prints its seconds and
CPU seconds:

1. the window appears (``--startup-probe`` prints "window shown"); time to window is printed (``--starts 0``:
   not timed, the window is the demo probe's, step 2);
2. the window appears, the demo loads and is embedded by the index worker the window starts (frozen: the bundle
   runs itself with ``--worker index_worker``), and a search in the window answers (``--demo-probe``);
3. a real PDF from ``$VANCETOPE_SHARED/corpus/papers`` is uploaded through the command line, extracted in a
   ``spawn`` worker of the bundle (``multiprocessing.freeze_support``), and found by a search on the command line
   (``vancetope memory search``);
4. ``vancetope about`` names pyproject's version and licence, and every component it lists (the models, Qt, each
   library) has its version and licence: a bundled distribution whose metadata the bundle lacks would show
   "not installed"; PyMuPDF's AGPL; no torch;
5. ``vancetope mcp`` answers an MCP client over stdio for a think process's scope: the handshake, its tools (the
   task tools a think process gets among them: the count is printed) and a ``memory_query`` whose hits include a
   demo document matched by meaning, so another frozen program reads the vectors the window's index worker wrote;
6. no torch inside, nor psycopg_binary's libpq;
7. when ``VANCETOPE_TEST_POSTGRES_URL`` and ``VANCETOPE_TEST_CHROMA_URL`` name a PostgreSQL database of its own (an
   empty one: the bundle test makes a fresh one) and a Chroma server (packaging/servers.py's variables), a team
   library (issue 17) on them: ``vancetope library create --team`` (which opens the new library and describes it as
   ``library info`` does), a note added and found by its words (psycopg's pure-Python package on this machine's
   libpq, :data:`CTYPES_DEPENDS`); skipped, and said, without them;

and, when it built the .deb, first that the package holds the links, the desktop entry and the icon and no system
folder, its folders are 755 and root's, it installs the built folder file for file (each path, mode, size and link:
its listing, ``dpkg-deb --contents``, which reads the whole compressed data) and its ``Depends`` cover the system
libraries of that folder (:func:`check_deb`); the steps then run that folder, whose files the package holds (its
data was copied in from them by ``sendfile`` and the listing decompresses all of it, zstd checking its frame's
checksum; running an unpacked copy, ``dpkg-deb -x``, cost 3-4 s of CPU more); then, after the steps, that the
programs wrote nothing into their folder (installed under /opt they could not: nothing is compiled or cached there
at run time).
"""

from __future__ import annotations

import argparse
import json
import os
import py_compile
import shutil
import stat
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import bundle_layer  # packaging/bundle_layer.py, beside this script: the dependency layer
import servers  # packaging/servers.py, beside this script: the test servers' variables

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's app (the ONNX graph's builder), wherever an editable install points
SPEC = ROOT / "installer" / "vancetope.spec"
APP = "vancetope-desktop"
INSTALL_DIR = f"/opt/{APP}"
DEMO_PROJECT = "project/transformer-efficiency"  # services/demo.py DEMO_PROJECT
DEMO_THINK_PROCESS = "think-process/tp_12"  # a think process of the demo (resources/demo/demo.yaml)
DEMO_QUERY = "hardware requirements of FlashAttention"
CHECK_PDF = "phytochemical-investigations-phoenix-paludosa.pdf"
"""The paper ``--check`` uploads: a journal article of 4 pages (title, authors, abstract, references) from the test
corpus. The step checks a mechanism (a frozen ``spawn`` worker extracts, the command line embeds and finds), not
the corpus: the 47-page Higgs paper it used to upload cost 4 s more CPU for the same claim."""
CHECK_PDF_QUERY = "lupeol isolated from the leaves of Phoenix paludosa"
THINK_PROCESS_TOOLS = ("memory_query", "memory_store", "memory_store_result", "mark_task_changed")
"""Tools ``vancetope mcp`` must list for a think process's scope: the memory's, and the task tools only a think
process gets (``agents/mcp_server.py`` TASK_TOOLS; a project's list without them is tests/agents/test_mcp_server.py's
to check, not the bundle's)."""
TEAM_NOTE = "Sea ice retreat measured by the Cryosat mission"  # the team library's check: added, then found by
TEAM_QUERY = "Cryosat"  # a word of it (keyword search: the note is not embedded yet, --no-wait)
MAC_APP = "Vancetope Desktop.app"  # installer/vancetope.spec: its BUNDLE, macOS only
STARTS = 3  # time to window: the first start (files cold in the page cache) and the median of the rest
SYSTEM_LIBRARIES = {
    **dict.fromkeys(("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libresolv.so.2",
                     "libutil.so.1", "ld-linux-x86-64.so.2"), "libc6"),
    "libGL.so.1": "libgl1", "libGLX.so.0": "libglx0", "libGLdispatch.so.0": "libglvnd0", "libOpenGL.so.0": "libopengl0",
    "libEGL.so.1": "libegl1", "libdrm.so.2": "libdrm2", "libxcb.so.1": "libxcb1",
    "libwayland-client.so.0": "libwayland-client0", "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    # Qt's xcb platform plugin's helpers: PyInstaller bundles them from the build machine when it has them; a
    # machine without them (no X11 utilities installed) builds a bundle that takes them from the system.
    "libxcb-icccm.so.4": "libxcb-icccm4", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
}
"""The shared libraries a bundle may take from the system (PyInstaller leaves out libc and the graphics stack, which
must match the machine's drivers) by soname, and the Debian package of each: the .deb depends on those of the
libraries the bundle needs (:func:`deb_depends`), and the build fails on one that is not here."""
DATA_DEPENDS = ("libfontconfig1", "libfreetype6", "libxkbcommon0", "libxkbcommon-x11-0", "libdbus-1-3")
"""Packages of libraries the bundle holds but whose system data they read: the font configuration (and through it a
font), the keyboard layouts (xkb-data), the session bus."""
CTYPES_DEPENDS = ("libpq5",)
"""Packages of system libraries the bundle loads with ctypes, which ``ldd`` does not see: PostgreSQL's client library,
libpq, for a team library's database (issue 17: psycopg's pure-Python package finds it with
``ctypes.util.find_library("pq")``). psycopg_binary, which carries its own libpq, libssl and libcrypto, stays out of
the bundle: 11 MB more, and the .deb must stay under 400 MB."""
SYSTEM_DIRS = (".", "./opt", "./usr", "./usr/bin", "./usr/share")
"""Folders of the .deb's data that every Debian system has (base-files ships or creates them): left out of the
package, so that it owns only its own files and dpkg never tries to remove /opt (nor warns that it is not empty)."""
DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=Vancetope Desktop
Comment={description}
Exec={app} %F
Icon={app}
Terminal=false
Categories=Office;Science;Education;
MimeType=application/pdf;text/markdown;
StartupWMClass={app}
"""


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _run(*args: object, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], check=True, **kwargs)


def _size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir()) / 1e6


def ensure_pyinstaller() -> None:
    """Install pyproject's ``bundle`` extra (PyInstaller) into this environment when it is missing."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        requirements = _project()["optional-dependencies"]["bundle"]
        _run(sys.executable, "-m", "pip", "install", *requirements)


def check_pdf() -> Path:
    """The paper ``--check`` uploads: ``$VANCETOPE_SHARED/corpus/papers/<CHECK_PDF>`` (default: ``../shared`` beside
    the repository). Raises SystemExit naming the variable when it is missing."""
    shared = Path(os.environ.get("VANCETOPE_SHARED") or ROOT.parent / "shared")
    pdf = shared / "corpus" / "papers" / CHECK_PDF
    if not pdf.is_file():
        raise SystemExit(f"--check uploads {pdf}, which is missing: set VANCETOPE_SHARED to the folder that holds "
                         "corpus/papers (the team's test corpus), or leave --check out")
    return pdf


def preflight(args: argparse.Namespace) -> Path | None:
    """Check what the asked steps need before the minutes of the build, cheapest first: the corpus's paper for
    ``--check`` (:func:`check_pdf`); the tools (``strip`` for the build, ``dpkg``, ``dpkg-deb``, ``zstd`` and
    ``ldd`` for the .deb, ``ldd`` for the check); the bundle itself with ``--no-build``, else the bundled models'
    distributions and PyInstaller (installed when missing). Returns the paper (None without ``--check``); raises
    SystemExit with what is missing and how to get it."""
    pdf = check_pdf() if args.check else None
    tools = [*([] if args.no_build else ["strip"]), *([] if args.no_deb else ["dpkg", "dpkg-deb", "zstd"]),
             *(["ldd"] if args.check or not args.no_deb else [])]
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not found on the PATH (Debian: apt install binutils dpkg zstd "
                         "libc-bin)")
    if args.no_build:
        if not (args.dist / APP / APP).is_file():
            raise SystemExit(f"no bundle at {args.dist / APP}: build it first (without --no-build)")
        return pdf
    from importlib import metadata

    from vancetope_desktop.services.licenses import MODELS

    for _model, distribution, *_rest in MODELS:
        try:
            metadata.distribution(distribution)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"the bundled model's distribution {distribution} is not installed in this "
                             "environment: run packaging/dev.py setup") from None
    ensure_pyinstaller()
    return pdf


def build(dist: Path, work: Path, cache: Path | None = None, fresh: bool = False) -> tuple[Path, Path]:
    """Make the onedir folder ``dist/vancetope-desktop``: a copy of the dependency layer (cached, or built by
    PyInstaller: :func:`bundle_layer.ensure_layer`, ``fresh`` to build it anew), then the app (:func:`add_app`).
    Returns the folder and the layer's (in the cache: never change it). Prints the time and CPU of each part."""
    started, cpu = time.monotonic(), bundle_layer.cpu_seconds()
    layer = bundle_layer.ensure_layer(work, cache, fresh)
    bundle = dist / APP
    shutil.rmtree(bundle, ignore_errors=True)
    shutil.copytree(layer, bundle, symlinks=True, copy_function=_link_or_copy)
    layer_done, layer_cpu = time.monotonic(), bundle_layer.cpu_seconds()
    graphs = (cache or bundle_layer.default_cache()) / "onnx-graphs"
    modules = add_app(bundle / "_internal", work, graphs)
    if sys.platform == "darwin":  # the spec's BUNDLE: the .app holds a folder of its own (untested: no macOS here)
        mac_app = dist / MAC_APP
        shutil.rmtree(mac_app, ignore_errors=True)
        shutil.copytree(layer.parent / MAC_APP, mac_app, symlinks=True)
        add_app(mac_app / "Contents" / "Frameworks", work, graphs)
    cli = bundle / "vancetope"
    if not cli.exists():  # Linux: one executable, the command line by its name (installer/entry.py)
        cli.symlink_to(APP)
    print(f"bundle built in {time.monotonic() - started:.0f} s ({bundle_layer.cpu_seconds() - cpu:.0f} s of CPU): "
          f"the layer in {layer_done - started:.0f} s ({layer_cpu - cpu:.0f} s of CPU), the app's {modules} "
          f"modules in {time.monotonic() - layer_done:.1f} s ({bundle_layer.cpu_seconds() - layer_cpu:.1f} s of "
          "CPU)", flush=True)
    return bundle, layer


def _link_or_copy(source: str, target: str) -> None:
    """A layer's file into the bundle: on Linux a hard link (a copy of the ~780 MB took 2 s of CPU and 10 s),
    else, or across file systems, a copy. Nothing writes to the bundle's files after (the app part adds files, the
    .deb reads them, ``--check`` runs the unpacked .deb); strip ran before the layer was cached. macOS's codesign
    rewrites the .app's files in place: copies there."""
    if sys.platform.startswith("linux"):
        try:
            os.link(source, target)
            return
        except OSError:
            pass
    shutil.copy2(source, target)


def add_app(internal: Path, work: Path, graphs: Path) -> int:
    """Add the app to the bundle's folder ``internal`` (``sys._MEIPASS``, on the frozen program's ``sys.path``)
    where PyInstaller used to put it; returns how many modules.

    The ``vancetope_desktop`` package's modules compiled for the bundle's Python (this one: the layer's key holds
    its version) as sourceless ``.pyc`` beside its data files, as its archive held them (no source, nothing
    compiled at run time: the .deb installs under /opt, which the program cannot write); the modules pyproject's
    package-data ships as files (Alembic's revisions) as they are; the packages pyproject maps onto other folders
    (``vancetope_desktop.assets`` is ``resources/``): the files its package-data names and its ``__init__.py``;
    the app's metadata made from pyproject.toml (About's version and licence: the installed one is as old as the
    last ``pip install -e .``); the default precision's ONNX graph (:func:`onnx_graphs`)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    package_data = setuptools.get("package-data", {})
    package = ROOT / bundle_layer.APP_PACKAGE
    as_files = {path for pattern in package_data.get(package.name, []) if pattern.endswith(".py")
                for path in package.glob(pattern)}
    modules = 0
    for path in sorted(package.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
            continue
        relative = path.relative_to(ROOT)
        if path.suffix == ".py" and path not in as_files:
            py_compile.compile(str(path), cfile=str(internal / relative.with_suffix(".pyc")), dfile=str(relative),
                               doraise=True)
            modules += 1
        else:
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":  # the layer's system libraries would not cover it
                    raise SystemExit(f"{relative} is a native file: the app part is Python and data only")
            (internal / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, internal / relative)
    for name, folder in setuptools.get("package-dir", {}).items():
        if name:
            patterns = [*package_data.get(name, []), "__init__.py"]
            for path in sorted({path for pattern in patterns for path in (ROOT / folder).glob(pattern)}):
                target = internal.joinpath(*name.split("."), path.relative_to(ROOT / folder))
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    metadata_folder = work / "app-metadata"
    shutil.rmtree(metadata_folder, ignore_errors=True)
    metadata_folder.mkdir(parents=True)
    _run(sys.executable, "-c", "from setuptools import setup; setup()", "-q", "dist_info", "--output-dir",
         metadata_folder, cwd=ROOT, stdout=subprocess.DEVNULL)
    (dist_info,) = metadata_folder.glob("*.dist-info")
    shutil.copytree(dist_info, internal / dist_info.name)
    (internal / "onnx-graphs").mkdir()
    for graph in onnx_graphs(graphs):
        shutil.copy2(graph, internal / "onnx-graphs" / graph.name)
    return modules


def onnx_graphs(folder: Path) -> list[Path]:
    """The ONNX graphs the bundle ships: the default precision's (int8, ~23 MB; fp32 is built on first use if
    chosen), so the first import needs neither the graph's build (a few seconds) nor the onnx package's quantiser.
    Built into ``folder`` (the builder's cache) when it lacks the graph of the model's files and the builder's
    version (its name holds their key: ``index/onnx_export.py``), else found there. ``$VANCETOPE_BUNDLE_ONNX``:
    a folder of graphs built ahead to ship instead."""
    given = os.environ.get("VANCETOPE_BUNDLE_ONNX")
    if given:
        return sorted(Path(given).glob("*.onnx"))
    from vancetope_desktop.core.settings import BUNDLED_MODEL, Settings
    from vancetope_desktop.index.models import resolve_model
    from vancetope_desktop.index.onnx_export import build_ahead

    return build_ahead(resolve_model(BUNDLED_MODEL), folder, [Settings().embedding_precision])


def build_deb(bundle: Path, dist: Path, level: int = 9, layer: Path | None = None) -> Path:
    """Pack the onedir ``bundle`` into ``dist/vancetope-desktop_<version>_<arch>.deb``; returns its path.

    The package holds ``/opt/vancetope-desktop``, the two ``/usr/bin`` links, the desktop entry and the icon; its
    folders are 755 and everything is root's. ``level`` is zstd's (1-19, or -1 to -10 for its ``--fast`` levels): 9
    for a release; 1 takes a few seconds instead of half a minute for a file about a fifth larger; the bundle test
    packs at -3, 30 % less CPU than 1 for a file 16 % larger (514 MB instead of 442; zstd 2.1 s of CPU instead of
    3.7 on the folder's 753 MB tar, 3 Dec 2026), read by the same decoder. ``layer``: the dependency layer the
    bundle was made from (:func:`build`'s), if any: the system libraries it needs were read when it was built
    (:func:`deb_depends`)."""
    project = _project()
    version = project["version"]
    arch = _run("dpkg", "--print-architecture", capture_output=True, text=True).stdout.strip()
    stage = Path(tempfile.mkdtemp(prefix="vancetope-deb-", dir=dist))
    stage.chmod(0o755)  # mkdtemp makes it 700: the data's "./" entry would say so
    try:
        depends = deb_depends(bundle, layer)
    except CheckFailed as error:
        raise SystemExit(f"cannot pack the .deb: {error}") from None
    try:
        # The stage holds all but the bundle, which _repack adds from its folder: dpkg-deb's copy of the ~780 MB
        # into its uncompressed package, read again to compress it, took seconds of CPU.
        bin_dir = stage / "usr" / "bin"
        bin_dir.mkdir(parents=True)
        for program in (APP, "vancetope"):
            (bin_dir / program).symlink_to(f"{INSTALL_DIR}/{program}")
        applications = stage / "usr" / "share" / "applications"
        applications.mkdir(parents=True)
        (applications / f"{APP}.desktop").write_text(
            DESKTOP_ENTRY.format(app=APP, description=project["description"]), encoding="utf-8")
        icons = stage / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
        icons.mkdir(parents=True)
        shutil.copyfile(_app_icon(bundle), icons / f"{APP}.svg")
        control = stage / "DEBIAN"
        control.mkdir()
        installed_kb = int((_size_mb(stage) + _size_mb(bundle)) * 1000 / 1.024)
        (control / "control").write_text(
            f"Package: {APP}\nVersion: {version}\nArchitecture: {arch}\nSection: science\nPriority: optional\n"
            f"Maintainer: Vancetope <desktop@vancetope.org>\nInstalled-Size: {installed_kb}\n"
            f"Depends: {depends}\nDescription: {project['description']}\n"
            " The desktop app and the vancetope command line, with the embedding model and the local\n"
            " generator's model inside: it works offline.\n", encoding="utf-8")
        deb = dist / f"{APP}_{version}_{arch}.deb"
        started = _now()
        # dpkg-deb builds and checks the package, uncompressed; _repack adds the bundle, leaves out SYSTEM_DIRS
        # and compresses.
        plain = stage.with_suffix(".deb")
        _run("dpkg-deb", "--root-owner-group", "-Znone", "--build", stage, plain, stdout=subprocess.DEVNULL)
        try:
            _repack(plain, deb, level, bundle)
        finally:
            plain.unlink(missing_ok=True)
        print(f"package built ({_since(started)})", flush=True)
        return deb
    finally:
        shutil.rmtree(stage, ignore_errors=True)


_AR_MAGIC = b"!<arch>\n"
_AR_HEADER = 60  # name 16, mtime 12, uid 6, gid 6, mode 8, size 10, "`\n": ar(5)


def _ar_members(path: Path) -> list[tuple[str, int, int]]:
    """The members of the ar archive ``path`` (a .deb): (name, offset of its data, size in bytes), in order."""
    members = []
    with path.open("rb") as handle:
        if handle.read(len(_AR_MAGIC)) != _AR_MAGIC:
            raise SystemExit(f"{path} is not an ar archive (a .deb)")
        while header := handle.read(_AR_HEADER):
            name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
            members.append((name, handle.tell(), size))
            handle.seek(size + size % 2, os.SEEK_CUR)  # members are padded to an even size
    return members


def _ar_header(name: str, size: int) -> bytes:
    return f"{name:<16}{int(time.time()):<12}{0:<6}{0:<6}{'100644':<8}{size:<10}`\n".encode()


def _repack(plain: Path, deb: Path, level: int, bundle: Path) -> None:
    """Write ``deb`` from the uncompressed package ``plain`` (``dpkg-deb -Znone`` of all but the bundle): its data
    is ``bundle`` installed in :data:`INSTALL_DIR`, then ``plain``'s without :data:`SYSTEM_DIRS`, folders 755,
    everything root's, compressed with zstd at ``level`` on every core.

    Only headers pass through Python: the files' bytes go to zstd, and the compressed data into ``deb``, with
    ``sendfile`` (the bundle staged for dpkg-deb, then each byte copied through tarfile, took 9 s of CPU at level 1,
    this 5). One zstd frame: dpkg 1.21 (Debian 12) stops reading data at the end of the first (the layer's part
    compressed once and kept, followed by the rest, would have saved 3.5 s more). zstd: Debian 12 and Ubuntu 21.10
    on read it; xz took minutes on a few hundred MB for a few % less."""
    members = {name: (offset, size) for name, offset, size in _ar_members(plain)}
    if list(members) != ["debian-binary", "control.tar", "data.tar"]:
        raise SystemExit(f"unexpected members in {plain.name}: {list(members)}")
    data = deb.with_suffix(".data.tar.zst")
    try:
        with plain.open("rb") as source, data.open("wb") as packed:
            flag = f"-{level}" if level > 0 else f"--fast={-level}"
            zstd = subprocess.Popen(["zstd", flag, "-T0", "-q", "-c"], stdin=subprocess.PIPE, stdout=packed)
            _write_tar_entries(zstd.stdin, _tar_entries(bundle, INSTALL_DIR))
            source.seek(members["data.tar"][0])
            with tarfile.open(fileobj=source, mode="r:") as tar_in:  # seekable: the members' data offsets
                staged = []
                for member in tar_in:
                    if member.name.rstrip("/") in SYSTEM_DIRS:
                        continue
                    member.uid = member.gid = 0
                    member.uname = member.gname = "root"
                    if member.isdir() or member.isfile():  # readable by all, written by root only
                        member.mode = 0o755 if member.isdir() or member.mode & 0o111 else 0o644
                    staged.append((member, (source, member.offset_data)))
                _write_tar_entries(zstd.stdin, staged)
            zstd.stdin.write(_TAR_END)
            zstd.stdin.close()
            if zstd.wait() != 0:
                raise SystemExit(f"zstd failed ({zstd.returncode}) packing {deb.name}")
        with plain.open("rb") as source, deb.open("wb") as out:
            out.write(_AR_MAGIC)
            for name in ("debian-binary", "control.tar"):
                offset, size = members[name]
                source.seek(offset)
                out.write(_ar_header(name, size) + source.read(size) + b"\n" * (size % 2))
            size = data.stat().st_size
            out.write(_ar_header("data.tar.zst", size))
            out.flush()
            with data.open("rb") as packed:
                _send(packed, out, 0, size)
            out.write(b"\n" * (size % 2))
    finally:
        data.unlink(missing_ok=True)


def _tar_entries(folder: Path, name: str) -> Iterator[tuple[tarfile.TarInfo, Path]]:
    """``folder`` as the tar entry ``name`` (``/opt/x`` becomes ``./opt/x``), then everything in it, folders
    before their contents, sorted; each entry root's, folders 755, files 755 or 644 (executable or not), links as
    they are. Yields (entry, its file)."""
    top = "./" + name.strip("/")
    for path in (folder, *_walk(folder)):
        relative = path.relative_to(folder).as_posix()
        entry = top if relative == "." else f"{top}/{relative}"
        status = path.lstat()
        info = tarfile.TarInfo(entry)
        info.mtime = int(status.st_mtime)
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        if stat.S_ISLNK(status.st_mode):
            info.type, info.linkname, info.mode = tarfile.SYMTYPE, os.readlink(path), 0o777
        elif stat.S_ISDIR(status.st_mode):
            info.type, info.mode = tarfile.DIRTYPE, 0o755
        else:
            info.size, info.mode = status.st_size, 0o755 if status.st_mode & 0o111 else 0o644
        yield info, path


def _walk(folder: Path) -> Iterator[Path]:
    for name in sorted(os.listdir(folder)):
        path = folder / name
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from _walk(path)


def _write_tar_entries(stream, entries) -> None:
    """Write tar ``entries`` ((TarInfo, file or None) pairs; a file's bytes from the path, or from a
    ``(file object, offset)`` pair) to the binary ``stream`` (a pipe to zstd), GNU format, without the end of the
    archive (:data:`_TAR_END`). Only headers pass through Python: the bytes go with ``sendfile``, in the kernel."""
    for info, source in entries:
        stream.write(info.tobuf(tarfile.GNU_FORMAT, tarfile.ENCODING, "surrogateescape"))
        if info.isfile() and info.size:
            stream.flush()
            if isinstance(source, Path):
                with source.open("rb") as handle:
                    _send(handle, stream, 0, info.size)
            else:
                _send(source[0], stream, source[1], info.size)
            stream.write(tarfile.NUL * (-info.size % tarfile.BLOCKSIZE))


_TAR_END = tarfile.NUL * (2 * tarfile.BLOCKSIZE)
"""The end of a tar archive: two empty blocks."""


def _send(source, target, offset: int, size: int) -> None:
    """Copy ``size`` bytes of the file ``source`` from ``offset`` to ``target``'s descriptor (a pipe or a file,
    flushed by the caller) in the kernel (``os.sendfile``), from ``source`` without moving its position."""
    while size:
        sent = os.sendfile(target.fileno(), source.fileno(), offset, size)
        if not sent:
            raise SystemExit(f"{source.name} ended {size} bytes early")
        offset, size = offset + sent, size - sent


def _app_icon(bundle: Path) -> Path:
    """The app's icon inside the bundle (wherever the package keeps its resources)."""
    found = sorted(bundle.rglob("icons/app.svg"))
    if not found:
        raise SystemExit(f"no icons/app.svg inside {bundle}: the bundle lacks the app's resources")
    return found[0]


# --- the check --------------------------------------------------------------------------------------------
class CheckFailed(Exception):
    """A step of ``--check`` did not hold (the message says which and shows the program's output)."""


def _check_env(home: Path) -> dict[str, str]:
    """Offscreen, with a fresh configuration and cache: nothing of the user's is read or written."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VANCETOPE_", "PYTHON"))}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), XDG_DATA_HOME=str(home / "data"),
               VANCETOPE_CONFIG_DIR=str(home / "vancetope-config"))
    return env


def _program(bundle: Path, name: str, *args: object, env: dict[str, str], timeout: float,
             stdin: str | None = None) -> str:
    """Run one of the bundle's programs; its standard output, or :class:`CheckFailed` on a non-zero exit."""
    try:
        done = subprocess.run([str(bundle / name), *map(str, args)], env=env, capture_output=True, text=True,
                              timeout=timeout, input=stdin if stdin is not None else "")
    except subprocess.TimeoutExpired as error:
        raise CheckFailed(f"{name} {' '.join(map(str, args))}: no answer in {timeout:.0f} s") from error
    if done.returncode != 0:
        raise CheckFailed(f"{name} {' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def time_to_window(bundle: Path, home: Path, starts: int = STARTS) -> list[float]:
    """Seconds from starting ``vancetope-desktop`` to "window shown", ``starts`` times on an empty library."""
    env = _check_env(home)
    times = []
    for start in range(starts):
        started = time.monotonic()
        process = subprocess.Popen([str(bundle / APP), "--startup-probe", "--library", str(home / f"empty-{start}")],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   text=True)
        shown = None
        for line in process.stdout:
            if line.strip() == "window shown":
                shown = time.monotonic() - started
        _out, err = process.communicate(timeout=120)
        if shown is None or process.returncode != 0:
            raise CheckFailed(f"the window did not show (exit {process.returncode}):\n{err}")
        times.append(shown)
    return times


def team_servers() -> tuple[str, str] | None:
    """The team library check's servers: (PostgreSQL database URL, Chroma server URL) from packaging/servers.py's
    variables, or None when either is unset. The database must be the check's own and empty: the library's tables
    are created in it."""
    database, vectors = (os.environ.get(name) for name in (servers.POSTGRES_URL_VARIABLE, servers.CHROMA_URL_VARIABLE))
    return (database, vectors) if database and vectors else None


def check_team(bundle: Path, home: Path, database: str, vectors: str) -> None:
    """The bundle's command line creates a team library in ``home`` on the PostgreSQL ``database`` and the Chroma
    server ``vectors`` (URLs), adds a note to it and finds the note by a word: psycopg's pure-Python package and
    SQLAlchemy's dialect are inside, and libpq is this machine's (the bundle holds none). ``library create`` opens
    the library whose descriptor it wrote and describes it (``library_info``, as ``library info`` does): the
    description must be a team library's, the one the later commands open by the same path.

    Raises:
        CheckFailed: the step that did not hold, with the program's output.
    """
    env = dict(_check_env(home), XDG_STATE_HOME=str(home / "state"))
    library = home / "team-library"
    started = _now()
    created = json.loads(_program(bundle, "vancetope", "library", "create", library, "--team", "--db", database,
                                  "--vectors", vectors, "--files", home / "team-files", "--json", env=env,
                                  timeout=300))
    if created.get("backend") != "team" or not created.get("description", "").startswith("team library"):
        raise CheckFailed(f"`vancetope library create --team` made {created}")
    added = json.loads(_program(bundle, "vancetope", "--library", library, "memory", "add", TEAM_NOTE, "--no-wait",
                                "--json", env=env, timeout=300))
    hits = _search(bundle, library, TEAM_QUERY, env, scope=None)
    if added["id"] not in json.dumps(hits):
        raise CheckFailed(f"the note added to the team library is not found by {TEAM_QUERY!r}: {hits}")
    print(f"team library: created and described ({created['description']}), a note added and found by a word "
          f"({_since(started)})", flush=True)


def _since(started: tuple[float, float]) -> str:
    """Wall and CPU seconds (this process's and its waited-for children's) since ``started``
    (``(time.monotonic(), bundle_layer.cpu_seconds())``), for the check's figures."""
    return f"{time.monotonic() - started[0]:.0f} s, {bundle_layer.cpu_seconds() - started[1]:.0f} s of CPU"


def _now() -> tuple[float, float]:
    return time.monotonic(), bundle_layer.cpu_seconds()


def check(bundle: Path, pdf: Path, starts: int = STARTS, team: tuple[str, str] | None = None) -> None:
    """Start the bundle offscreen and check it works (the module's docstring lists the steps); ``pdf`` is the
    paper to upload (:func:`check_pdf`); ``starts``: how many times the window is timed (:func:`time_to_window`;
    0: not timed, the demo probe's window is the one shown);
    ``team``: the servers of the team library's step (:func:`team_servers`), None to skip it."""
    if any((bundle / "_internal").glob("torch/")):
        raise CheckFailed("torch is inside the bundle")
    carried = sorted(path.name for path in (bundle / "_internal").rglob("libpq*"))
    if carried or any((bundle / "_internal").glob("psycopg_binary*")):
        raise CheckFailed(f"psycopg_binary or a libpq is inside the bundle ({carried}): psycopg must load the "
                          "system's (the .deb depends on libpq5)")
    with tempfile.TemporaryDirectory(prefix="vancetope-bundle-check-") as folder:
        home = Path(folder)
        env = _check_env(home)
        if starts:
            started = _now()
            times = time_to_window(bundle, home, starts)
            later = f", then {statistics.median(times[1:]):.2f} s (median of {len(times) - 1})" if times[1:] else ""
            print(f"window shown: first start {times[0]:.2f} s{later} ({_since(started)})", flush=True)

        library = home / "library"
        started = _now()
        out = _program(bundle, APP, "--demo-probe", "--library", library, env=env, timeout=900)
        if "search answered" not in out:
            raise CheckFailed(f"the demo probe did not answer:\n{out}")
        print(out.strip(), f"\nwindow shown, demo installed, indexed and searched ({_since(started)})", flush=True)

        started = _now()
        _program(bundle, "vancetope", "--library", library, "memory", "upload", pdf, "--scope", DEMO_PROJECT,
                 env=env, timeout=900)
        hits = _search(bundle, library, CHECK_PDF_QUERY, env)
        if not any(hit["document"]["metadata"].get("original_name") == CHECK_PDF for hit in hits[:3]):
            raise CheckFailed(f"the uploaded {CHECK_PDF} is not among the first hits: {hits[:3]}")
        print(f"uploaded {CHECK_PDF} (extracted by the bundle's worker) and found it with vancetope memory search "
              f"({_since(started)})", flush=True)

        started = _now()
        about = json.loads(_program(bundle, "vancetope", "about", "--json", env=env, timeout=120))
        check_about(about)
        print(f"vancetope about: {about['name']} {about['version']} ({about['license']}), "
              f"{len(about['components']) - 1} components, each with its version and licence ({_since(started)})",
              flush=True)

        started = _now()
        tools, hits = _mcp_session(bundle, library, DEMO_THINK_PROCESS, DEMO_QUERY, env)
        if not set(THINK_PROCESS_TOOLS) <= set(tools):
            raise CheckFailed(f"`vancetope mcp` offers a think process {sorted(tools)}, without "
                              f"{sorted(set(THINK_PROCESS_TOOLS) - set(tools))}")
        by_meaning = [hit for hit in hits if hit.get("meaning") is not None]
        if not by_meaning:
            raise CheckFailed(f"`vancetope mcp`'s memory_query {DEMO_QUERY!r} found no demo document by meaning: "
                              f"{hits[:3]}")
        print(f"vancetope mcp answered: {len(tools)} tools for a think process's scope; memory_query: {len(hits)} "
              f"hits, {len(by_meaning)} by meaning, first {by_meaning[0]['title']!r} ({_since(started)})", flush=True)

        if team is None:
            print(f"team library: not checked ({servers.POSTGRES_URL_VARIABLE} and {servers.CHROMA_URL_VARIABLE} "
                  "not set)", flush=True)
        else:
            check_team(bundle, home, *team)


def check_about(about: dict) -> None:
    """``vancetope about --json`` of the bundle names pyproject's version and licence, and lists every component
    with its version and licence (a bundled model or library whose metadata the bundle lacks shows "not
    installed"), PyMuPDF's AGPL, and no torch.

    Raises:
        CheckFailed: naming the components that break the rule.
    """
    from vancetope_desktop.services.licenses import MODELS, NOT_INSTALLED, NOT_STATED

    project = _project()
    if (about["version"], about["license"]) != (project["version"], project["license"]):
        raise CheckFailed(f"`vancetope about` says {about['name']} {about['version']} ({about['license']}), "
                          f"pyproject.toml {project['version']} ({project['license']})")
    components = about["components"]
    names = {c["name"].lower(): c for c in components}
    missing = [c["name"] for c in components if c["version"] in ("", NOT_INSTALLED)]
    unstated = [c["name"] for c in components if c["license"] in ("", NOT_STATED)]
    absent_models = [model for model, *_rest in MODELS if model.lower() not in names]
    if missing or unstated or absent_models:
        raise CheckFailed(f"`vancetope about`: without a version (metadata not in the bundle) {missing}; without a "
                          f"licence {unstated}; models not listed {absent_models}")
    pymupdf_license = names.get("pymupdf", {}).get("license", "").lower()
    if not ("agpl" in pymupdf_license or "affero" in pymupdf_license) or "torch" in names:
        raise CheckFailed(f"`vancetope about` lists {sorted(names)} (PyMuPDF, AGPL, and no torch expected)")


def _mcp_session(bundle: Path, library: Path, scope: str, question: str, env: dict[str, str],
                 timeout: float = 120) -> tuple[list[str], list[dict]]:
    """One session with the bundle's ``vancetope mcp --scope SCOPE`` (:func:`_mcp_messages`): the names of the tools
    it lists after the handshake, and the hits (``QueryHit``'s fields) of its ``memory_query`` for ``question``.

    Talks as a client does: each request is written once the previous answer has come, and standard input is
    closed only after the last answer. (Writing all of the messages and closing at once raced: on a busy machine
    the server read the end of input before it answered ``tools/list`` and left the request unanswered.) A server
    silent for ``timeout`` seconds is killed: :class:`CheckFailed` then, with what it said.
    """
    answers: dict[object, dict] = {}
    said: list[str] = []
    # Standard error to a file: a pipe nobody reads while the conversation lasts could fill and stall the server.
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen([str(bundle / "vancetope"), "--library", str(library), "mcp", "--scope", scope],
                                   env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True)
        watchdog = threading.Timer(timeout, process.kill)
        watchdog.start()
        try:
            for message in _mcp_messages(question):
                process.stdin.write(json.dumps(message) + "\n")
                process.stdin.flush()
                while "id" in message and message["id"] not in answers:
                    line = process.stdout.readline()
                    if not line:
                        break
                    said.append(line)
                    answer = json.loads(line)
                    if "id" in answer:
                        answers[answer["id"]] = answer
            process.communicate(timeout=timeout)  # closes standard input: the server's end of session
        except (OSError, ValueError, subprocess.TimeoutExpired) as error:
            process.kill()
            raise CheckFailed(f"`vancetope mcp --scope {scope}` broke off the conversation ({error}):\n"
                              f"{''.join(said)}") from error
        finally:
            watchdog.cancel()
        errors.seek(0)
        err = errors.read()
    tools = answers.get(2, {}).get("result", {}).get("tools", [])
    query = answers.get(3, {}).get("result", {})
    if "serverInfo" not in answers.get(1, {}).get("result", {}) or not tools or query.get("isError", True):
        raise CheckFailed(f"`vancetope mcp --scope {scope}` did not answer initialize, tools/list and "
                          f"memory_query:\n{''.join(said)}\n{err}")
    return [tool["name"] for tool in tools], query.get("structuredContent", {}).get("hits", [])


def deb_depends(bundle: Path, layer: Path | None = None) -> str:
    """The .deb's ``Depends``: libc6 (>= 2.31), the packages of the system libraries ``bundle`` needs (those of the
    ``layer`` it was made from, read when it was built: :func:`bundle_layer.layer_system_libraries`; else read now,
    :func:`bundle_layer.system_libraries`; :data:`SYSTEM_LIBRARIES`), then :data:`DATA_DEPENDS` and
    :data:`CTYPES_DEPENDS`.

    Raises:
        CheckFailed: naming each needed library :data:`SYSTEM_LIBRARIES` does not know and the files needing it.
    """
    needed = (bundle_layer.system_libraries(bundle) if layer is None
              else bundle_layer.layer_system_libraries(layer))
    unknown = {name: sorted(files) for name, files in needed.items() if name not in SYSTEM_LIBRARIES}
    if unknown:
        raise CheckFailed("the bundle needs system libraries whose Debian package SYSTEM_LIBRARIES does not name: "
                          f"{json.dumps(unknown, indent=1)}")
    packages = sorted({SYSTEM_LIBRARIES[name] for name in needed} - {"libc6"})
    extra = dict.fromkeys(p for p in (*DATA_DEPENDS, *CTYPES_DEPENDS) if p not in packages)
    return ", ".join(["libc6 (>= 2.31)", *packages, *extra])


def _mcp_messages(question: str) -> tuple[dict, ...]:
    """An MCP client's words over stdio (JSON-RPC, one message a line): the handshake, the tool list, then
    ``memory_query`` for ``question``."""
    return (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bundle-check", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "memory_query", "arguments": {"question": question}}},
    )


def check_deb(deb: Path, bundle: Path, layer: Path | None = None) -> None:
    """The package holds the folder, the two ``/usr/bin`` links, the desktop entry and the icon, and no folder of
    :data:`SYSTEM_DIRS`; everything is root's; the folder it installs is ``bundle`` entry for entry, each with the
    mode, size or link target :func:`build_deb` gives it (:func:`_deb_tree`: files 755 or 644); its folders are 755;
    and its ``Depends`` provide every library the folder takes from the system (:func:`deb_depends` of ``bundle`` and
    ``layer``, as :func:`build_deb`). Read from its listing (``dpkg-deb --contents``, which decompresses and
    reads all of its data): nothing is installed or unpacked on this machine, and :func:`check` then runs
    ``bundle``, the files the package installs.

    Raises:
        CheckFailed: naming the entries that break the rule (the first ten).
    """
    started = _now()
    depends = _run("dpkg-deb", "--field", deb, "Depends", capture_output=True, text=True).stdout.strip()
    listing = _run("dpkg-deb", "--contents", deb, capture_output=True, text=True).stdout.splitlines()
    entries = {}  # "./opt/…" → (mode, owner, size, link target)
    for line in listing:
        mode, owner, size, _date, _time, name = line.split(maxsplit=5)
        name, _arrow, target = name.partition(" -> ")
        entries[name.rstrip("/")] = (mode, owner, int(size), target)
    wrong = [(name, *entry) for name, entry in entries.items() if entry[1] != "root/root" or name in SYSTEM_DIRS
             or (entry[0].startswith("d") and entry[0] != "drwxr-xr-x")]
    if wrong:
        raise CheckFailed(f"{deb.name}: entries not root's, folders not 755, or system folders: {wrong[:10]}")
    for program in (APP, "vancetope"):
        mode, _owner, _size, target = entries.get(f"./usr/bin/{program}", ("", "", 0, ""))
        if not mode.startswith("l") or target != f"{INSTALL_DIR}/{program}":
            raise CheckFailed(f"{deb.name}: /usr/bin/{program} is not a link to {INSTALL_DIR}/{program}")
    for path in (f"./usr/share/applications/{APP}.desktop", f"./usr/share/icons/hicolor/scalable/apps/{APP}.svg"):
        if not entries.get(path, ("",))[0].startswith("-"):
            raise CheckFailed(f"{deb.name} lacks {path[1:]}")
    installed = {name: (mode, size, target) for name, (mode, _owner, size, target) in entries.items()
                 if name == f".{INSTALL_DIR}" or name.startswith(f".{INSTALL_DIR}/")}
    packed = _deb_tree(bundle)
    if installed != packed:
        differ = sorted(set(installed.items()) ^ set(packed.items()))
        raise CheckFailed(f"{deb.name} installs a folder that is not {bundle}: {differ[:10]}")
    needed_packages = deb_depends(bundle, layer)
    if depends != needed_packages:
        raise CheckFailed(f"{deb.name} depends on {depends!r}; its libraries need {needed_packages!r}")
    print(f"{deb.name}: links, desktop entry and icon in place, folders 755 and root's, no system folder, the bundle "
          f"file for file; it depends on {depends} ({_since(started)})", flush=True)


def _deb_tree(folder: Path) -> dict[str, tuple[str, int, str]]:
    """The entries :func:`build_deb` packs for the bundle ``folder`` (installed in :data:`INSTALL_DIR`), as
    ``dpkg-deb --contents`` lists them: ``./opt/…`` → (mode as ``ls`` shows it, size, link target); folders and
    links have size 0."""
    entries = {}
    for info, _path in _tar_entries(folder, INSTALL_DIR):
        mode = stat.filemode(info.mode | {tarfile.DIRTYPE: stat.S_IFDIR, tarfile.SYMTYPE: stat.S_IFLNK}.get(
            info.type, stat.S_IFREG))
        entries[info.name] = (mode, info.size, info.linkname)
    return entries


def _tree(folder: Path) -> dict[str, tuple[str, int | str]]:
    """``folder``'s entries by relative path: ("file", size), ("link", target) or ("folder", 0)."""
    entries = {}
    for path in folder.rglob("*"):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            entries[relative] = ("link", os.readlink(path))
        elif path.is_dir():
            entries[relative] = ("folder", 0)
        else:
            entries[relative] = ("file", path.stat().st_size)
    return entries


def _search(bundle: Path, library: Path, query: str, env: dict[str, str], scope: str | None = DEMO_PROJECT
            ) -> list[dict]:
    """The hits of the bundle's ``vancetope memory search QUERY`` in ``scope`` (None: the current one)."""
    out = _program(bundle, "vancetope", "--library", library, "memory", "search", query,
                   *(["--scope", scope] if scope else []), "--json", env=env, timeout=300)
    found = json.loads(out)
    return found if isinstance(found, list) else found.get("results") or found.get("hits") or []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle and the .deb go")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work folder")
    parser.add_argument("--cache", type=Path, default=None,
                        help="where the dependency layers are cached (default: the user cache folder's "
                             "vancetope-desktop-build)")
    parser.add_argument("--fresh-layer", action="store_true",
                        help="build the dependency layer with PyInstaller even when it is cached (and replace it)")
    parser.add_argument("--no-build", action="store_true", help="use the bundle built before")
    parser.add_argument("--no-deb", action="store_true", help="build the bundle only")
    parser.add_argument("--deb-level", type=int, default=9, choices=[*range(-10, 0), *range(1, 20)],
                        metavar="-10..19", help="zstd level of the .deb (9: a release; 1: 5 times faster, a larger "
                        "file; -1 to -10: zstd's --fast levels, faster still and larger: the bundle test's -3)")
    parser.add_argument("--check", action="store_true", help="start the bundle offscreen and check it (see above)")
    parser.add_argument("--starts", type=int, default=STARTS, choices=range(21), metavar="0-20",
                        help=f"how many times --check times the window's start (default {STARTS}: the first start "
                             "and the median of the rest; 0: a test, the window shown by the demo probe only)")
    args = parser.parse_args(argv)
    pdf = preflight(args)
    args.dist.mkdir(parents=True, exist_ok=True)
    bundle, layer = ((args.dist / APP, None) if args.no_build
                     else build(args.dist, args.work, args.cache, args.fresh_layer))
    print(f"bundle: {bundle} {_size_mb(bundle):.0f} MB", flush=True)
    deb = None
    if not args.no_deb:
        deb = build_deb(bundle, args.dist, args.deb_level, layer)
        print(f"package: {deb} {_size_mb(deb):.0f} MB", flush=True)
    if pdf is not None:
        try:
            if deb is not None:
                check_deb(deb, bundle, layer)
            before = _tree(bundle)
            check(bundle, pdf, args.starts, team_servers())
            if _tree(bundle) != before:  # installed under /opt it could not: the programs must not need to
                written = sorted(set(_tree(bundle).items()) ^ set(before.items()))
                raise CheckFailed(f"the programs wrote into their folder: {written[:10]}")
            print("nothing written into the bundle's folder", flush=True)
        except CheckFailed as error:
            print(f"check failed: {error}", file=sys.stderr, flush=True)
            return 1
        print("check passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
