"""The web page in a real browser, against the real app: search, the distance scale, the
joins between results, table and document views, nothing jumping between them, errors,
keyboard use, a phone-sized screen, eval reports, read keys.

Each test leaves a full-page screenshot in test-artifacts/web/ (or $SCHEMA_SEARCH_TEST_ARTIFACTS/web/).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import SAMPLES

from .conftest import ADMIN_KEY, READ_KEY, Tab

pytestmark = pytest.mark.browser

CAMPAIGN_QUESTION = "Which contacts opened or clicked an email from a campaign?"
# Ranked first or second by every channel mix we tried; asserted present, not at a rank.
CAMPAIGN_TABLE = "marketing.campaign_recipients"
OFF_TOPIC = "How do I bake sourdough bread at home?"
REFUND_QUESTION = "Who has to approve a refund of 800 euros?"


def search_hash(kind: str, name: str, question: str = "") -> str:
    return f"#/search?{kind}={name}" + (f"&q={quote(question)}" if question else "")


def result(page: Page, table: str):
    return page.locator(f'[data-testid=result][data-table="{table}"]')


def search_crm(tab: Tab) -> Page:
    """Open the search page, pick crm, type the campaign question and press Enter."""
    page = tab.open("#/search")
    page.get_by_label("Catalog or corpus", exact=True).select_option("catalog:crm")
    question = page.get_by_label("Question", exact=True)
    question.fill(CAMPAIGN_QUESTION)
    question.press("Enter")
    expect(result(page, CAMPAIGN_TABLE)).to_be_visible()
    return page


def answered(page: Page, question: str) -> None:
    """Wait until the results shown are this question's and no search is running."""
    area = page.get_by_test_id("results-area")
    expect(area).to_have_attribute("data-question", question)
    expect(area).to_have_attribute("aria-busy", "false")


def api_search(tab: Tab, question: str) -> dict:
    answer = tab.page.request.post(f"{tab.base}/v1/catalogs/crm/search", data={"question": question})
    assert answer.ok
    return answer.json()


