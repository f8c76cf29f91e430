"""The key check that runs before litellm loads agrees with litellm's own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from schema_search.llm.providers import PROVIDER_KEYS, import_litellm, missing_key
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog


@pytest.mark.parametrize("provider", sorted(PROVIDER_KEYS))
def test_each_known_key_is_the_one_litellm_asks_for(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    key = PROVIDER_KEYS[provider]
    monkeypatch.delenv(key, raising=False)
    model = f"{provider}/some-model"
    assert missing_key(model) == key
    assert key in import_litellm().validate_environment(model)["missing_keys"]
    monkeypatch.setenv(key, "sk-test")
    assert missing_key(model) is None


@pytest.mark.parametrize("model", ["gpt-4o-mini", "o3-mini"])
def test_bare_openai_names_need_the_openai_key(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert missing_key(model) == "OPENAI_API_KEY"
    assert "OPENAI_API_KEY" in import_litellm().validate_environment(model)["missing_keys"]


def test_unknown_and_self_hosted_models_are_left_to_litellm() -> None:
    assert missing_key("ollama/llama3.2") is None and missing_key("openai/x", "http://127.0.0.1:1/v1") is None


@pytest.mark.parametrize("command", [["describe", "--catalog", "any"], ["ask", "q", "--catalog", "any"]])
def test_a_missing_key_fails_before_litellm_is_imported(command: list[str], tmp_path) -> None:
    Workspace(Settings(home=tmp_path, dense=False)).catalogs.index_catalog(tiny_catalog("any"))
    code = (
        "import sys\n"
        "from schema_search.cli import main\n"
        f"status = main(['--home', {str(tmp_path)!r}, *{command!r}, '--model', 'openai/gpt-4o-mini'])\n"
        "print('litellm' in sys.modules, status)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "SCHEMA_SEARCH_DENSE": "false"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.split() == ["False", "1"] or done.stdout.split() == ["False", "2"], done.stderr
    assert "OPENAI_API_KEY" in done.stderr
