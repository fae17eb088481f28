"""Build the frozen app (PyInstaller, ``installer/vancetope.spec``) and its Linux package (.deb); check it runs.

Usage (from the repository root, with the dev environment of ``packaging/dev.py setup``)::

    .venv/bin/python packaging/build_bundle.py            # build dist/vancetope-desktop/ and dist/*.deb
    .venv/bin/python packaging/build_bundle.py --check    # build, then start the bundle offscreen and check it
    .venv/bin/python packaging/build_bundle.py --check --no-build   # check the bundle built before

PyInstaller (pyproject's ``bundle`` extra, which ``packaging/dev.py setup`` installs) is installed into the
running environment when missing. ``--work`` is PyInstaller's work folder; keeping it saves little: a rebuild
took as much CPU as the first build (about 2 minutes of one core here), as PyInstaller analyses every module again.

Why a .deb and not an AppImage: the AppImage's ``appimagetool`` and its runtime are downloaded from GitHub
releases, which this project's machines and CI cannot reach; ``dpkg-deb`` is Debian's own tool. The package
installs the bundle under ``/opt/vancetope-desktop`` with ``/usr/bin`` links, a .desktop entry and the icon.

``--check`` starts the built bundle as a user would, offscreen, each program in a fresh library and
configuration folder, and fails (exit 1) at the first step that does not hold:

1. the window appears (``--startup-probe`` prints "window shown"); time to window is printed;
2. the demo loads and is embedded by the index worker the window starts (frozen: the bundle runs itself
   with ``--worker index_worker``), and a search in the window answers (``--demo-probe``);
3. the command line answers a search on that library with a demo paper (``vancetope memory search``);
4. a real PDF from ``$VANCETOPE_SHARED/corpus/papers`` is uploaded through the command line, extracted in a
   ``spawn`` worker of the bundle (``multiprocessing.freeze_support``), and found by a search;
5. ``vancetope mcp`` answers an MCP client's handshake and lists its tools over stdio;
6. ``vancetope about`` reads the licences of what the bundle holds (PyMuPDF's AGPL; no torch);
7. no torch inside;

and, when it built the .deb, that the package holds the links, the desktop entry and the icon, and runs unpacked.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "installer" / "vancetope.spec"
APP = "vancetope-desktop"
INSTALL_DIR = f"/opt/{APP}"
DEMO_PROJECT = "project/transformer-efficiency"  # services/demo.py DEMO_PROJECT
DEMO_QUERY = "hardware requirements of FlashAttention"
CHECK_PDF = "higgs-boson-mass-atlas-cms-arxiv1503.07589.pdf"
CHECK_PDF_QUERY = "combined measurement of the Higgs boson mass ATLAS CMS"
STARTS = 3  # time to window: the first start (files cold in the page cache) and the median of the rest
# Shared libraries the bundle takes from the system (Qt's xcb platform plugin and OpenGL, fonts): what a
# minimal desktop may lack. Everything else ships in the bundle.
DEB_DEPENDS = ("libc6 (>= 2.31), libgl1, libegl1, libfontconfig1, libfreetype6, libxkbcommon0, libxkbcommon-x11-0, "
               "libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, libxcb-render-util0, libxcb-shape0, "
               "libxcb-xinerama0, libdbus-1-3")
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


def build(dist: Path, work: Path) -> Path:
    """Run PyInstaller on the spec; returns the onedir folder (``dist/vancetope-desktop``). Prints the time."""
    ensure_pyinstaller()
    _warn_if_metadata_is_stale()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    started, cpu = time.monotonic(), _children_cpu()
    if "VANCETOPE_BUNDLE_ONNX" not in env:
        # The default precision's graph (int8, ~23 MB) ships built: the first import then needs neither the
        # graph's build (a few seconds) nor the onnx package's quantiser; fp32 is built on first use if chosen.
        from vancetope_desktop.core.settings import Settings

        graphs = work / "onnx-graphs"
        _run(sys.executable, "-m", "vancetope_desktop.index.onnx_export", graphs,
             "--precision", Settings().embedding_precision, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        env["VANCETOPE_BUNDLE_ONNX"] = str(graphs)
    _run(sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", dist,
         "--workpath", work, SPEC, env=env, cwd=ROOT)
    print(f"bundle built in {time.monotonic() - started:.0f} s ({_children_cpu() - cpu:.0f} s of CPU)", flush=True)
    bundle = dist / APP
    cli = bundle / "vancetope"
    if not cli.exists():  # Linux: one executable, the command line by its name (installer/entry.py)
        cli.symlink_to(APP)
    return bundle


def _warn_if_metadata_is_stale() -> None:
    """The bundle copies the installed ``vancetope-desktop`` metadata (its version and licence, shown by the About
    box): say so when it no longer matches pyproject.toml (``packaging/dev.py setup`` installs it again)."""
    from importlib import metadata

    project = _project()
    try:
        installed = metadata.metadata(APP)
    except metadata.PackageNotFoundError:
        print(f"warning: {APP} is not installed in this environment: run packaging/dev.py setup", flush=True)
        return
    license_ = project.get("license")
    license_ = license_.get("text") if isinstance(license_, dict) else license_
    shown = installed.get("License-Expression") or installed.get("License")
    if installed["Version"] != project["version"] or (license_ and shown != license_):
        print(f"warning: the installed {APP} metadata ({installed['Version']}, {shown}) is older than pyproject.toml "
              f"({project['version']}, {license_}): run packaging/dev.py setup first, or the bundle shows the old one",
              flush=True)


def _children_cpu() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


def build_deb(bundle: Path, dist: Path, level: int = 9) -> Path:
    """Pack the onedir ``bundle`` into ``dist/vancetope-desktop_<version>_<arch>.deb``; returns its path.

    ``level`` is zstd's (1-19): 9 for a release; the bundle test packs at 1, which takes a few seconds instead
    of half a minute for a file about a fifth larger."""
    project = _project()
    version = project["version"]
    arch = _run("dpkg", "--print-architecture", capture_output=True, text=True).stdout.strip()
    stage = Path(tempfile.mkdtemp(prefix="vancetope-deb-", dir=dist))
    try:
        shutil.copytree(bundle, stage / INSTALL_DIR.lstrip("/"), symlinks=True)
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
        installed_kb = int(_size_mb(stage) * 1000 / 1.024)
        (control / "control").write_text(
            f"Package: {APP}\nVersion: {version}\nArchitecture: {arch}\nSection: science\nPriority: optional\n"
            f"Maintainer: Vancetope <desktop@vancetope.org>\nInstalled-Size: {installed_kb}\n"
            f"Depends: {DEB_DEPENDS}\nDescription: {project['description']}\n"
            " The desktop app and the vancetope command line, with the embedding model and the local\n"
            " generator's model inside: it works offline.\n", encoding="utf-8")
        deb = dist / f"{APP}_{version}_{arch}.deb"
        started = time.monotonic()
        # zstd: Debian 12 and Ubuntu 21.10 on read it; xz took minutes on a few hundred MB for a few % less.
        _run("dpkg-deb", "--root-owner-group", "-Zzstd", f"-z{level}", "--build", stage, deb, stdout=subprocess.DEVNULL)
        print(f"package built in {time.monotonic() - started:.0f} s", flush=True)
        return deb
    finally:
        shutil.rmtree(stage, ignore_errors=True)


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


def time_to_window(bundle: Path, home: Path) -> list[float]:
    """Seconds from starting ``vancetope-desktop`` to "window shown", :data:`STARTS` times on an empty library."""
    env = _check_env(home)
    times = []
    for start in range(STARTS):
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


def check(bundle: Path, shared: Path) -> None:
    """Start the bundle offscreen and check it works (the module's docstring lists the steps)."""
    pdf = shared / "corpus" / "papers" / CHECK_PDF
    if not pdf.is_file():
        raise CheckFailed(f"{pdf} is missing (set VANCETOPE_SHARED to the folder holding corpus/)")
    if any((bundle / "_internal").glob("torch/")):
        raise CheckFailed("torch is inside the bundle")
    with tempfile.TemporaryDirectory(prefix="vancetope-bundle-check-") as folder:
        home = Path(folder)
        env = _check_env(home)
        times = time_to_window(bundle, home)
        print(f"window shown: first start {times[0]:.2f} s, then {statistics.median(times[1:]):.2f} s (median "
              f"of {len(times) - 1})", flush=True)

        library = home / "library"
        started = time.monotonic()
        out = _program(bundle, APP, "--demo-probe", "--library", library, env=env, timeout=900)
        if "search answered" not in out:
            raise CheckFailed(f"the demo probe did not answer:\n{out}")
        print(out.strip(), f"\ndemo installed, indexed and searched in {time.monotonic() - started:.0f} s", flush=True)

        hits = _search(bundle, library, DEMO_QUERY, env)
        if not hits:
            raise CheckFailed(f"`vancetope memory search {DEMO_QUERY!r}` found nothing in the demo")
        print(f"vancetope memory search: {len(hits)} hits, first {hits[0]['document']['title']!r}", flush=True)

        started = time.monotonic()
        _program(bundle, "vancetope", "--library", library, "memory", "upload", pdf, "--scope", DEMO_PROJECT,
                 env=env, timeout=900)
        hits = _search(bundle, library, CHECK_PDF_QUERY, env)
        if not any(hit["document"]["metadata"].get("original_name") == CHECK_PDF for hit in hits[:3]):
            raise CheckFailed(f"the uploaded {CHECK_PDF} is not among the first hits: {hits[:3]}")
        print(f"uploaded {CHECK_PDF} (extracted by the bundle's worker) and found it "
              f"({time.monotonic() - started:.0f} s)", flush=True)

        about = json.loads(_program(bundle, "vancetope", "about", "--json", env=env, timeout=120))
        shipped = {c["name"].lower(): c for c in about["components"] if c["version"] != "not installed"}
        pymupdf_license = shipped.get("pymupdf", {}).get("license", "").lower()
        if not ("agpl" in pymupdf_license or "affero" in pymupdf_license) or "torch" in shipped:
            raise CheckFailed(f"`vancetope about` lists {sorted(shipped)} (PyMuPDF, AGPL, and no torch expected)")
        print(f"vancetope about: {about['name']} {about['version']} ({about['license']}), {len(shipped)} components "
              "shipped with their licences", flush=True)

        reply = _program(bundle, "vancetope", "--library", library, "mcp", "--scope", DEMO_PROJECT, env=env,
                         timeout=120, stdin=_MCP_SESSION)
        answers = {message.get("id"): message for message in map(json.loads, reply.splitlines()) if "id" in message}
        tools = answers.get(2, {}).get("result", {}).get("tools", [])
        if "serverInfo" not in answers.get(1, {}).get("result", {}) or not tools:
            raise CheckFailed(f"`vancetope mcp` did not answer initialize and tools/list:\n{reply}")
        print(f"vancetope mcp answered: {len(tools)} tools", flush=True)


_MCP_SESSION = "".join(json.dumps(message) + "\n" for message in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bundle-check", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
))
"""An MCP client's first words over stdio (JSON-RPC, one message a line): the handshake, then the tool list."""


