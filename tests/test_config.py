"""The config file: settings beside the environment's, sources with their passwords kept out of it, errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from schema_search.config import ConfigError, SecretUnavailable, load_config
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace

CRM_DDL = Path(__file__).resolve().parent.parent / "sample_schemas" / "crm.sql"


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own, and none of the variables these tests set."""
    for name in (
        "SCHEMA_SEARCH_CONFIG",
        "SCHEMA_SEARCH_CONFIG_FILE",
        "CONFIG_FILE",
        "SCHEMA_SEARCH_DEFAULT_K",
        "SCHEMA_SEARCH_MAX_K",
        "SCHEMA_SEARCH_SOURCE_URLS",
    ):
        monkeypatch.delenv(name, raising=False)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_arguments_beat_the_environment_which_beats_the_file_which_beats_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path / "conf" / "schema-search.toml", "default_k = 5\nmax_k = 50\nrrf_k = 9.5\n")
    assert Settings(config_file=config).default_k == 5
    monkeypatch.setenv("SCHEMA_SEARCH_DEFAULT_K", "7")
    settings = Settings(config_file=config)
    assert (settings.default_k, settings.max_k, settings.rrf_k) == (7, 50, 9.5)
    assert Settings(config_file=config, default_k=3).default_k == 3
    assert Settings().default_k == 7 and Settings().max_k == 100  # no file here: the defaults


def test_the_file_may_come_from_the_environment_or_the_working_directory(
    tmp_path: Path, elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = write(tmp_path / "named.toml", "default_k = 4\n")
    monkeypatch.setenv("SCHEMA_SEARCH_CONFIG", str(named))
    assert Settings().default_k == 4 and Settings().config_file == named
    monkeypatch.delenv("SCHEMA_SEARCH_CONFIG")
    found = write(elsewhere / "schema-search.toml", "default_k = 6\n")
    assert Settings().default_k == 6 and Settings().config_file == found


def test_a_bare_CONFIG_FILE_belongs_to_other_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = write(tmp_path / "theirs.toml", "default_k = 4\n")
    ours = write(tmp_path / "ours.toml", "default_k = 6\n")
    short = write(tmp_path / "short.toml", "default_k = 8\n")
    monkeypatch.setenv("CONFIG_FILE", str(theirs))
    assert Settings().config_file is None and Settings().default_k == 10
    monkeypatch.setenv("SCHEMA_SEARCH_CONFIG", str(short))
    assert Settings().default_k == 8
    monkeypatch.setenv("SCHEMA_SEARCH_CONFIG_FILE", str(ours))  # the documented name wins over the short one
    assert Settings().default_k == 6 and Settings().config_file == ours
    assert Settings(config_file=theirs).default_k == 4  # an argument, by the field's name, beats both


def test_relative_paths_are_read_from_the_files_folder(tmp_path: Path) -> None:
    config = write(
        tmp_path / "conf" / "schema-search.toml",
        'home = "./data"\n[catalogs.shop]\nurl = "sqlite:///dbs/shop.db?mode=ro"\n[catalogs.mem]\nurl = "sqlite:///:memory:"\n'
        '[catalogs.duck]\nurl = "duckdb:////srv/warehouse.duckdb"\n',
    )
    settings = Settings(config_file=config)
    assert settings.home == tmp_path / "conf" / "data"
    assert settings.execution_url("shop") == f"sqlite:///{tmp_path / 'conf' / 'dbs' / 'shop.db'}?mode=ro"
    assert settings.execution_url("mem") == "sqlite:///:memory:"
    assert settings.execution_url("duck") == "duckdb:////srv/warehouse.duckdb"


def test_passwords_come_from_an_environment_variable_or_a_secrets_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "secrets" / "erp", "f1le/p@ss\n")
    config = write(
        tmp_path / "schema-search.toml",
        '[catalogs.crm]\nurl = "postgresql://reader@db.internal:5432/crm"\npassword_env = "CRM_DB_PASSWORD"\n'
        '[catalogs.erp]\nurl = "postgresql://erp@db.internal/erp"\npassword_file = "secrets/erp"\n'
        '[catalogs.wh]\nurl = "postgresql://${WH_USER}:${WH_PASSWORD}@wh.internal/wh"\n'
        "[catalogs.ddl_only]\n",
    )
    monkeypatch.setenv("CRM_DB_PASSWORD", "s3cret:pw")
    monkeypatch.setenv("WH_USER", "analyst")
    monkeypatch.setenv("WH_PASSWORD", "w h")
    settings = Settings(config_file=config)
    assert settings.execution_url("crm") == "postgresql://reader:s3cret%3Apw@db.internal:5432/crm"
    assert settings.execution_url("erp") == "postgresql://erp:f1le%2Fp%40ss@db.internal/erp"
    assert settings.execution_url("wh") == "postgresql://analyst:w%20h@wh.internal/wh"
    assert settings.execution_url("ddl_only") is None and settings.execution_url("unknown") is None
    # What is kept never holds the password: it is read when asked for.
    assert "s3cret" not in repr(settings.sources) and "f1le" not in repr(settings.sources)
    monkeypatch.delenv("CRM_DB_PASSWORD")
    with pytest.raises(SecretUnavailable, match="Catalog 'crm' needs the environment variable CRM_DB_PASSWORD"):
        settings.execution_url("crm")
    assert settings.execution_url("erp")  # one catalog's missing secret fails that catalog alone