def test_search_shows_channel_ranks_and_the_distance_scale(tab: Tab):
    page = search_crm(tab)
    answered(page, CAMPAIGN_QUESTION)
    api = api_search(tab, CAMPAIGN_QUESTION)
    found = result(page, CAMPAIGN_TABLE)
    expect(page.get_by_test_id("status")).to_contain_text("tables for this question in catalog crm")
    # The ranks shown are the API's for this table: a number, or a dash where it is not ranked.
    channels = next(c for c in api["candidates"] if c["table"] == CAMPAIGN_TABLE)["channels"]
    assert channels["dense"] is not None
    for channel in ("names", "text", "body", "dense"):
        rank = channels[channel]
        expect(found.locator(f"[data-channel={channel}] .channel-rank")).to_have_text(
            "–" if rank is None else f"#{rank}"
        )
    expect(found.get_by_test_id("why")).to_contain_text(f"#{channels['dense']} in dense")
    expect(found.locator("mark").first).to_be_visible()  # the question's words marked
    # Why it is where it is, in numbers: each channel's weight / (k + rank), the API's.
    candidate = next(c for c in api["candidates"] if c["table"] == CAMPAIGN_TABLE)
    weights, k = api["channel_weights"], api["rrf_k"]
    parts = {c: weights[c] / (k + r) for c, r in channels.items() if r is not None and weights[c] > 0}
    score = found.get_by_test_id("score")
    expect(score).to_contain_text(f"score {candidate['score']:.3f} = ")
    for channel, part in parts.items():
        expect(score).to_contain_text(f"{channel} {part:.3f}")
    if candidate["score"] - sum(parts.values()) > 0.0005:
        expect(score).to_contain_text(f"{candidate['score'] - sum(parts.values()):.3f} from the results it joins")

    # One shared axis, placed by the API's distances: nearer to the left, and the unrelated-text
    # level between the results nearer than it and those that are not.
    markers = page.locator("[data-testid=distance-marker]")
    unrelated = page.get_by_test_id("unrelated-level")
    expect(unrelated).to_contain_text(f"unrelated text {api['unrelated_distance']:.2f}")
    assert page.locator("[data-testid=distance-scale]").count() == 1
    expect(markers).to_have_count(len(api["candidates"]))
    x = {
        m["table"]: m["x"]
        for m in markers.evaluate_all(
            "ms => ms.map(m => ({table: m.dataset.table, x: +m.querySelector('circle').getAttribute('cx')}))"
        )
    }
    unrelated_x = float(unrelated.locator("line").get_attribute("x1"))
    by_distance = sorted(api["candidates"], key=lambda c: c["distance"])
    assert [c["table"] for c in by_distance] == sorted(x, key=x.get)
    first, level = api["candidates"][0], api["unrelated_distance"]
    assert first["distance"] < level  # the data this test stands on: rank 1 is nearer than unrelated text
    assert x[first["table"]] < unrelated_x
    beyond = [c["table"] for c in api["candidates"] if c["distance"] > level]
    assert beyond and all(x[t] > unrelated_x for t in beyond)
    expect(result(page, first["table"]).get_by_test_id("why")).to_contain_text("nearer than unrelated text")

    # Which keys join the results, each a link to the other table's result in the list.
    joins = found.get_by_test_id("joins")
    expect(joins).to_contain_text("campaign_recipients.contact_id → contacts.contact_id")
    joins.get_by_role("link", name="campaign_recipients.contact_id → contacts.contact_id").click()
    contacts = result(page, "crm.contacts")
    expect(contacts).to_have_class(re.compile(r"\bis-target\b"))
    expect(contacts).to_be_in_viewport()
    assert page.evaluate("document.activeElement.closest('[data-testid=result]').dataset.table") == "crm.contacts"
    assert "at=" + next(c["source_id"] for c in api["candidates"] if c["table"] == "crm.contacts") in page.url

    # The hash holds the search: a reload shows it again.
    assert "catalog=crm" in page.url and "q=" in page.url
    page.reload()
    expect(page.get_by_label("Question", exact=True)).to_have_value(CAMPAIGN_QUESTION)
    expect(result(page, CAMPAIGN_TABLE)).to_be_attached()
    expect(contacts).to_have_class(re.compile(r"\bis-target\b"))  # and at= scrolls to the same result
    expect(contacts).to_be_in_viewport()


def test_table_view_shows_foreign_keys_in_the_graph_and_the_list(tab: Tab):
    page = search_crm(tab)
    answered(page, CAMPAIGN_QUESTION)
    in_results = set(page.locator("[data-testid=result]").evaluate_all("rs => rs.map(r => r.dataset.table)"))
    result(page, CAMPAIGN_TABLE).locator("a.result-link").click()
    view = page.get_by_test_id("table-view")
    expect(view).to_have_attribute("data-table", CAMPAIGN_TABLE)
    graph = page.get_by_test_id("fk-graph")
    # The search's context: the neighbours that were in its results are marked, and only those.
    nodes = graph.locator("[data-testid=graph-node]")
    expect(nodes.first).to_be_visible()
    drawn = nodes.evaluate_all(
        "ns => ns.map(n => [n.dataset.table, n.dataset.inResults === 'true', n.getAttribute('aria-label')])"
    )
    marked = {t for t, on, _ in drawn if on}
    assert marked and marked == {t for t, _, _ in drawn} & in_results
    assert all(("in the results" in label) == on for _, on, label in drawn)
    expect(page.get_by_test_id("graph-legend")).to_contain_text(f"{len(marked)} of these tables")
    expect(page.locator('[data-testid=fk-list] li[data-table="crm.contacts"]')).to_contain_text("in the results")
    # crm.sql: campaign_recipients.contact_id -> crm.contacts; email_events.recipient_id -> campaign_recipients.
    contacts = graph.locator('[data-testid=graph-node][data-table="crm.contacts"]')
    expect(contacts).to_have_attribute("data-direction", "outgoing")
    expect(graph.locator('[data-testid=graph-node][data-table="marketing.email_events"]')).to_have_attribute(
        "data-direction", "incoming"
    )
    expect(graph).to_contain_text("campaign_recipients.contact_id →")
    keys = page.get_by_test_id("fk-list")
    expect(keys).to_contain_text("campaign_recipients.contact_id → contacts.contact_id")
    expect(keys).to_contain_text("email_events.recipient_id → campaign_recipients.recipient_id")
    expect(page.get_by_test_id("ddl")).to_contain_text("CREATE TABLE marketing.campaign_recipients")
    expect(page.get_by_test_id("back-to-results")).to_be_visible()

    # A neighbour is a link the keyboard reaches and opens.
    contacts.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", "crm.contacts")


