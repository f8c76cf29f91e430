"""``ask`` as a new user runs it: the embedded model by default, the model checked first, stdout kept for the answer.

No test calls a model: a model that cannot be called fails before any call, and the
provider errors are litellm's own, raised through its ``mock_response``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schema_search.agent import ask as agent
from schema_search.agent.ask import ModelNotReady
from schema_search.cli import main
from schema_search.llm import runtime
from schema_search.settings import Settings
from schema_search.workspace import Workspace

SHOP = Path(__file__).parents[2] / "sample_schemas" / "shop.sql"
ANSI = "\x1b"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A home with the shop sample as catalog ``shop``; no keys in the environment."""
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SCHEMA_SEARCH_ASK_MODEL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    settings = Settings(home=tmp_path / "home", dense=False)
    Workspace(settings).catalogs.index(str(SHOP), catalog="shop")
    return str(settings.home)


@pytest.fixture
def fresh_litellm(monkeypatch: pytest.MonkeyPatch):
    """litellm as a fresh process has it: banners on (another test may have turned them off)."""
    import litellm

    monkeypatch.setattr(litellm, "suppress_debug_info", False)
    return litellm


@pytest.mark.parametrize("model", ["nosuch/model", "gpt-99-unknown"])
@pytest.mark.parametrize("source", [["--catalog", "nosuch"], ["--corpus", "nosuch"]])
def test_an_unknown_provider_fails_before_the_catalog_is_opened(
    home: str, model: str, source: list[str], capsys: pytest.CaptureFixture
) -> None:
    # The catalog does not exist either: the error must be the model's, found first.
    assert main(["--home", home, "ask", "q", *source, "--model", model]) == 1
    err = capsys.readouterr().err
    assert f"error: litellm does not know which provider serves the model {model!r}." in err
    assert "No catalog" not in err and "No corpus" not in err
    assert "openai/NAME --api-base" in err and "local/smollm2" in err


def test_an_unknown_provider_prints_no_banner_and_no_colour(
    home: str, fresh_litellm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["--home", home, "ask", "q", "--catalog", "shop", "--model", "nosuch/model", "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # --json: nothing but JSON on stdout, and on an error nothing at all
    assert ANSI not in err and "Provider List" not in err


def test_a_refused_key_says_so_and_keeps_stdout_clean(
    fresh_litellm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-but-set")
    complete = agent.litellm_complete("gpt-4o-mini")
    refused = fresh_litellm.AuthenticationError(message="Incorrect API key", llm_provider="openai", model="gpt-4o-mini")
    with pytest.raises(
        ModelNotReady, match="The provider refused the key for 'gpt-4o-mini': .*Incorrect API key"
    ) as raised:
        complete(model="gpt-4o-mini", messages=[{"role": "user", "content": "q"}], mock_response=refused)
    assert "ANTHROPIC_API_KEY" in raised.value.hint and "local/smollm2" in raised.value.hint
    assert capsys.readouterr().out == ""  # litellm's "Give Feedback / Get Help" banner went elsewhere, or nowhere


def test_an_unknown_model_at_the_provider_is_named(fresh_litellm, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set")
    complete = agent.litellm_complete("openai/gpt-99")
    gone = fresh_litellm.NotFoundError(message="The model gpt-99 does not exist", llm_provider="openai", model="gpt-99")
    with pytest.raises(ModelNotReady, match="'openai/gpt-99' cannot be called: .*does not exist") as raised:
        complete(model="openai/gpt-99", messages=[{"role": "user", "content": "q"}], mock_response=gone)
    assert raised.value.hint.startswith("Check the model name")


def test_without_model_it_takes_the_embedded_one_and_the_setting_overrides_it(
    home: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    asked: list[str] = []

    def no_model(name: str, api_base: str | None = None) -> None:
        asked.append(name)
        raise ModelNotReady("stop here")

    monkeypatch.setattr(agent, "litellm_complete", no_model)
    assert main(["--home", home, "ask", "q", "--catalog", "shop"]) == 1
    monkeypatch.setenv("SCHEMA_SEARCH_ASK_MODEL", "anthropic/claude-3-5-haiku-latest")
    assert main(["--home", home, "ask", "q", "--corpus", "peps"]) == 1
    assert asked == ["local/smollm2", "anthropic/claude-3-5-haiku-latest"]


def test_a_missing_runtime_that_cannot_be_installed_fails_first_with_the_command(
    home: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(runtime, "installed", lambda: False)
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # a system Python: nothing is installed for you
    assert main(["--home", home, "ask", "q", "--catalog", "nosuch"]) == 1
    err = capsys.readouterr().err
    assert "not a virtual environment" in err and "-m pip install" in err and "No catalog" not in err
    assert "hint: Or use a hosted model: --model gpt-4o-mini with OPENAI_API_KEY" in err


def test_a_missing_local_model_file_is_refused_up_front(tmp_path: Path) -> None:
    with pytest.raises(ModelNotReady, match="cannot run: no local model") as raised:
        agent.litellm_complete(f"local/{tmp_path / 'absent.gguf'}")
    assert "local/<path to a .gguf file>" in raised.value.hint


def test_an_unreachable_server_fails_with_a_message_and_json_stdout_stays_empty(home: str) -> None:
    """The real command in its own process (litellm fresh, banners on unless we turn them off)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {
        "NO_COLOR": "1",
        "SCHEMA_SEARCH_DENSE": "false",
        "HF_HUB_OFFLINE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    command = [
        sys.executable,
        "-m",
        "schema_search.cli",
        "--home",
        home,
        "ask",
        "q",
        "--catalog",
        "shop",
        "--model",
        "openai/any",
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "error: Calling 'openai/any' failed" in done.stderr and "hint: Check the model name" in done.stderr
    assert ANSI not in done.stderr and "Give Feedback" not in done.stderr


def test_litellm_debug_logs_go_to_stderr(
    home: str, fresh_litellm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # LITELLM_LOG=DEBUG (or turn_on_debug) sends litellm's records below WARNING to stdout.
    monkeypatch.setattr(fresh_litellm.verbose_logger, "level", 10)
    code = main(
        [
            "--home",
            home,
            "ask",
            "q",
            "--catalog",
            "shop",
            "--model",
            "openai/any",
            "--api-base",
            "http://127.0.0.1:9/v1",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "LiteLLM" in err and "error: Calling 'openai/any' failed" in err