def test_variables_are_percent_encoded_in_the_userinfo_and_query_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(
        tmp_path / "conf" / "schema-search.toml",
        '[catalogs.pg]\nurl = "postgresql://${PG_USER}@${PG_HOST}/${PG_DB}?application_name=${PG_APP}"\n'
        '[catalogs.port]\nurl = "postgresql://reader@db.internal:${PG_PORT}/crm"\n'
        '[catalogs.abs]\nurl = "sqlite:///${DATA_DIR}/shop.db"\n'
        '[catalogs.rel]\nurl = "sqlite:///${REL_DIR}/shop.db"\n'
        '[catalogs.whole]\nurl = "${DATABASE_URL}"\n',
    )
    monkeypatch.setenv("PG_USER", "ana@corp")
    monkeypatch.setenv("PG_HOST", "db.internal:6432")
    monkeypatch.setenv("PG_DB", "crm")
    monkeypatch.setenv("PG_APP", "a&b+c")
    monkeypatch.setenv("PG_PORT", "6432")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "srv"))
    monkeypatch.setenv("REL_DIR", "dbs")
    # From the environment, a password is where it belongs: the whole URL is used as it is.
    monkeypatch.setenv("DATABASE_URL", "postgresql://wh:p%40ss@wh.internal/wh?sslpassword=k")
    settings = Settings(config_file=config)
    assert settings.execution_url("pg") == "postgresql://ana%40corp@db.internal:6432/crm?application_name=a%26b%2Bc"
    assert settings.execution_url("port") == "postgresql://reader@db.internal:6432/crm"
    assert settings.execution_url("abs") == f"sqlite:///{tmp_path / 'srv' / 'shop.db'}"
    assert settings.execution_url("rel") == f"sqlite:///{tmp_path / 'conf' / 'dbs' / 'shop.db'}"
    assert settings.execution_url("whole") == "postgresql://wh:p%40ss@wh.internal/wh?sslpassword=k"
    from sqlalchemy import make_url

    parsed = make_url(settings.execution_url("pg"))  # what the driver gets: every character as it was set
    assert (parsed.username, parsed.host, parsed.port, parsed.query["application_name"]) == (
        "ana@corp",
        "db.internal",
        6432,
        "a&b+c",
    )


def test_a_missing_secret_is_the_servers_fault_503_not_the_callers(tmp_path: Path) -> None:
    home = tmp_path / "data"
    Workspace(Settings(home=home, dense=False)).catalogs.index(str(CRM_DDL), catalog="crm")
    config = write(
        tmp_path / "schema-search.toml",
        f'home = "{home}"\ndense = false\n[catalogs.crm]\nurl = "postgresql://reader@db/crm"\n'
        'password_file = "secrets/none"\n',
    )
    settings = Settings(config_file=config)
    with pytest.raises(SecretUnavailable, match="password file of catalog 'crm'"):
        settings.execution_url("crm")
    response = TestClient(create_app(settings)).post(
        "/v1/catalogs/crm/execute", json={"sql": "SELECT 1", "question": "one"}
    )
    assert response.status_code == 503 and response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["code"], body["title"]) == ("secret_unavailable", "Service Unavailable")
    assert "password_file" in body["hint"]
    assert (
        "`secret_unavailable` (503)"
        in create_app(settings).openapi()["components"]["schemas"]["Problem"]["properties"]["code"]["description"]
    )