def test_an_off_topic_question_says_nothing_relates(tab: Tab):
    page = tab.open(search_hash("catalog", "crm", OFF_TOPIC))
    notice = page.get_by_test_id("off-topic")
    expect(notice).to_contain_text("Nothing in catalog crm relates to this question")
    expect(page.get_by_test_id("nearest-marker")).to_have_count(1)
    expect(page.get_by_test_id("unrelated-level")).to_have_count(1)
    expect(page.locator("[data-testid=result]")).to_have_count(0)


# Chromium's Layout Instability API, as the Web Vitals count it: every shift of something on
# screen that no recent input caused. The observer is buffered, so shifts before it ran count.
LAYOUT_SHIFTS = """
window.__shifts = [];
window.__shiftObserver = new PerformanceObserver((list) => window.__shifts.push(...list.getEntries()));
window.__shiftObserver.observe({type: 'layout-shift', buffered: true});
"""
SHIFTS_SO_FAR = """() => {
    window.__shifts.push(...window.__shiftObserver.takeRecords());
    return window.__shifts.filter((e) => !e.hadRecentInput).map((e) => ({
        value: e.value,
        moved: e.sources.map((s) => s.node ? (s.node.id || s.node.getAttribute?.('class') || s.node.nodeName) : '?'),
    }));
}"""


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 360, "height": 780}], ids=["desktop", "phone"]
)
def test_nothing_jumps_between_searches_and_views(tab: Tab):
    """Results, an off-topic notice, other results and a table view replace each other with
    nothing on screen moving: the layout-shift score stays under 0.02 (0.1 is Web Vitals' "good")."""
    page = tab.page
    page.add_init_script(LAYOUT_SHIFTS)
    tab.open("#/sources")
    expect(page.get_by_test_id("catalog-list")).to_contain_text("crm")
    nav = page.locator("header nav a")
    at_sources = nav.evaluate_all("as => as.map(a => a.getBoundingClientRect().x)")

    def go(hash_: str) -> None:
        # A hash change from the page's own script, not typing: a shift within 0.5 s of input would not count.
        page.evaluate("h => { location.hash = h; }", hash_)

    # Where the list and its first item (results or the off-topic notice) start: a few pixels
    # of margin would score under the threshold, so they are compared as they are.
    starts = "() => [...document.querySelectorAll('.result-list, .result-list > :first-child')].map(e => e.getBoundingClientRect().top)"
    go(search_hash("catalog", "crm", CAMPAIGN_QUESTION))
    answered(page, CAMPAIGN_QUESTION)
    expect(page.locator("[data-nav=search]")).to_have_attribute("aria-current", "page")
    assert (
        nav.evaluate_all("as => as.map(a => a.getBoundingClientRect().x)") == at_sources
    )  # the current item does not widen
    with_results = page.evaluate(starts)
    go(search_hash("catalog", "crm", OFF_TOPIC))
    answered(page, OFF_TOPIC)
    expect(page.get_by_test_id("off-topic")).to_be_visible()
    assert page.evaluate(starts) == with_results
    go(search_hash("catalog", "crm", "Which leads came from a campaign?"))
    answered(page, "Which leads came from a campaign?")
    assert page.evaluate(starts) == with_results
    page.evaluate("document.querySelector('[data-testid=result] a.result-link').click()")
    expect(page.get_by_test_id("fk-graph")).to_be_visible()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shifts = page.evaluate(SHIFTS_SO_FAR)
    assert sum(s["value"] for s in shifts) < 0.02, f"layout shifts: {shifts}"


