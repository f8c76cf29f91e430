"""What every subcommand prints the same way: JSON bodies, aligned tables, progress bars, help.

stdout carries a command's result and nothing else (with ``--json``, only JSON), so it
can be piped; notes, warnings, prompts and progress go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TextIO

from pydantic import BaseModel

from ..settings import Settings


def print_json(model: BaseModel) -> int:
    # Byte for byte what FastAPI's JSONResponse sends for the same model.
    print(json.dumps(model.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")))
    return 0


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for line in (header, tuple("-" * w for w in widths), *rows):
        print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip())


def print_rows(columns: Sequence[str], rows: Sequence[Sequence[object]], width: int = 40) -> None:
    """Query results as an aligned table; NULL for missing values, cells cut at ``width`` with ``…``
    (``--json`` has them whole).

    >>> print_rows(["title", "n"], [["Assignment Expressions in comprehensions", 1], [None, 22]], width=12)
    title         n
    ------------  --
    Assignment …  1
    NULL          22
    """
    cells = [[cut("NULL" if v is None else str(v), width) for v in row] for row in rows]
    columns = [cut(c, width) for c in columns]
    widths = [max(len(c) for c in column) for column in zip(columns, *cells)]
    for line in (columns, ["-" * w for w in widths], *cells):
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def cut(text: str, width: int) -> str:
    """``text`` within ``width`` characters, ending in ``…`` where it was cut (one line: breaks shown as spaces).

    >>> cut("Assignment Expressions", 12), cut("short", 12), cut("two\\nlines", 12)
    ('Assignment …', 'short', 'two lines')
    """
    text = " ".join(text.split()) if "\n" in text or "\r" in text or "\t" in text else text
    return text if len(text) <= width else text[: width - 1] + "…"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, singular for one.

    >>> counted(1, "row"), counted(2, "row"), counted(1_204, "passage"), counted(1, "query", "queries")
    ('1 row', '2 rows', '1,204 passages', '1 query')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def progress(unit: str | Mapping[str, str]):
    """A progress wrapper ``(items, label) -> items``: a bar on a terminal, lines in a log; ``.note(text)`` says a line.

    Args:
        unit: what is counted, or label -> what is counted (``{"reading": "file"}``).
    """

    def wrap(items: Sequence, description: str) -> Iterable:
        counted = unit if isinstance(unit, str) else unit.get(description, "item")
        if not sys.stderr.isatty():
            return progress_lines(items, description, counted)
        from tqdm import tqdm

        return tqdm(items, desc=description, unit=counted, file=sys.stderr)

    def note(text: str) -> None:
        """A line said once (an estimate, a resume): above the bar on a terminal, in turn in a log."""
        if sys.stderr.isatty():
            from tqdm import tqdm

            tqdm.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    wrap.note = note  # see core.build.Progress
    return wrap


def progress_lines(
    items: Sequence,
    label: str,
    unit: str,
    every_s: float = 10.0,
    quiet_under_s: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    file: TextIO | None = None,
) -> Iterator:
    """Yield ``items``, printing every ``every_s`` how far it got, and at the end how long it took.

    Where nobody watches a bar (a log file, CI), a phase that takes more than
    ``quiet_under_s`` still says its count, rate and the time left.

    >>> ticks = iter([0, 0, 11, 12, 15])
    >>> list(progress_lines([1, 2, 3], "embedding", "table", clock=lambda: next(ticks), file=sys.stdout))
    embedding: 2/3 tables (67%), 11 s, about 6 s left
    embedding: 3 tables in 15 s (0.2 per s)
    [1, 2, 3]
    """
    out = file or sys.stderr
    total = len(items)
    started = last = clock()
    done = 0
    for done, item in enumerate(items, 1):
        yield item
        now = clock()
        if now - last >= every_s and done < total:
            left = (now - started) / done * (total - done)
            print(
                f"{label}: {done:,}/{total:,} {unit}s ({done / total:.0%}), {now - started:.0f} s, "
                f"about {left:.0f} s left",
                file=out,
                flush=True,
            )
            last = now
    elapsed = clock() - started
    if elapsed >= quiet_under_s:
        print(
            f"{label}: {done:,} {unit}{'s' * (done != 1)} in {elapsed:.0f} s ({done / elapsed:.1f} per s)",
            file=out,
            flush=True,
        )


def print_warnings(warnings: Sequence[str], listing: str, shown: int = 20, file: TextIO | None = None) -> None:
    """The first ``shown`` warnings of an index run, then where to read the rest, on stderr."""
    out = file or sys.stderr
    for warning in warnings[:shown]:
        print(f"  warning: {warning}", file=out)
    if len(warnings) > shown:
        print(f"  ... and {len(warnings) - shown} more warnings (see `{listing}`).", file=out)


def confirm(question: str, yes: bool, stdin: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """Whether to go ahead with something that cannot be undone: ``--yes``, or "y" typed at a terminal.

    Raises:
        InvalidInput: no ``--yes`` and nobody at a terminal to ask (a script, a pipe).
    """
    from ..errors import InvalidInput

    if yes:
        return True
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    if not stdin.isatty():
        raise InvalidInput(f"{question} needs a confirmation, and stdin is not a terminal.", hint="Add --yes.")
    print(f"{question} [y/N] ", end="", file=stderr, flush=True)
    return stdin.readline().strip().lower() in ("y", "yes")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, except that indented lines (the examples) keep their line breaks.

    ``RawDescriptionHelpFormatter`` would keep them too, but would also stop wrapping
    every long description, which are written as one line each.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks, prose = [], []
        for line in text.splitlines():
            if line.startswith("  ") or not line.strip():
                if prose:
                    blocks.append(
                        textwrap.fill(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent)
                    )
                    prose = []
                blocks.append(indent + line)
            else:
                prose.append(line.strip())
        if prose:
            blocks.append(textwrap.fill(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent))
        return "\n".join(blocks)


def add_history(command: argparse.ArgumentParser) -> None:
    """The ``--history`` option of a search command: the conversation's earlier user messages."""
    command.add_argument(
        "--history",
        action="append",
        default=[],
        metavar="TEXT",
        help="an earlier user message of the conversation, oldest first (repeat it): a follow-up question is "
        "written out with them before it is searched",
    )


