"""`vancetope generator show|use|key`: the library's generator chosen from the terminal (services.generators)."""

import json

import keyring
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.services.library import Library


def _run(library, *args, code=0, stdin=None):
    result = CliRunner().invoke(app, [*args, "--library", str(library)], input=stdin)
    assert result.exit_code == code, result.output + str(result.exception)
    return result


def test_the_generator_is_chosen_checked_and_kept_per_library(tmp_path):
    path, other = tmp_path / "lib", tmp_path / "other"
    Library.open(path).close()
    assert json.loads(_run(path, "generator", "show", "--json").stdout)["generator"] == "builtin"

    shown = json.loads(_run(path, "generator", "use", "local", "--timeout", "30", "--json").stdout)
    assert shown["generator"] == "local" and shown["model_path"].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert shown["timeout_s"] == 30 and not shown["problem"]
    assert json.loads((path / "settings.json").read_text())["generator"] == "local"

    # Wrong values are refused and nothing is saved.
    not_gguf = tmp_path / "weights.gguf"
    not_gguf.write_text("nope")
    assert "not a GGUF" in _run(path, "generator", "use", "local", "--model-path", str(not_gguf), code=2).output
    assert "URL and a model name" in _run(path, "generator", "use", "endpoint", code=2).output
    assert "http://" in _run(path, "generator", "use", "endpoint", "--url", "localhost:11434", "--model", "m",
                             code=2).output
    assert "'builtin'" in _run(path, "generator", "use", "gpt", code=2).output  # the allowed values named
    assert json.loads(_run(path, "generator", "show", "--json").stdout)["generator"] == "local"

    shown = json.loads(_run(path, "generator", "use", "endpoint", "--url", "http://127.0.0.1:8080/v1/",
                            "--model", "smollm2", "--json").stdout)
    assert (shown["endpoint_url"], shown["endpoint_model"]) == ("http://127.0.0.1:8080/v1", "smollm2")
    # Per library: another library keeps the built-in.
    Library.open(other).close()
    assert json.loads(_run(other, "generator", "show", "--json").stdout)["generator"] == "builtin"


def test_the_key_goes_to_the_keyring_or_is_refused_without_one(tmp_path):
    path = tmp_path / "lib"
    Library.open(path).close()
    _run(path, "generator", "use", "endpoint", "--url", "http://127.0.0.1:8080/v1", "--model", "m")
    if keyring.get_keyring().priority > 0:
        _run(path, "generator", "key", "--stdin", stdin="sk-test\n")
        assert json.loads(_run(path, "generator", "show", "--json").stdout)["endpoint_key_stored"]
        _run(path, "generator", "key", "--clear")
        return
    result = _run(path, "generator", "key", "--stdin", stdin="sk-test\n", code=1)
    assert "no system keyring" in result.output
    assert not any("sk-test" in p.read_text(errors="ignore") for p in path.rglob("*.json"))