def test_an_unknown_catalog_shows_the_404_detail_and_hint(tab: Tab):
    tab.expect_http_errors()
    problem = tab.page.request.post(f"{tab.base}/v1/catalogs/nope/search", data={"question": "x"})
    assert problem.status == 404
    body = problem.json()
    page = tab.open(search_hash("catalog", "nope", "x"))
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(body["detail"])
    expect(alert).to_contain_text(body["hint"])


def test_the_keyboard_reaches_and_opens_the_first_result(tab: Tab):
    page = tab.open(search_hash("catalog", "crm"))
    expect(page.get_by_label("Catalog or corpus", exact=True)).to_have_value("catalog:crm")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "question":
            break
    assert page.evaluate("document.activeElement.id") == "question", "Tab never reached the question"
    page.keyboard.type(CAMPAIGN_QUESTION)  # searched as typed, no Enter
    # Each pause in the typing searches a part of the question: wait for the whole question's answer.
    answered(page, CAMPAIGN_QUESTION)
    first = page.locator("[data-testid=result][data-rank='1']")
    expect(first).to_be_visible()
    table = first.get_attribute("data-table")
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest(\"[data-testid=result][data-rank='1']\")"):
            break
    assert page.evaluate("document.activeElement.classList.contains('result-link')"), "Tab never reached result #1"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", table)


@pytest.mark.parametrize("viewport", [{"width": 360, "height": 780}])
def test_a_360_px_screen_never_scrolls_sideways(tab: Tab):
    page = search_crm(tab)
    wide = "document.scrollingElement.scrollWidth"
    assert page.evaluate(wide) <= 360 + 1
    tab.shot("-search")
    result(page, CAMPAIGN_TABLE).locator("a.result-link").click()
    expect(page.get_by_test_id("fk-graph")).to_be_visible()
    assert page.evaluate(wide) <= 360 + 1


def test_a_passage_opens_in_its_document(tab: Tab):
    page = tab.open(search_hash("corpus", "handbook"))
    page.get_by_label("Question", exact=True).fill(REFUND_QUESTION)
    page.get_by_label("Question", exact=True).press("Enter")
    first = page.locator("[data-testid=result][data-kind=chunk]").first
    expect(first).to_be_visible()
    source_id = first.get_attribute("data-source-id")
    chunk = page.request.get(f"{tab.base}/v1/corpora/handbook/documents/{source_id}").json()
    first.locator("a.result-link").click()
    view = page.get_by_test_id("document-view")
    expect(view).to_have_attribute("data-source-id", source_id)
    for heading in chunk["heading_path"]:
        expect(view.get_by_test_id("heading-path")).to_contain_text(heading)
    link = view.get_by_test_id("source-link")
    expect(link).to_have_attribute("href", chunk["url"])
    expect(link).to_have_attribute("target", "_blank")
    passage = view.get_by_test_id("passage")
    expect(passage).to_contain_text(chunk["text"].split("\n")[0])
    expect(passage).to_be_in_viewport()


def test_a_second_pass_says_what_it_looked_for_and_added(tab: Tab):
    question = "How do I contact support by phone?"
    body = tab.page.request.post(f"{tab.base}/v1/corpora/handbook/search", data={"question": question}).json()
    coverage = body["coverage"]  # no passage found shows a phone number or an e-mail: a second search ran
    page = tab.open(search_hash("corpus", "handbook"))
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_label("Question", exact=True).press("Enter")
    note = page.get_by_test_id("coverage-note")
    expect(note).to_contain_text(f"No passage showed {coverage['looked_for']}")
    expect(note).to_contain_text(coverage["searched"])


