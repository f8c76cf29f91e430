"""One part's figures, and the table they print as."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Part:
    """What one part of the reliability suite measured.

    Attributes:
        name: the part (``hostile SQL``, ``crash safety``, ...).
        counts: the figures, in the order they print (``{"ran with an effect": 0, ...}``).
        target: the target in words (``0 with an effect``).
        at_target: whether the figures meet it.
        details: lines worth reading when it is not at target (one per failure), kept short.
    """

    name: str
    counts: dict[str, int | float]
    target: str
    at_target: bool
    details: list[str] = field(default_factory=list)


def table(parts: list[Part]) -> str:
    """The parts as one plain-text table: part, figures, target, verdict."""
    rows = [("part", "figures", "target", "verdict")]
    for part in parts:
        figures = ", ".join(f"{k} {_shown(v)}" for k, v in part.counts.items())
        rows.append((part.name, figures, part.target, "at target" if part.at_target else "MISSED"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _shown(value: int | float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def show(parts: list[Part], most: int | None = None) -> int:
    """Print the parts' table, then each part's details (``most`` per part); the exit status
    a script returns: 0 only when every part is at target."""
    print(table(parts))
    for part in parts:
        for line in part.details[:most]:
            print(f"  {part.name}: {line}" if len(parts) > 1 else f"  {line}")
    return 0 if all(p.at_target for p in parts) else 1
