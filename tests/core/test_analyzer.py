import tantivy

from schema_search.core.analyzer import build_analyzer, identifier_text, split_identifier, words


def test_split_identifier_handles_snake_camel_acronyms_and_digits():
    assert split_identifier("contact_list") == ["contact", "list"]
    assert split_identifier("ContactList") == ["contact", "list"]
    assert split_identifier("HTTPServerLog") == ["http", "server", "log"]
    assert split_identifier("v2Users") == ["v2", "users"]
    assert split_identifier("ecm_template_link") == ["ecm", "template", "link"]
    assert split_identifier("K12Grade") == ["k12", "grade"]


def test_words_of_a_question_split_identifiers_written_in_it():
    assert words("rows in ecm_template_link?") == ["rows", "in", "ecm", "template", "link"]


def test_identifier_text_keeps_the_solid_form():
    assert identifier_text("ContactList") == "contact list contactlist"


def test_analyzer_lowercases_stems_and_drops_stop_words():
    analyzer = build_analyzer()
    assert analyzer.analyze("The Singers of Concerts") == ["singer", "concert"]


def test_analyzer_registers_on_an_index():
    from schema_search.core import analyzer
    from schema_search.core.index import build_schema

    index = tantivy.Index(build_schema(["names", "body"]))
    analyzer.register(index)  # no error: the name the schema refers to exists
    assert analyzer.ANALYZER == "schema_words"


def test_cjk_runs_become_bigrams_that_meet_across_question_and_text():
    assert words("后台任务") == ["后台", "台任", "任务"]
    assert words("バックグラウンドタスク") == [
        "バッ",
        "ック",
        "クグ",
        "グラ",
        "ラウ",
        "ウン",
        "ンド",
        "ドタ",
        "タス",
        "スク",
    ]
    # English inside a CJK sentence is still split like any identifier.
    assert words("使用BackgroundTasks发送") == ["使用", "background", "tasks", "发送"]
    # Text without CJK is split exactly as before.
    assert words("contact_lists of VIP accounts") == ["contact", "lists", "of", "vip", "accounts"]
    analyzer = build_analyzer()
    assert set(analyzer.analyze(" ".join(words("如何在返回响应后运行后台任务")))) >= set(words("后台任务"))