def test_a_passage_without_a_web_address_shows_its_path_as_text(tab: Tab):
    found = tab.page.request.post(f"{tab.base}/v1/corpora/notes/search", data={"question": REFUND_QUESTION}).json()
    url = found["results"][0]["url"]
    assert "://" not in url  # notes has no manifest nor URL template: the file's path
    page = tab.open(search_hash("corpus", "notes", REFUND_QUESTION))
    page.locator("[data-testid=result] a.result-link").first.click()
    view = page.get_by_test_id("document-view")
    expect(view.get_by_test_id("source-text")).to_have_text(url)
    expect(view.get_by_test_id("source-note")).to_contain_text("indexed without a URL template")
    expect(view.get_by_test_id("source-link")).to_have_count(0)
    expect(view.locator(f'a[href="{url}"]')).to_have_count(0)


def test_the_eval_view_lists_reports_and_frames_one(tab: Tab):
    page = tab.open("#/eval")
    reports = page.get_by_test_id("eval-report")
    expect(reports.first).to_be_visible()
    framed = page.get_by_test_id("report-frame")
    src = framed.get_attribute("src")
    assert src.startswith(f"{tab.base}/v1/eval/") and src.endswith("/page")
    expect(framed).to_have_attribute("sandbox", "")
    expect(page.frame_locator("[data-testid=report-frame]").locator("svg").first).to_be_visible()
    expect(page.get_by_test_id("report-alone")).to_have_attribute("href", src)


def test_a_read_key_is_asked_for_kept_for_the_tab_and_sent(locked_tab: Tab):
    locked_tab.expect_http_errors()
    page = locked_tab.open("#/sources")
    key = page.get_by_label("Read key", exact=True)
    expect(key).to_be_visible()
    expect(page.get_by_test_id("read-key-kept")).to_contain_text(
        "cookie sent only to /v1/eval, until the browser closes"
    )
    # A key a header cannot carry is refused in the form, before fetch would throw on it.
    key.fill("ключ")
    key.press("Enter")
    expect(page.get_by_test_id("read-key-problem")).to_contain_text("“к”, which a request header cannot carry")
    expect(key).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('schema_search.read_key')") is None
    key.fill(READ_KEY)
    expect(page.get_by_test_id("read-key-problem")).to_have_text("")
    key.press("Enter")
    expect(page.get_by_test_id("catalog-list")).to_contain_text("crm")
    assert page.evaluate("sessionStorage.getItem('schema_search.read_key')") == READ_KEY
    # Writes need the admin key here: the form says so, and a refusal shows why.
    expect(page.get_by_test_id("key-note")).to_contain_text("needs the admin key")
    form = page.get_by_test_id("catalog-form")
    form.get_by_label("Name", exact=True).fill("upload-test")
    form.get_by_label("DDL file (.sql)").set_input_files(str(SAMPLES / "shop.sql"))
    form.get_by_label("Admin key", exact=True).fill(ADMIN_KEY + "-wrong")
    form.get_by_role("button", name="Index catalog").click()
    refusal = form.get_by_test_id("error")
    expect(refusal).to_have_attribute("data-code", "forbidden")
    expect(refusal.get_by_test_id("error-hint")).to_be_visible()
    expect(refusal.get_by_test_id("error-detail")).to_contain_text("not this server's")
    # A frame cannot send the header: the eval report comes with the page's cookie instead.
    page.goto(page.url.split("#")[0] + "#/eval")
    expect(page.frame_locator("[data-testid=report-frame]").locator("svg").first).to_be_visible()


