"""Readers: one file of each format -> title, header fields, sections with anchors, code kept whole."""

from __future__ import annotations

import pytest

from schema_search.docs import readers
from schema_search.docs.readers.headers import front_matter, header_block
from schema_search.docs.readers.html import read_html
from schema_search.docs.readers.markdown import read_markdown
from schema_search.docs.readers.rst import read_rst
from schema_search.docs.readers.text import read_text

from ..conftest import HANDBOOK, SHARED


def outline(doc):
    return [(s.headings, s.anchor) for s in doc.sections]


def test_markdown_front_matter_anchors_and_code_fences():
    fmt, doc = readers.read(HANDBOOK / "index.md")
    assert fmt == "markdown" and doc.title == "Acme CRM Handbook"
    assert doc.fields == {"title": ("Acme CRM Handbook",), "owner": ("operations",)}
    assert outline(doc) == [((), None), (("Who this is for",), "audience"), (("Running the exports",), "exports")]
    code = [b for b in doc.sections[2].blocks if b.code]
    assert len(code) == 1 and "# Export last month's invoices" in code[0].text  # a comment, not a heading


def test_markdown_setext_headings_include_macros_and_block_fences():
    doc = read_markdown(
        "Guide\n=====\n\nIntro.\n\nUsage\n-----\n\n{* ../../docs_src/app.py hl[1] *}\n\n/// tip\n\nUse it.\n\n///\n"
    )
    assert doc.title == "Guide" and outline(doc) == [((), None), (("Usage",), None)]
    assert [b.text for b in doc.sections[1].blocks] == ["Use it."]


def test_toml_front_matter_and_a_url_it_declares():
    fields, rest = front_matter('+++\ntitle = "T"\nurl = "https://x.dev/t/"\n+++\nBody')
    assert fields == {"title": ("T",), "url": ("https://x.dev/t/",)} and rest == "Body"
    assert read_markdown('---\nurl: "https://x.dev/a/"\n---\n# A\n').url == "https://x.dev/a/"


def test_bad_front_matter_is_a_readable_error():
    with pytest.raises(ValueError, match="front matter does not parse"):
        read_markdown("---\ntitle: [unclosed\n---\n# A\n")


def test_rst_header_block_headings_literal_blocks_and_roles():
    fmt, doc = readers.read(HANDBOOK / "policies" / "data-retention.rst")
    assert fmt == "rst" and doc.title == "Data retention" and doc.label == "Policy 7"
    assert doc.fields["Review"] == ("yearly",)
    assert outline(doc) == [
        (("Scope",), "scope"),
        (("Retention periods",), "retention-periods"),
        (("Retention periods", "Deleting data"), "deleting-data"),
    ]
    literal = [b.text for b in doc.sections[2].blocks if b.code]
    # "Deleted" underlined inside the literal block is program output, not a heading.
    assert literal == ["    acme-admin contacts delete --id 4711\n    Deleted\n    ======="]
    rendered = read_rst("Intro\n=====\n\nSee :pep:`572` and :class:`~typing.Protocol`.\n")
    assert rendered.sections[0].blocks[0].text == "See PEP 572 and Protocol."


def test_header_block_keeps_repeated_keys_and_continuations():
    fields, rest = header_block("PEP: 9\nAuthor: A,\n  B\nAuthor: C\nPost-History:\n\nText")
    assert fields == {"PEP": ("9",), "Author": ("A, B", "C"), "Post-History": ("",)} and rest == "Text"
    assert header_block("Note: this is prose.\n\nMore.")[0] == {}  # one line is not a header block


def test_html_meta_heading_ids_and_furniture_skipped():
    fmt, doc = readers.read(HANDBOOK / "support.html")
    assert fmt == "html" and doc.title == "Customer support"
    assert doc.fields == {"owner": ("support",), "review": ("quarterly",)}
    assert outline(doc) == [
        ((), None),
        (("Response times",), "response-times"),
        (("Satisfaction surveys",), "satisfaction"),
    ]
    assert not any("Home | Policies" in b.text for s in doc.sections for b in s.blocks)
    doc = read_html("<h1>T</h1><h2><a id='x'></a>Sub</h2><p>a</p><pre>  keep\n  spacing</pre>")
    assert doc.sections[0].anchor == "x" and doc.sections[0].blocks[1].text == "  keep\n  spacing"


def test_plain_text_title_and_paragraphs():
    fmt, doc = readers.read(HANDBOOK / "oncall.txt")
    assert fmt == "text" and doc.title == "On-call rota" and len(doc.sections[0].blocks) == 3
    assert read_text("A long first paragraph that is a sentence,\nnot a title.\n\nMore.").title is None


def test_pdf_text_layer_one_section_per_page(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Refund policy")
    pdf.set_font("helvetica", size=12)
    for text in ("Refunds are possible within 30 days.", "Credits never expire."):
        pdf.add_page()
        pdf.multi_cell(0, 10, text)
    path = tmp_path / "policy.pdf"
    pdf.output(str(path))
    fmt, doc = readers.read(path)
    assert fmt == "pdf" and doc.title == "Refund policy"
    assert outline(doc) == [(("Page 1",), "page=1"), (("Page 2",), "page=2")]
    assert "30 days" in doc.sections[0].blocks[0].text and "Credits" in doc.sections[1].blocks[0].text


def test_docx_heading_styles_tables_and_core_title(tmp_path):
    import docx

    document = docx.Document()
    document.core_properties.title = "Support guide"
    document.add_heading("Escalation", level=1)
    document.add_paragraph("Escalate urgent tickets to the team lead.")
    document.add_heading("Contacts", level=2)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Lead", "Ann"
    path = tmp_path / "guide.docx"
    document.save(str(path))
    fmt, doc = readers.read(path)
    assert fmt == "docx" and doc.title == "Support guide"
    assert outline(doc) == [(("Escalation",), None), (("Escalation", "Contacts"), None)]
    assert doc.sections[1].blocks[0].text == "Lead | Ann"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("notes.md", b"\xff\xfe\x00bad", "not UTF-8"),
        ("scan.pdf", b"not a pdf", "not a readable PDF"),
        ("memo.docx", b"PK-not-a-zip", "not a readable DOCX"),
        ("image.png", b"\x89PNG", "no reader"),
    ],
)
def test_unreadable_files_raise_a_reason_a_person_can_act_on(tmp_path, name, data, reason):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match=reason):
        readers.read(path)


@pytest.mark.skipif(not (SHARED / "docs_corpora").is_dir(), reason="docs corpora not found")
def test_every_file_of_the_real_corpora_reads_with_a_title():
    root = SHARED / "docs_corpora"
    untitled = []
    for folder in ("fastapi/pages", "fastapi_cjk/zh", "fastapi_cjk/ja", "peps/pages"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and readers.supported(path):
                _, doc = readers.read(path)
                if not doc.title:
                    untitled.append(path.name)
    # The banner snippet has no heading, in any language.
    assert sorted(set(untitled)) == ["translation-banner.md"]
