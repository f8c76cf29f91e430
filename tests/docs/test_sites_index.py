"""The site option through the front doors: ``Corpora.index``, ``docs index --site``, ``POST /v1/corpora?site=``.

The dense channel is off: nothing here needs the embedding model, and the first test
proves a wrong path is refused before the model would load.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from fastapi.testclient import TestClient

from schema_search.cli import main
from schema_search.docs.sites.detect import SITES
from schema_search.errors import InvalidInput, SourceError
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import REPO

PYDANTIC = REPO / "tests" / "fixtures" / "sites" / "mkdocs-pydantic"


def test_a_file_or_a_bad_site_is_refused_before_the_model_loads(tmp_path, monkeypatch):
    workspace = Workspace(Settings(home=tmp_path / "home"))  # dense on: indexing would load the model first

    def no_model(*args, **kwargs):
        raise AssertionError("the embedding model was loaded before the folder was checked")

    monkeypatch.setattr(Workspace, "loaded_embedder", no_model)
    (tmp_path / "schema.sql").write_text("create table t (id int);\n")
    with pytest.raises(SourceError, match="schema.sql is not a folder"):
        workspace.corpora.index(tmp_path / "schema.sql", corpus="docs")
    with pytest.raises(InvalidInput, match="Unknown site kind"):
        workspace.corpora.index(PYDANTIC, corpus="docs", site="sphinx")


def test_corpora_index_records_the_detected_site(tmp_path):
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    info = workspace.corpora.index(PYDANTIC, corpus="pydantic").corpus
    assert info.source["site"]["kind"] == "mkdocs" and info.documents == 5
    assert any("theme templates" in w for w in info.warnings)
    hit = workspace.corpora.search("pydantic", "serialize by alias", k=1).results[0]
    assert hit.url == "https://docs.pydantic.dev/concepts/alias/#serialization"


def test_cli_docs_index_takes_site(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    home = str(tmp_path / "home")
    assert main(["docs", "index", str(PYDANTIC), "--corpus", "p", "--site", "plain", "--json", "--home", home]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["source"]["site"]["kind"] == "plain"
    assert main(["docs", "index", str(PYDANTIC), "--corpus", "p", "--json", "--home", home]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["source"]["site"]["kind"] == "mkdocs"
    with pytest.raises(SystemExit):
        main(["docs", "index", str(PYDANTIC), "--corpus", "p", "--site", "hugo", "--home", home])
    assert "invalid choice: 'hugo'" in capsys.readouterr().err


def test_an_uploaded_site_is_read_as_its_generator_builds_it(tmp_path):
    client = TestClient(create_app(Settings(home=tmp_path / "home", dense=False)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in PYDANTIC.rglob("*"):
            if path.is_file():
                archive.write(path, path.relative_to(PYDANTIC).as_posix())
    body, headers = buffer.getvalue(), {"content-type": "application/zip"}
    response = client.post("/v1/corpora/pyd", content=body, headers=headers)
    assert response.status_code == 200, response.text
    source = response.json()["corpus"]["source"]
    assert source["kind"] == "upload" and source["site"]["kind"] == "mkdocs"
    response = client.post("/v1/corpora/pyd?site=plain", content=body, headers=headers)
    assert response.json()["corpus"]["source"]["site"]["kind"] == "plain"
    assert client.post("/v1/corpora/pyd?site=hugo", content=body, headers=headers).status_code == 422


def test_the_http_choices_are_the_sites_the_reader_knows():
    schema = create_app(Settings(dense=False)).openapi()
    parameters = schema["paths"]["/v1/corpora/{name}"]["post"]["parameters"]
    site = next(p for p in parameters if p["name"] == "site")
    assert tuple(site["schema"]["enum"]) == SITES