def test_a_server_that_does_not_answer_is_said_so(tab: Tab):
    tab.expect_http_errors()
    tab.page.route("**/v1/**", lambda route: route.abort("connectionrefused"))
    page = tab.open("#/")
    expect(page.get_by_role("alert")).to_contain_text("The server did not answer.")


def test_the_pure_helpers_in_the_page(tab: Tab):
    """The modules' pure functions, run by the browser that runs the page."""
    page = tab.open("#/eval")
    got = page.evaluate(
        """async () => {
        const dom = await import('/ui/js/dom.js');
        const doc = await import('/ui/js/document.js');
        const graph = await import('/ui/js/graph.js');
        const scale = await import('/ui/js/scale.js');
        const why = await import('/ui/js/why.js');
        const keys = await import('/ui/js/keyfield.js');
        const text = (t, w) => dom.spans(t, w).map(([a, b]) => t.slice(a, b));
        return {
            edges: text('contact_id, contacts, InvoiceLines, emails', ['contact', 'invoice', 'email']),
            // Lower-casing "İ" makes two code units of one: marks after it must still sit on their words.
            dotted: text('İstanbul İSTANBUL orders, Orders', ['orders', 'istanbul']),
            literal: text('a.b axb (x)', ['a.b', '(x)']),
            addresses: ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'refunds.md', '/v1/server', 'https://x.example/a#b', 'http://x.example']
                .map((u) => doc.webAddress(u)),
            keys: ['read-sesame', 'ключ', 'line\\nbreak', ' padded', 'café'].map((k) => keys.keyProblem(k)),
            located: doc.locate('Intro.\\n\\nRefunds up to\\n500 euros.  Next.', 'Refunds up to 500 euros.'),
            missing: doc.locate('Intro.', 'Not here'),
            key: graph.keyLabel({from_table: 'shop.orders', from_columns: ['customer_id'], to_table: 'shop.customers', to_columns: ['id']}),
            compound: graph.keyLabel({from_table: 'a.lines', from_columns: ['x', 'y'], to_table: 'a.heads', to_columns: ['p', 'q']}),
            domain: scale.domain([0.39, 0.6, 0.85]),
            why: why.why({channels: {dense: 1, text: null, names: 6}, highlight: ['contacts'], distance: 0.39},
                         {unrelated: 0.6, floor: 0.85}, why.TABLE_CHANNELS),
            far: why.why({channels: {names: 2}, highlight: ['refunds'], distance: 0.9}, {unrelated: 0.6, floor: 0.85}, why.TABLE_CHANNELS),
            shown: why.shownChannels([{channels: {names: 1, descriptions: null, values: 2, dense: null}}], why.TABLE_CHANNELS),
        };
    }"""
    )
    assert got["edges"] == ["contact", "Invoice"]  # not "contacts" (a word of its own), nor "emails"
    assert got["dotted"] == ["orders", "Orders"]  # "İstanbul" is not "istanbul" under simple case folding
    assert got["literal"] == ["a.b", "(x)"]  # the words are text, not patterns
    assert got["addresses"] == [None, None, None, None, "https://x.example/a#b", "http://x.example/"]
    ok, cyrillic, newline, padded, latin1 = got["keys"]
    assert ok is None and latin1 is None
    assert "“к”" in cyrillic and "control character" in newline and "space" in padded
    assert got["located"] == [len("Intro.\n\n"), len("Intro.\n\nRefunds up to\n500 euros.")]
    assert got["missing"] is None
    assert got["key"] == "orders.customer_id → customers.id"
    assert got["compound"] == "lines(x, y) → heads(p, q)"
    assert got["domain"] == [0.35, 0.9]
    assert got["why"] == "#6 in names, #1 in dense; matches contacts; distance 0.39 — nearer than unrelated text (0.60)"
    assert got["far"] == (
        "#2 in names; matches refunds; distance 0.90 — no nearer than unrelated text (0.60), "
        "beyond the floor (0.85): kept by its keyword match"
    )
    assert got["shown"] == ["names", "values", "dense"]