def check_deb(deb: Path) -> None:
    """The package holds the folder, the two ``/usr/bin`` links, the desktop entry and the icon, and the command
    line runs from the unpacked folder (``dpkg-deb -x``: nothing is installed on this machine)."""
    with tempfile.TemporaryDirectory(prefix="vancetope-deb-check-") as folder:
        root = Path(folder)
        _run("dpkg-deb", "-x", deb, root)
        for program in (APP, "vancetope"):
            link = root / "usr" / "bin" / program
            if not link.is_symlink() or os.readlink(link) != f"{INSTALL_DIR}/{program}":
                raise CheckFailed(f"{deb.name}: /usr/bin/{program} is not a link to {INSTALL_DIR}/{program}")
        for path in (f"usr/share/applications/{APP}.desktop", f"usr/share/icons/hicolor/scalable/apps/{APP}.svg"):
            if not (root / path).is_file():
                raise CheckFailed(f"{deb.name} lacks /{path}")
        _program(root / INSTALL_DIR.lstrip("/"), "vancetope", "--help", env=_check_env(root), timeout=120)
    print(f"{deb.name}: links, desktop entry and icon in place; the unpacked command line runs", flush=True)


def _search(bundle: Path, library: Path, query: str, env: dict[str, str]) -> list[dict]:
    out = _program(bundle, "vancetope", "--library", library, "memory", "search", query, "--scope", DEMO_PROJECT,
                   "--json", env=env, timeout=300)
    found = json.loads(out)
    return found if isinstance(found, list) else found.get("results") or found.get("hits") or []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle and the .deb go")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work folder")
    parser.add_argument("--no-build", action="store_true", help="use the bundle built before")
    parser.add_argument("--no-deb", action="store_true", help="build the bundle only")
    parser.add_argument("--deb-level", type=int, default=9, choices=range(1, 20), metavar="1-19",
                        help="zstd level of the .deb (9: a release; 1: a test, 5 times faster, a larger file)")
    parser.add_argument("--check", action="store_true", help="start the bundle offscreen and check it (see above)")
    args = parser.parse_args(argv)
    args.dist.mkdir(parents=True, exist_ok=True)
    bundle = args.dist / APP if args.no_build else build(args.dist, args.work)
    if not (bundle / APP).is_file():
        raise SystemExit(f"no bundle at {bundle}: build it first (without --no-build)")
    print(f"bundle: {bundle} {_size_mb(bundle):.0f} MB", flush=True)
    deb = None
    if not args.no_deb:
        deb = build_deb(bundle, args.dist, args.deb_level)
        print(f"package: {deb} {_size_mb(deb):.0f} MB", flush=True)
    if args.check:
        shared = Path(os.environ.get("VANCETOPE_SHARED") or ROOT.parent / "shared")
        try:
            if deb is not None:
                check_deb(deb)
            check(bundle, shared)
        except CheckFailed as error:
            print(f"check failed: {error}", file=sys.stderr, flush=True)
            return 1
        print("check passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
