from schema_search.core.pin import pinned
from schema_search.tables.identifiers import identifier_map

from ..conftest import tiny_catalog


def test_identifier_shaped_names_pin_their_tables():
    names = identifier_map(tiny_catalog())
    assert pinned("what is in contact_list_members?", names) == ["crm.contact_list_members"]
    assert pinned("sum of InvoiceLines amount", names) == ["billing.invoicelines"]
    assert pinned("rows of crm.contact_lists", names) == ["crm.contact_lists"]


def test_plain_words_pin_nothing():
    assert pinned("how many contacts and accounts", identifier_map(tiny_catalog())) == []


def test_rare_column_names_pin_their_table_common_ones_do_not():
    names = identifier_map(tiny_catalog())
    assert pinned("filter on lineNo", names) == ["billing.invoicelines"]
    assert "id" not in names  # four tables have it: no pin