def test_source_urls_override_the_files_catalog_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write(
        tmp_path / "schema-search.toml", '[catalogs.crm]\nurl = "postgresql://reader@db/crm"\npassword_env = "X"\n'
    )
    monkeypatch.setenv("SCHEMA_SEARCH_SOURCE_URLS", '{"crm": "postgresql://admin:pw@other/crm"}')
    assert Settings(config_file=config).execution_url("crm") == "postgresql://admin:pw@other/crm"


def test_the_operators_instructions_and_defaults_are_kept(tmp_path: Path) -> None:
    config = write(
        tmp_path / "schema-search.toml",
        '[catalogs.shop]\ninstructions = "Amounts are in EUR."\n[catalogs.shop.defaults]\ntimezone = "Europe/Berlin"\n'
        "week_starts = 1\nfiscal = true\n[corpora.handbook]\n",
    )
    sources = Settings(config_file=config).sources
    shop = sources.catalogs["shop"]
    assert shop.instructions == "Amounts are in EUR." and shop.url is None
    assert dict(shop.defaults) == {"timezone": "Europe/Berlin", "week_starts": "1", "fiscal": "true"}
    assert list(sources.corpora) == ["handbook"] and sources.corpora["handbook"].instructions == ""


@pytest.mark.parametrize(
    "text, message",
    [
        ("defualt_k = 3\n", "has an unknown key 'defualt_k'"),
        ('[catalogs.crm]\nurll = "sqlite:///x.db"\n', "has an unknown key 'urll' in [catalogs.crm]"),
        ("[corpora.docs]\nfolder = 1\n", "has an unknown key 'folder' in [corpora.docs]"),
        ("default_k = 0\n", "sets default_k = 0: Input should be greater than or equal to 1"),
        ('dense = "maybe"\n', "sets dense = 'maybe'"),
        ('admin_key = "k"\n', "sets admin_key, a secret"),
        ('source_urls = {crm = "postgresql://u:p@h/db"}\n', "sets source_urls, a secret"),
        (
            '[catalogs.crm]\nurl = "postgresql://reader:hunter2@db/crm"\n',
            "[catalogs.crm] url has a password written into it",
        ),
        (
            '[catalogs.crm]\nurl = "postgresql://reader@db/crm?password=hunter2"\n',
            "url has a secret in its query string (password=...)",
        ),
        ('[catalogs.crm]\nurl = "postgresql://reader@db/crm?PassFile=/etc/hunter2"\n', "(PassFile=...)"),
        ('[catalogs.crm]\nurl = "postgresql://r@db/crm?sslmode=require&sslpassword=hunter2"\n', "(sslpassword=...)"),
        ('[catalogs.crm]\nurl = "mysql+pymysql://r@db/crm?passwd=${PW}"\n', "(passwd=...)"),
        ('[catalogs.ms]\nurl = "mssql+pyodbc:///?odbc_connect=DSN%3Dx%3BPWD%3Dhunter2"\n', "(odbc_connect=...)"),
        ('[catalogs.crm]\nurl = "postgresql://r@db:port/crm"\n', "[catalogs.crm] url is not a database URL"),
        (
            '[catalogs.crm]\nurl = "postgresql://r@db/crm"\npassword_env = "A"\npassword_file = "b"\n',
            "both password_env",
        ),
        ('[catalogs."Bad Name"]\n', "Invalid catalog name 'Bad Name'"),
        ("[catalogs.crm]\ninstructions = 3\n", "[catalogs.crm] instructions must be a string"),
    ],
)
def test_what_the_file_must_not_say_is_an_error_naming_the_file_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    config = write(tmp_path / "schema-search.toml", text)
    with pytest.raises(ConfigError) as raised:
        Settings(config_file=config)
    assert message in str(raised.value) and str(config) in str(raised.value)
    assert "hunter2" not in str(raised.value)


def test_a_typo_gets_the_nearest_key_as_a_hint(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings(config_file=write(tmp_path / "c.toml", "defualt_k = 3\n"))
    assert raised.value.hint.startswith("Did you mean 'default_k'?")


def test_malformed_toml_says_where(tmp_path: Path) -> None:
    config = write(tmp_path / "schema-search.toml", 'default_k = 5\n[catalogs.shop\nurl = "x"\n')
    with pytest.raises(ConfigError, match=r"is not valid TOML: .*\(at line 2, column 15\)"):
        load_config(config)


def test_a_file_named_but_missing_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="The config file .*nope.toml does not exist"):
        Settings(config_file=tmp_path / "nope.toml")
    monkeypatch.setenv("SCHEMA_SEARCH_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match="gone.toml does not exist"):
        Settings()
