"""What a person is told when ``--ray`` cannot be honoured: Ray not installed, or no cluster at the address.

These run without Ray: a child process is given a Python in which ``import ray`` fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from schema_search.cluster.connect import reach
from schema_search.errors import ClusterUnavailable

from ..conftest import REPO

# Any import of ray in the child fails, as on an install without the extra.
WITHOUT_RAY = (
    "import sys; sys.modules['ray'] = None; from schema_search.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def schemasift(*args: str, without_ray: bool = False) -> subprocess.CompletedProcess:
    code = (
        WITHOUT_RAY
        if without_ray
        else "import sys; from schema_search.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )


@pytest.fixture
def page(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "keys.md").write_text("# Keys\n\nRotate the signing key every ninety days.\n")
    return folder


def test_ray_without_the_extra_says_how_to_install_it_before_reading_anything(page, tmp_path):
    done = schemasift(
        "docs", "index", str(page), "--corpus", "c", "--ray", "local", "--home", str(tmp_path / "h"), without_ray=True
    )
    assert done.returncode == 1, done.stderr
    assert "error: --ray needs the ray extra, which is not installed." in done.stderr
    assert "hint: Run: pip install 'schemasift[ray]'" in done.stderr
    assert not (tmp_path / "h" / "corpora").exists()


def test_one_machine_never_imports_ray(page, tmp_path):
    done = schemasift("docs", "index", str(page), "--corpus", "c", "--home", str(tmp_path / "h"), without_ray=True)
    assert done.returncode == 0, done.stderr
    assert "Indexed corpus 'c': 1 documents" in done.stdout


def test_an_address_where_nothing_answers_is_a_clear_error_at_once(page, tmp_path):
    pytest.importorskip("ray")  # else the missing extra is said first
    done = schemasift(
        "docs", "index", str(page), "--corpus", "c", "--ray", "127.0.0.1:1", "--home", str(tmp_path / "h")
    )
    assert done.returncode == 1, done.stderr
    assert "error: No Ray cluster answers at '127.0.0.1:1' (Connection refused)." in done.stderr
    assert "hint: Start one (`ray start --head`)" in done.stderr


@pytest.mark.parametrize("address", ["nonsense", "ray://host", "host:port"])
def test_a_malformed_address_names_the_forms_an_address_takes(address):
    with pytest.raises(ClusterUnavailable, match="is not a Ray address") as raised:
        reach(address)
    assert "ray://HOST:10001" in raised.value.hint and raised.value.status == 503


def test_a_remote_address_is_tried_for_a_connection_first(tmp_path):
    with pytest.raises(ClusterUnavailable, match="No Ray cluster answers at 'ray://127.0.0.1:1'"):
        reach("ray://127.0.0.1:1", timeout_s=2)


def test_a_build_over_ray_client_is_refused_before_connecting():
    pytest.importorskip("ray")
    from schema_search.cluster.connect import connect

    with pytest.raises(ClusterUnavailable, match="cannot run over Ray Client") as raised:
        connect("ray://127.0.0.1:10001", data=True)
    assert "--ray auto" in raised.value.hint
