from schema_search.core.pin import identifier_shaped, mentioned, pin_first, pinned, references


def test_backticked_names_are_taken_verbatim():
    assert mentioned("`Free Meal Count (K-12)` over `enrollment`") == ["Free Meal Count (K-12)", "enrollment"]


def test_pin_first_cannot_be_pushed_down():
    assert pin_first(["a", "b", "c", "d"], ["d", "c"]) == ["d", "c", "a", "b"]


def test_identifiers_are_told_from_plain_words():
    assert [identifier_shaped(n) for n in ("HTTPException", "__init_subclass__", "add_task", "response")] == [
        True,
        True,
        True,
        False,
    ]


def test_labelled_numbers_and_versions_are_references():
    assert references("what changed in PEP 572 for Python 3.8, and RFC 9457?") == ["PEP 572", "RFC 9457", "3.8"]
    assert references("pep-8 or pep 484 or PEP8") == ["pep-8", "pep 484", "PEP8"]
    assert references("Article 18 of the act") == ["Article 18"]


def test_numbers_in_plain_speech_are_not_references():
    assert references("the top 5 errors in 2018, on page 3, for 10 users") == []
    assert references("a 3.8x speed-up") == []


def test_words_in_capitals_alone_do_not_pin():
    # BIRD's evidence writes SQL: MIN(Age) pinned the tables with a column "Min".
    names = {"min": ("hockey.goalies",), "count": ("x.count",), "cdscode": ("schools.frpm",)}
    assert pinned("youngest user? refers to MIN(Age); COUNT(id) with CDSCode", names) == ["schools.frpm"]
    assert [identifier_shaped(n) for n in ("MIN", "COUNT", "OWNER", "CDSCode", "K12")] == [
        False,
        False,
        False,
        True,
        True,
    ]
