"""``schemasift docs index URL`` end to end, embeddings included: crawl, search with fetch dates, refresh, delete."""

from __future__ import annotations

import json

from schema_search.cli import main
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .test_crawl import ISO_UTC, Site, site  # noqa: F401 (site is a fixture)


def serve_docs(served: Site) -> None:
    served.write(
        "llms.txt",
        "# Widgets\n> Widget docs.\n## Docs\n- [Key rotation](keys.md): how keys rotate\n- [Setup](setup.md)\n",
    )
    served.write("keys.md", "# Key rotation\n\nSigning keys rotate every night at 02:00 UTC.\n")
    served.write("setup.md", "# Setup\n\nInstall the widget agent with pip and start it.\n")


def test_index_a_url_search_it_refresh_it_and_delete_it(site, tmp_path, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    serve_docs(site)
    index = ["docs", "index", site.url, "--corpus", "widgets", "--delay", "0"]
    assert main(index) == 0
    out = capsys.readouterr().out
    assert f"Fetched {site.url} (pages from llms.txt): 2 pages; 2 downloaded, 0 unchanged, 2 new" in out
    assert "Indexed corpus 'widgets': 2 documents" in out

    assert main(["docs", "search", "when do signing keys rotate?", "--corpus", "widgets", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["results"][0]
    assert first["url"] == site.url + "keys.md" and first["title"] == "Key rotation"
    assert ISO_UTC.match(first["fetched"])
    assert main(["docs", "search", "when do signing keys rotate?", "--corpus", "widgets"]) == 0
    assert f"{site.url}keys.md  (fetched {first['fetched'][:10]})" in capsys.readouterr().out

    # Unchanged: 304s, nothing downloaded or embedded again.
    assert main([*index, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["crawl"] | {"url": None} == {
        "url": None,
        "discovery": "llms.txt",
        "pages": 2,
        "fetched": 0,
        "unchanged": 2,
        "new": 0,
        "removed": 0,
        "failed": 0,
    }
    corpora = Workspace(Settings(home=tmp_path / "home")).corpora
    assert corpora.store.current("widgets").manifest()["dense"]["encoded"] == 0

    # One page changed: only its passage is embedded again.
    site.write("setup.md", "# Setup\n\nInstall the widget agent with uv and start it.\n")
    assert main([*index, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["crawl"]["fetched"], result["crawl"]["unchanged"]) == (1, 1)
    assert corpora.store.current("widgets").manifest()["dense"]["encoded"] == 1

    assert main(["docs", "delete", "--corpus", "widgets", "--yes"]) == 0
    assert not (tmp_path / "home" / "crawls" / "widgets").exists()


def test_cli_errors_name_the_url_and_what_to_do(site, tmp_path, monkeypatch, capsys):  # noqa: F811
    # Any failing exit code: which one is the CLI's error contract (schema_search/cli/main.py), not the crawl's.
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    site.write("robots.txt", "User-agent: *\nDisallow: /\n")
    assert main(["docs", "index", site.url, "--corpus", "closed", "--delay", "0"]) != 0
    err = capsys.readouterr().err
    assert f"{site.url}robots.txt does not allow schemasift/" in err and "docs index FOLDER" in err
    assert main(["docs", "index", site.url, "--corpus", "x", "--url-template", "https://x/{path}"]) != 0
    assert "--url-template is for a folder" in capsys.readouterr().err
    assert main(["docs", "index", site.url, "--corpus", "x", "--max-pages", "0"]) != 0
    assert "--max-pages 0 is below 1" in capsys.readouterr().err
