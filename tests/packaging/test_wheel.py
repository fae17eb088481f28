"""An installed wheel runs with no checkout around (issue 16): built from this checkout, installed into a fresh
virtualenv, it starts the window, installs the demo, answers a CLI search and an MCP round trip.

The new virtualenv gets the wheel alone (``--no-deps``: nothing is downloaded); its third-party packages are this
environment's, named by a ``.pth`` path line. Python adds such a folder to ``sys.path`` without reading the
``.pth`` files inside it, so the editable install's finder there never runs: ``vancetope_desktop`` can only come
from the wheel, which the first test checks.
"""

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import anyio
import pytest

from tests.agents.test_mcp_server import _connect, _text
from vancetope_desktop.services.preferences import CONFIG_DIR_ENV

REPO = Path(__file__).resolve().parents[2]
BIN = "Scripts" if os.name == "nt" else "bin"

pytestmark = pytest.mark.slow


def _run(args: list, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the built wheel, the new virtualenv's folder, the environment to run it in, a scratch folder)."""
    scratch = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({"QT_QPA_PLATFORM": "offscreen", CONFIG_DIR_ENV: str(scratch / "config"),
                "VANCETOPE_LIBRARY": str(scratch / "default-library")})
    # Through an sdist, as `python -m build` does by default: the wheel is built from what the sdist holds, in a
    # folder of its own, so a stale build/ of the checkout cannot slip files in. The build requirements are this
    # environment's (--no-isolation), the one the tests run in: not checked again (--skip-dependency-check), which
    # took two more processes of setuptools, 1.7 s of CPU.
    _run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--outdir", scratch / "dist",
          REPO], scratch, env, timeout=600)
    wheel = next((scratch / "dist").glob("vancetope_desktop-*.whl"))
    venv = scratch / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], scratch, env)
    python = venv / BIN / ("python.exe" if os.name == "nt" else "python")
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", wheel], scratch, env)
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], scratch,
                        env).stdout.strip())
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (purelib / "dev_environment.pth").write_text("".join(f"{path}\n" for path in ours), encoding="utf-8")
    return wheel, venv, env, scratch


def test_the_wheel_holds_the_resources_and_the_licence_but_no_screenshot(installed):
    wheel, _, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    sources = [p.relative_to(REPO / "resources").as_posix() for p in (REPO / "resources").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts]
    wanted = {f"vancetope_desktop/assets/{name}" for name in sources if not name.startswith("screenshots/")}
    assert wanted - set(names) == set()
    assert not [name for name in names if "/screenshots/" in name or name.endswith(".png")]
    dist_info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    fields = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: AGPL-3.0-or-later" in fields


def test_the_package_comes_from_the_wheel_not_the_checkout(installed):
    _, venv, env, scratch = installed
    probe = ("import json, sys, vancetope_desktop; from vancetope_desktop.resources import resources_root, "
             "resource_path; print(json.dumps({'file': vancetope_desktop.__file__, 'path': sys.path, "
             "'root': str(resources_root()), 'icon': str(resource_path('icons', 'app.svg'))}))")
    seen = json.loads(_run([venv / BIN / "python", "-c", probe], scratch, env).stdout)
    assert Path(seen["file"]).is_relative_to(venv)
    assert Path(seen["root"]).is_relative_to(venv) and Path(seen["icon"]).is_file()
    # The dev virtualenv's packages are lent through a .pth; that virtualenv may sit inside the checkout (.venv).
    lent = Path(sys.prefix).resolve()
    assert not [entry for entry in seen["path"] if entry and Path(entry).resolve().is_relative_to(REPO)
                and not Path(entry).resolve().is_relative_to(lent)]


def test_the_installed_app_cli_and_mcp_server_run(installed):
    _, venv, env, scratch = installed
    library = scratch / "library"
    vancetope = venv / BIN / "vancetope"

    # The demo: papers rendered to PDF with PyMuPDF from the package's resources, then indexed.
    report = json.loads(_run([vancetope, "demo", "--library", library, "--json"], scratch, env).stdout)
    assert report["failures"] == [] and len(report["documents"]) >= 10

    found = json.loads(_run([vancetope, "memory", "search", "IO-aware exact attention", "--library", library,
                             "--json"], scratch, env).stdout)
    assert found["hits"][0]["document"]["id"] == report["documents"]["dao2022_flashattention.pdf"]

    about = json.loads(_run([vancetope, "about", "--json"], scratch, env).stdout)
    assert about["license"] == "AGPL-3.0-or-later" and about["version"] != "development"

    # The window on that library: icons and stylesheets from the package; the probe quits once it is painted.
    shown = _run([venv / BIN / "vancetope-desktop", "--library", library, "--startup-probe"], scratch, env)
    assert "window shown" in shown.stdout, shown.stderr

    async def round_trip() -> tuple[set[str], list[str]]:
        async with _connect(library, "think-process/tp_12", scratch / "mcp.log", server=[str(vancetope)],
                            cwd=scratch, env=env) as session:
            tools = {tool.name for tool in (await session.list_tools()).tools}
            answer = await session.call_tool("memory_query", {"question": "IO-aware exact attention"})
            assert not answer.is_error, _text(answer)
            return tools, [hit["doc_id"] for hit in answer.structured_content["hits"]]

    tools, found_ids = anyio.run(round_trip)
    assert {"memory_store", "memory_query"} <= tools
    # tp_12 sees its own analysis of the paper too, which may rank above the paper itself.
    assert report["documents"]["dao2022_flashattention.pdf"] in found_ids
