"""An exclusive field (stored values) is searched only with the words no other field has."""

from schema_search.core import index
from schema_search.core.channels import bm25_rankers

FIELDS = ["names", "values"]
DOCUMENTS = [
    {"id": "accounts", "names": "accounts name", "values": "xmagnet acme nordwind"},
    {"id": "merge_log", "names": "merge log entity type", "values": "contact contact account"},
    {"id": "contacts", "names": "contacts first name", "values": "ann bob"},
]


def test_a_schema_word_stored_as_a_value_does_not_rank_the_values_channel():
    rankers = bm25_rankers(index.FieldRanker(index.build(DOCUMENTS, FIELDS)), FIELDS, exclusive=["values"])
    # "contacts" is a table's name: that merge_log stores "contact" as an entity type says nothing.
    assert rankers["values"]("contacts at xmagnet", 10) == ["accounts"]
    assert rankers["names"]("contacts at xmagnet", 10)[0] == "contacts"
    plain = bm25_rankers(index.FieldRanker(index.build(DOCUMENTS, FIELDS)), FIELDS)
    assert "merge_log" in plain["values"]("contacts at xmagnet", 10)
