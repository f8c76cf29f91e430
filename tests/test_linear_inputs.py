"""Every reader of user input takes time in proportion to its size, whatever the input holds.

Each case feeds the input that took a quadratic reader seconds to minutes (the JSON body
check, the stored-value classifier, the Markdown and HTML readers), at ten and a hundred
times the size found. It runs in a child process given a deadline hundreds of times what
the linear reader needs, so the test fails only when the reader hangs, never because the
machine is busy.
"""

from __future__ import annotations

import multiprocessing

import pytest

# The size the attack used, then 10x and 100x of it.
CASES = {
    # A JSON string opened and never closed, full of escaped quotes: 40 KB held a worker 16.7 s.
    "json body": ("schema_search.json_body:check_json_body", lambda n: b'"' + b'\\"' * n, 20_000),
    # A stored value shaped like the start of many e-mail addresses: 60 KB took 27.7 s.
    "stored value": ("schema_search.connectors.sensitive:value_kind", lambda n: "a:" * n, 30_000),
    "stored value with @": ("schema_search.connectors.sensitive:value_kind", lambda n: "a@" + "b" * n, 60_000),
    # HTML comments opened and never closed: 128 KB of Markdown took 54 s.
    "markdown comments": ("schema_search.docs.readers.markdown:read_markdown", lambda n: "<!--" * n, 32_000),
    # Tags html.parser cannot close: 20 KB took 0.76 s, growing with the square of the size.
    "html open attributes": ("schema_search.docs.readers.html:read_html", lambda n: "<a href='" * n, 2_500),
    "html comments": ("schema_search.docs.readers.html:read_html", lambda n: "<!--" * n, 5_000),
}
DEADLINE_S = 60


def _run(target: str, make, size: int) -> None:
    import importlib

    module, _, name = target.partition(":")
    function = getattr(importlib.import_module(module), name)
    try:
        function(make(size))
    except Exception:  # noqa: BLE001 - refusing the input is fine; taking forever is not
        pass


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("times", [10, 100])
def test_adversarial_input_is_read_in_linear_time(case: str, times: int) -> None:
    target, make, size = CASES[case]
    child = multiprocessing.get_context("fork").Process(target=_run, args=(target, make, size * times))
    child.start()
    child.join(DEADLINE_S)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    assert not hung, f"{case} at {times}x ({size * times:,} units) ran past {DEADLINE_S} s: not linear"
    assert child.exitcode == 0
