"""Spread a ranking over its groups (the pages of passages), and group what was kept. Pure.

A long page that matches a question well matches it in many passages: the top ten
passages of a FastAPI question covered a median of five pages, often six to eight
passages of one, and a question that needs two pages lost the second one to a third
and fourth passage of the first. ``spread`` lets each group into the head of the
ranking only ``per_group`` times; its further items follow, in their order, after
every item that fits. ``grouped`` then puts the items kept from one group together,
behind the group's best, so a reader sees a page once, with its passages in order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence


def spread(
    order: Sequence[str], group_of: Callable[[str], Hashable], per_group: int, exempt: Collection[str] = ()
) -> list[str]:
    """``order`` with each group's items past its first ``per_group`` moved behind the rest.

    ``exempt`` items (pinned ones) keep their place and do not count against their group.
    ``per_group`` 0 or less: ``order`` unchanged.

    >>> spread(["a1", "a2", "a3", "b1", "c1", "a4"], lambda item: item[0], 2)
    ['a1', 'a2', 'b1', 'c1', 'a3', 'a4']
    >>> spread(["a1", "a2", "a3", "b1"], lambda item: item[0], 1, exempt={"a1", "a2"})
    ['a1', 'a2', 'a3', 'b1']
    """
    if per_group <= 0:
        return list(order)
    seen: Counter = Counter()
    head: list[str] = []
    tail: list[str] = []
    for item in order:
        if item in exempt:
            head.append(item)
            continue
        group = group_of(item)
        seen[group] += 1
        (head if seen[group] <= per_group else tail).append(item)
    return head + tail


def grouped(items: Sequence[str], group_of: Callable[[str], Hashable]) -> list[str]:
    """``items`` with each group's items together, groups in order of their first item.

    >>> grouped(["a1", "b1", "a2", "c1", "b2"], lambda item: item[0])
    ['a1', 'a2', 'b1', 'b2', 'c1']
    """
    groups: dict[Hashable, list[str]] = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(item)
    return [item for members in groups.values() for item in members]
