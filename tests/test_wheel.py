"""The wheel as users install it: built from the tree, installed by its name into a fresh venv,
and serving MCP from the command it installs.

The fresh venv gets the wheel alone (``--no-deps --no-index``: tests never touch the network);
its dependencies come from the test venv's site-packages through a path file, which adds
their folder to ``sys.path`` without running the test venv's own path files, so the editable
checkout stays invisible and ``schema_search`` can only come from the wheel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from .conftest import REPO

NAME = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
SOURCES = ("pyproject.toml", "README.md", "schema_search", "connectors", "eval/results")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed by name: its ``bin`` folder."""
    root = tmp_path_factory.mktemp("wheel")
    tree = root / "tree"
    for source in SOURCES:
        if (REPO / source).is_dir():
            shutil.copytree(REPO / source, tree / source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (tree / source).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / source, tree / source)
    built = root / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", built, tree], check=True, timeout=300)
    (wheel,) = built.glob("*.whl")
    assert wheel.name.startswith(f"{NAME}-")
    fresh = root / "venv"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    Path(purelib, "test-venv-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # The test venv's pip installs into the fresh one: pip itself is not needed there.
    subprocess.run(
        [*pip, "--python", python, "install", "--no-deps", "--no-index", f"{NAME} @ {wheel.as_uri()}"],
        check=True,
        timeout=300,
    )
    return fresh / "bin"


def test_the_wheel_installs_by_its_name_with_its_command(installed: Path) -> None:
    where = subprocess.run(
        [
            installed / "python",
            "-c",
            f"import schema_search, importlib.metadata as m; print(schema_search.__file__); print(m.version({NAME!r}))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=installed.parent,  # not the checkout: `python -c` puts the working folder first on sys.path
    ).stdout.split()
    assert where[0].startswith(str(installed.parent)) and where[1]  # the wheel's copy, not the checkout
    assert not (installed / "schema-search").exists()  # the unrelated project's command is not ours to take
    version = subprocess.run([installed / NAME, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"{NAME} {where[1]}"


def test_mcp_from_the_installed_command_answers_a_client(installed: Path, tmp_path: Path) -> None:
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "leave.md").write_text("# Leave\n\nAsk your manager for leave two weeks ahead.\n")
    home = tmp_path / "home"
    env = {"PATH": f"{installed}:/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "SCHEMA_SEARCH_DENSE": "false"}
    subprocess.run(
        [installed / NAME, "--home", home, "docs", "index", docs, "--corpus", "notes"], check=True, env=env, timeout=120
    )
    config = tmp_path / "mcp.toml"
    config.write_text(f"home = {json.dumps(str(home))}\n\n[corpora.notes]\n")

    async def ask() -> str:
        server = StdioServerParameters(
            command=str(installed / NAME), args=["mcp", "--config", str(config)], env=env, cwd=str(tmp_path)
        )
        async with Client(server) as client:
            found = await client.call_tool("search_docs", {"question": "how early do I ask for leave?"})
            return found.content[0].text

    assert "two weeks ahead" in anyio.run(ask)
