from schema_search.pin import identifier_map, mentioned, pin_first, pinned

from .conftest import tiny_catalog


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


def test_backticked_names_are_taken_verbatim():
    assert mentioned("`Free Meal Count (K-12)` over `enrollment`") == ["Free Meal Count (K-12)", "enrollment"]


def test_pin_first_cannot_be_pushed_down():
    assert pin_first(["a", "b", "c", "d"], ["d", "c"]) == ["d", "c", "a", "b"]