def test_a_generated_description_is_marked_apart_from_the_database_comment(tab: Tab):
    page = tab.open("#/catalog/tiny/table/crm.accounts")
    said = page.get_by_test_id("table-comment")
    generated = page.get_by_test_id("generated-description")
    expect(said).to_have_text("Companies we sell to.")
    expect(generated).to_contain_text("Holds one row per accounts record")
    expect(generated).to_contain_text("Generated by recorded/model at")
    expect(generated.locator(".badge.generated")).to_have_text("generated")
    assert "Holds one row" not in said.text_content()
    tab.shot("-table")
    page = tab.open("#/catalog/tiny")
    expect(page.get_by_test_id("facts")).to_contain_text("5 of 5 tables described by recorded/model")


def test_the_address_a_new_user_opens_is_the_search(tab: Tab):
    page = tab.open("")  # http://host:port/, as the quick start prints it
    expect(page.get_by_label("Question", exact=True)).to_be_visible()
    expect(page.get_by_label("Catalog or corpus", exact=True)).to_have_value("catalog:crm")  # the first catalog
    expect(page.get_by_role("link", name="Sources")).to_have_attribute("href", "#/sources")


def test_a_server_mounted_under_a_prefix_serves_a_working_page(prefixed_tab: Tab):
    """Behind a proxy that forwards /search/ to the server: the page calls the API under it too."""
    page = prefixed_tab.open(search_hash("catalog", "crm", CAMPAIGN_QUESTION))
    expect(result(page, CAMPAIGN_TABLE)).to_be_visible()
    result(page, CAMPAIGN_TABLE).locator(".result-link").click()
    expect(page.get_by_test_id("fk-graph")).to_be_visible()
    page.goto(f"{prefixed_tab.base}/#/eval")
    frame = page.get_by_test_id("report-frame")
    assert frame.get_attribute("src").startswith(f"{prefixed_tab.base}/v1/eval/")
    expect(page.frame_locator("[data-testid=report-frame]").locator("svg").first).to_be_visible()


def test_a_follow_up_is_searched_with_its_earlier_question_and_says_so(tab: Tab):
    page = tab.open(search_hash("corpus", "handbook"))
    page.get_by_label("Earlier question", exact=True).fill(REFUND_QUESTION)
    page.get_by_label("Question", exact=True).fill("And who signs it off when it is larger?")
    page.get_by_label("Question", exact=True).press("Enter")
    note = page.get_by_test_id("rewrite-note")
    expect(note).to_contain_text("A follow-up: searched as")
    expect(note).to_contain_text("approve a refund of 800 euros")


def test_next_batch_shows_the_rest_of_the_ranking_once(tab: Tab):
    page = tab.open(search_hash("corpus", "handbook", REFUND_QUESTION))
    results = page.get_by_test_id("results").get_by_test_id("result")
    expect(results.first).to_be_visible()
    first = set(results.evaluate_all("items => items.map(i => i.dataset.key)"))
    page.get_by_test_id("next-batch").click()
    expect(page.get_by_test_id("batch-note")).to_contain_text("The next batch of this question's ranking")
    second = set(results.evaluate_all("items => items.map(i => i.dataset.key)"))
    assert not first & second  # none shown before
    expect(page.get_by_test_id("next-batch")).to_be_hidden()  # once per turn


def test_a_passage_read_from_a_figure_is_marked_and_the_overview_counts_what_was_read(tab: Tab):
    page = tab.open(search_hash("corpus", "manuals", "Where is the JBAT1 jumper?"))
    first = page.get_by_test_id("results").get_by_test_id("result").first
    expect(first.get_by_test_id("derived")).to_contain_text("from a figure on page 2, read by OCR")
    page = tab.open("#/corpus/manuals")
    row = page.get_by_test_id("visual").get_by_test_id("visual-row")
    expect(row).to_contain_text("board-manual.pdf")