def add_ray(command: argparse.ArgumentParser, does: str) -> None:
    """The ``--ray ADDRESS`` option: ``does`` (what runs on the cluster) on the Ray cluster at ADDRESS."""
    command.add_argument(
        "--ray",
        metavar="ADDRESS",
        help=f"{does} on the Ray cluster at ADDRESS: local (start one here), auto (the cluster this machine is a "
        "node of, e.g. after `ray start --head`), HOST:6379 (its head), ray://HOST:10001 (Ray Client; not for builds) "
        "(default: $SCHEMA_SEARCH_RAY_ADDRESS, else none; needs pip install 'schemasift[ray]')",
    )


def on_ray(args: argparse.Namespace, settings: Settings, join: bool = True) -> Settings:
    """``settings`` with the cluster ``--ray`` named (else SCHEMA_SEARCH_RAY_ADDRESS's), checked now.

    With ``join``, the cluster is joined at once: a missing extra or a wrong address fails
    before a corpus is read, not after. Without (``serve``, whose workers join it), the extra
    is checked only.
    """
    address = getattr(args, "ray", None) or settings.ray_address
    if address is None:
        return settings
    from ..cluster.connect import connect, require_ray  # Ray only when asked for: an extra

    if join:
        connect(address, data=settings.dense)  # a build: its embedding runs as a Ray Data pipeline
    else:
        require_ray()
    return settings.model_copy(update={"ray_address": address})


def add_shards(command: argparse.ArgumentParser, split: str) -> None:
    """The ``--shards N`` option of an index command; ``split``: what the collection is split by."""
    command.add_argument(
        "--shards",
        type=at_least_one,
        default=1,
        metavar="N",
        help=f"split the {split} into N shards, each a complete index, for `serve --ray` (default 1)",
    )


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of 1 or more.

    >>> at_least_one("3")
    3
    """
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is not 1 or more")
    return number


def examples(*lines: str) -> dict:
    """Keywords for ``add_parser`` giving a command 1-3 example lines under its help.

    >>> print(examples("schemasift catalogs")["epilog"])
    examples:
      schemasift catalogs
    """
    return {"epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines), "formatter_class": HelpFormatter}
