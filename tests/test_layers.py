"""The house's rules, checked on every run: imports run down the floors and never in a circle
(import-linter, configured in pyproject.toml), one formatter and one linter (ruff), and the
package list the wheel is built from matches the tree."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _folder(package: str) -> Path:
    """Where the repository keeps ``package``: pyproject's ``package-dir``, else its dotted path."""
    mapped = SETUPTOOLS.get("package-dir", {})
    for prefix in sorted(mapped, key=len, reverse=True):
        if package == prefix or package.startswith(prefix + "."):
            return REPO / mapped[prefix] / package[len(prefix) :].lstrip(".").replace(".", "/")
    return REPO / package.replace(".", "/")


def _as_installed(root: Path) -> Path:
    """The Python files as a wheel installs them (connectors/ inside schema_search/), linked under ``root``,
    with the eval suite beside: import-linter reads files, so it sees the package as users import it."""
    for package in [*SETUPTOOLS["packages"], "eval"]:
        target = root / package.replace(".", "/")
        target.mkdir(parents=True, exist_ok=True)
        for source in _folder(package).glob("*.py"):
            (target / source.name).symlink_to(source)
    for source in (REPO / "eval").rglob("*.py"):
        link = root / source.relative_to(REPO)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(source)
    return root


def test_imports_run_down_the_floors_and_never_in_a_circle(tmp_path: Path) -> None:
    tree = _as_installed(tmp_path / "site")
    config = REPO / "pyproject.toml"
    lint = f"from importlinter.cli import lint_imports; raise SystemExit(lint_imports({str(config)!r}, no_cache=True))"
    # Run from the linked tree: the first schema_search on the path is the one that holds connectors.
    found = subprocess.run([sys.executable, "-c", lint], cwd=tree, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout[-6000:] + found.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in found.stdout


def test_every_room_of_the_package_has_its_floor() -> None:
    floors = PYPROJECT["tool"]["importlinter"]["contracts"][0]["layers"]
    placed = {name.strip() for floor in floors for name in floor.split("|")}
    rooms = {f"schema_search.{path.stem}" for path in (REPO / "schema_search").glob("*.py") if path.stem != "__init__"}
    rooms |= {package for package in SETUPTOOLS["packages"] if package.count(".") == 1}
    rooms -= {"schema_search.reports"}  # data, not code
    assert rooms <= placed, f"give these a floor in pyproject.toml's layers contract: {sorted(rooms - placed)}"


def test_the_wheel_lists_every_package_of_the_tree() -> None:
    listed = set(SETUPTOOLS["packages"])
    found = {
        ".".join(("schema_search", *path.parent.relative_to(REPO / "schema_search").parts))
        for path in (REPO / "schema_search").rglob("__init__.py")
    } | {"schema_search.connectors", "schema_search.reports"}
    assert listed == found, f"pyproject.toml's packages differ from the tree: {sorted(listed ^ found)}"
    assert all(_folder(package).is_dir() for package in listed)


@pytest.mark.parametrize("command", [["format", "--check", "--diff"], ["check"]], ids=["format", "lint"])
def test_ruff_is_clean(command: list[str]) -> None:
    found = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "--no-cache", "."], cwd=REPO, capture_output=True, text=True
    )
    assert found.returncode == 0, (
        f"run `.venv/bin/ruff {' '.join(command[:1])}`:\n" + (found.stdout + found.stderr)[-6000:]
    )
