"""A short schemathesis run over the app's own OpenAPI document: no 5xx, nothing the document does not allow.

The full run (100 generated cases per operation) is ``python -m eval.reliability.fuzz``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("schemathesis", reason="the test extra installs it: pip install -e '.[test]'")

from eval.reliability import fuzz  # noqa: E402


def test_a_short_fuzz_run_is_at_target():
    part = fuzz.run(examples_per_operation=3)
    counts = part.counts
    assert counts["operations"] >= 16 and counts["requests"] > 200
    assert counts["responses >= 500"] == 0, part.details
    assert counts["schema violations"] == 0, part.details
    assert counts["other check failures"] == 0, part.details
    assert part.at_target
