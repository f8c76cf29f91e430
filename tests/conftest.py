"""Shared fixtures: a tiny inline catalog, a workspace in tmp_path, paths to data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Two test processes fighting over 2 cores are slower than one thread each; and the
# embedding model must never reach for the hub.
os.environ.setdefault("SCHEMA_SEARCH_EMBEDDING_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Column, ForeignKey, Table
from schema_search.workspace import Workspace

from .shop_db import make_shop_db

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_schemas"
HANDBOOK = REPO / "sample_docs" / "handbook"
SHARED = REPO.parent / "shared"


def tiny_catalog(name: str = "tiny") -> Catalog:
    """Four tables with a compound key, a bridge table and comments."""
    accounts = Table(
        "crm",
        "accounts",
        columns=(Column("id", "BIGINT", False), Column("name", "TEXT"), Column("industry", "TEXT")),
        primary_key=("id",),
        comment="Companies we sell to.",
    )
    contacts = Table(
        "crm",
        "contacts",
        columns=(
            Column("id", "BIGINT", False),
            Column("account_id", "BIGINT"),
            Column("email", "TEXT", comment="Primary e-mail address"),
        ),
        primary_key=("id",),
        foreign_keys=(ForeignKey(("account_id",), "crm.accounts", ("id",)),),
        comment="People at customer accounts.",
    )
    lists = Table(
        "crm",
        "contact_lists",
        columns=(Column("id", "BIGINT", False), Column("title", "TEXT")),
        primary_key=("id",),
    )
    members = Table(
        "crm",
        "contact_list_members",
        columns=(Column("list_id", "BIGINT", False), Column("contact_id", "BIGINT", False)),
        primary_key=("list_id", "contact_id"),
        foreign_keys=(
            ForeignKey(("list_id",), "crm.contact_lists", ("id",)),
            ForeignKey(("contact_id",), "crm.contacts", ("id",)),
        ),
    )
    invoices = Table(
        "billing",
        "InvoiceLines",
        columns=(Column("invoiceId", "BIGINT"), Column("lineNo", "INT"), Column("amount", "NUMERIC(12,2)")),
        primary_key=("invoiceId", "lineNo"),
        comment="One row per billed item.",
    )
    return Catalog(name, (accounts, contacts, lists, members, invoices), source={"kind": "test"})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def workspace(settings: Settings) -> Workspace:
    return Workspace(settings)


@pytest.fixture
def tiny_workspace(workspace: Workspace) -> Workspace:
    workspace.catalogs.index_catalog(tiny_catalog())
    return workspace


@pytest.fixture(scope="session")
def handbook_workspace(tmp_path_factory) -> Workspace:
    """The sample handbook indexed once, dense channel included; tests only read it."""
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("handbook-home"), embedding_threads=1))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    return workspace


# -- the shop database (shop_db.py), for the tools: the dense channel off, no model loads --------


@pytest.fixture
def shop_db(tmp_path: Path) -> Path:
    return make_shop_db(tmp_path / "shop.db")


@pytest.fixture
def shop_settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", dense=False)


@pytest.fixture
def shop_workspace(shop_db: Path, shop_settings: Settings) -> Workspace:
    workspace = Workspace(shop_settings)
    workspace.catalogs.index(f"sqlite:///{shop_db}", catalog="shop")
    return workspace
