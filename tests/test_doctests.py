"""The doctests of ``schema_search.connectors``, which lives in the repository's ``connectors/`` folder.

pytest's ``--doctest-modules`` imports a file by its path, as ``connectors.ddl``; the
package is ``schema_search.connectors`` and imports its siblings relatively, so its
doctests run here, from the imported modules, as sqlglot runs its own.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import schema_search.connectors

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(schema_search.connectors.__path__, "schema_search.connectors.")
) + ["schema_search.connectors"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{failed} of {attempted} doctests of {name} failed (run pytest -s to see them)"


def test_every_file_of_the_folder_is_a_module_whose_doctests_run() -> None:
    folder = Path(schema_search.connectors.__file__).parent
    files = {f"schema_search.connectors.{path.stem}" for path in folder.glob("*.py") if path.stem != "__init__"}
    assert files | {"schema_search.connectors"} == set(MODULES)
