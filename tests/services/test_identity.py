"""Who acts (services/identity.py): $VANCETOPE_IDENTITY, else the person's chosen name, else the OS login."""

import getpass

import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.services import audit, identity
from vancetope_desktop.services.preferences import load_preferences


@pytest.fixture(autouse=True)
def _own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv(identity.IDENTITY_ENV, raising=False)


def test_the_login_then_a_chosen_name_then_the_environment():
    assert identity.current_identity() == identity.Identity(actor=f"user:{getpass.getuser()}", origin="login")
    chosen = identity.set_identity("  Ada Lovelace ")
    assert chosen == identity.Identity(actor="user:Ada Lovelace", origin="preferences")
    assert load_preferences().identity == "Ada Lovelace"  # a preference: it follows the person, not a library
    assert audit.current_user() == "user:Ada Lovelace"  # what the services record
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(identity.IDENTITY_ENV, "service:nightly-import")
        assert identity.current_identity() == identity.Identity(actor="service:nightly-import", origin="environment")
        patch.setenv(identity.IDENTITY_ENV, "   ")  # blank: ignored
        assert identity.current_identity().origin == "preferences"
        patch.setenv(identity.IDENTITY_ENV, "two\nlines")
        with pytest.raises(InvalidInput, match="VANCETOPE_IDENTITY: an identity is one line"):
            identity.current_user()
    assert identity.set_identity(None).origin == "login" and load_preferences().identity is None


@pytest.mark.parametrize(("name", "actor"), [("bob", "user:bob"), ("user:bob", "user:bob"),
                                             ("Dr. Bob: the second", "user:Dr. Bob: the second"),
                                             ("bot:digest", "bot:digest")])
def test_a_name_becomes_a_person_unless_it_names_its_kind(name, actor):
    assert identity.actor_of(name) == actor


@pytest.mark.parametrize("bad", ["", "  ", "a\tb", "x" * (identity.MAX_NAME + 1)])
def test_a_name_that_cannot_be_one_is_refused_and_nothing_is_saved(bad):
    with pytest.raises(InvalidInput):
        identity.set_identity(bad) if bad.strip() else identity.check_name(bad)
    assert load_preferences().identity is None
