"""Results that cover the answer: a floor no quoted sentence can raise, keyword anchors, pages spread and grouped.

The corpus is a small utility-CSS site whose examples print the sentences test text
is made of (a pangram, lorem ipsum), as Tailwind's pages do: before, one of the
built-in unrelated sentences matched them verbatim, the corpus's unrelated level
rose to where real questions failed it, and they came back off topic.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from schema_search.core.dense import UNRELATED, calibrate_nearest_floor
from schema_search.settings import Settings
from schema_search.workspace import Workspace

PAGES = {
    "flex.md": """# Flex

Utilities for controlling how flex items both grow and shrink.

## Basic usage

Use `flex-1` to allow a flex item to grow and shrink as needed, ignoring its initial size.

```html
<div class="flex"><p class="flex-1">The quick brown fox jumps over the lazy dog.</p></div>
```

## Flexbox or grid

Flexbox lays items out along one axis; reach for grid when rows and columns must line up.
""",
    "grid.md": """# Grid template columns

Utilities for specifying the columns in a grid layout.

## Basic usage

Use `grid-cols-3` to create a grid with three equally sized columns.

```html
<div class="grid grid-cols-3"><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p></div>
```
""",
    "typography.md": """# Font size

Utilities for controlling the font size of an element.

```html
<p class="text-sm">The quick brown fox jumps over the lazy dog.</p>
<p class="text-lg">The quick brown fox jumps over the lazy dog.</p>
```

## Responsive

Prefix a utility with a breakpoint such as `md:` to apply it at medium screen sizes and above.
""",
    "build.md": """# Installation

Add the plugin to your build and list your template paths in the content configuration.

## Classes not applied after build

When classes are missing from the built stylesheet, the content paths do not cover the files that use them:
the scanner only generates the classes it finds in those files.

## Dark mode

Use the `dark:` variant to style an element when dark mode is enabled.

## Hover and focus

Use `hover:` and `focus:` variants to style elements on interaction.
""",
}


@pytest.fixture(scope="module")
def utilities(tmp_path_factory) -> Workspace:
    folder = tmp_path_factory.mktemp("utilities")
    for name, text in PAGES.items():
        (folder / name).write_text(text)
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("home"), embedding_threads=1))
    workspace.corpora.index(folder, corpus="utilities", url_template="https://css.example.com/{stem}")
    return workspace


def test_quoted_example_text_does_not_set_the_unrelated_level(utilities):
    searcher = utilities.corpora.searcher("utilities")
    vectors, embedder = searcher.channels.vectors, searcher.channels.embedder
    every = embedder.encode(UNRELATED)
    quoted = [i for i, s in enumerate(UNRELATED) if s.startswith(("The quick brown fox", "Lorem ipsum"))]
    nearest = (every @ vectors.vectors.T).max(axis=1)
    # The pangram comes nearer to its pages than the level: had it counted, real questions would fail it ...
    assert nearest[quoted[0]] > vectors.nearest_floor
    # ... so both quoted sentences are left out of the level the corpus was given.
    kept = np.delete(every, quoted, axis=0)
    assert vectors.nearest_floor == pytest.approx(
        max(calibrate_nearest_floor(vectors.vectors, kept), vectors.floor), abs=1e-5
    )


@pytest.mark.parametrize(
    "question, page",
    [
        ("flexbox vs grid", "https://css.example.com/flex"),
        ("classes not applying after build", "https://css.example.com/build"),
        ("how do I make text bigger on medium screens", "https://css.example.com/typography"),
    ],
)
def test_answerable_questions_are_not_called_off_topic(utilities, question, page):
    response = utilities.corpora.search("utilities", question, 5)
    assert not response.off_topic
    assert page in {r.url.split("#")[0] for r in response.results}


def test_unrelated_questions_still_are(utilities):
    for question in ("How long should I boil an egg?", "Recommend a novel for my holiday"):
        response = utilities.corpora.search("utilities", question, 5)
        assert response.off_topic and response.results == []


def test_a_page_gives_at_most_two_passages_to_the_first_k(utilities):
    searcher = utilities.corpora.searcher("utilities")
    config = replace(utilities.corpora.config(), relevance_floor=False)
    question = "classes after build, dark mode, hover and focus variants"

    def pages(config):
        return [searcher.chunk(r.id).document for r in searcher.search(question, 3, config).ranking.ranked]

    build = searcher.chunk(searcher.search(question, 1, config).ranking.ranked[0].id).document
    assert pages(replace(config, per_page=0, group_pages=False)) == [build] * 3
    capped = pages(config)
    assert capped.count(build) == 2 and len(capped) == 3
    # Grouped (a setting), each page's passages stand together behind its best one.
    wider = [
        searcher.chunk(r.id).document
        for r in searcher.search(question, 4, replace(config, group_pages=True)).ranking.ranked
    ]
    assert wider == sorted(wider, key=wider.index)


def test_the_page_channel_lifts_the_passages_of_the_page_about_the_question(utilities):
    results = utilities.corpora.search("utilities", "grid columns", 3).results
    assert results[0].url.startswith("https://css.example.com/grid")
    assert results[0].channels["pages"] == 1
