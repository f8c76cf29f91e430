"""Big corpora without pain (issue 29): an estimate before the embedding, Ctrl-C that keeps what was
embedded and says how to go on, and re-indexes that embed only what changed."""

import io
import sys
from functools import partial

import pytest

from schema_search.cli import main
from schema_search.core.embedders import BATCH
from schema_search.core.store import CHECKPOINT_FILE, CURRENT, LOCK_FILE
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..core.test_resume import RecordingEmbedder

FILES, SECTIONS = 45, 8  # one passage per section: 360 passages, a few model batches


def write_docs(folder, edited=()):
    folder.mkdir(exist_ok=True)
    for f in range(FILES):
        sections = "\n\n".join(
            f"## Section {s} of file {f}\n\nThe {s}th point of note {f} is about widget {f * 10 + s}"
            f"{' (revised)' if f in edited else ''}."
            for s in range(SECTIONS)
        )
        (folder / f"note-{f:02d}.md").write_text(f"# Note {f}\n\n{sections}\n")
    return folder


@pytest.fixture
def fake(monkeypatch):
    """The embedder every Workspace gets; a test swaps ``fake.model`` for a fresh one per run."""

    class Current:
        model = RecordingEmbedder()

    monkeypatch.setattr(Workspace, "embedder", lambda self: Current.model)
    return Current


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_reindex_after_editing_two_files_embeds_only_their_passages(tmp_path, fake):
    workspace = Workspace(Settings(home=tmp_path / "home"))
    docs = write_docs(tmp_path / "docs")
    workspace.corpora.index(docs, corpus="docs")
    assert len(fake.model.items_encoded()) == FILES * SECTIONS
    fake.model = RecordingEmbedder()
    write_docs(docs, edited={3, 17})
    workspace.corpora.index(docs, corpus="docs")
    encoded = fake.model.items_encoded()
    assert len(encoded) == 2 * SECTIONS and all("(revised)" in text for text in encoded)
    dense = workspace.corpora.store.current("docs").manifest()["dense"]
    assert (dense["encoded"], dense["reused"], dense["resumed"]) == (2 * SECTIONS, (FILES - 2) * SECTIONS, 0)


def test_the_estimate_is_printed_once_to_a_log(tmp_path, fake, capsys):
    docs = write_docs(tmp_path / "docs")
    assert main(["docs", "index", str(docs), "--corpus", "docs", "--home", str(tmp_path / "home")]) == 0
    estimates = [line for line in capsys.readouterr().err.splitlines() if line.startswith("embedding ")]
    assert len(estimates) == 1, estimates
    assert estimates[0].startswith(f"embedding {FILES * SECTIONS} of {FILES * SECTIONS} chunks: about ")


def test_the_estimate_is_printed_once_above_the_bar_on_a_terminal(tmp_path, fake, monkeypatch):
    docs = write_docs(tmp_path / "docs")
    home = str(tmp_path / "home")
    assert main(["docs", "index", str(docs), "--corpus", "docs", "--home", home]) == 0
    fake.model = RecordingEmbedder()
    write_docs(docs, edited=set(range(40)))  # more than a batch + ESTIMATE_AFTER passages to embed
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["docs", "index", str(docs), "--corpus", "docs", "--home", home]) == 0
    said = terminal.getvalue()
    assert said.count("embedding 320 of 360 chunks (40 reused): about ") == 1, said
    assert "chunk/s]" in said  # the bar drew too


def test_ctrl_c_keeps_what_was_embedded_says_so_and_the_same_command_resumes(tmp_path, fake, capsys):
    docs = write_docs(tmp_path / "docs")
    argv = ["docs", "index", str(docs), "--corpus", "docs", "--home", str(tmp_path / "home")]
    first = fake.model = RecordingEmbedder(stop_after=2)
    assert main(argv) == 130
    err = capsys.readouterr().err
    total = FILES * SECTIONS
    assert err.strip().splitlines()[-1] == (
        f"interrupted: {2 * BATCH} of {total} chunks embedded and kept; run the same command to resume"
    )
    folder = tmp_path / "home" / "corpora" / "docs"
    assert {p.name for p in folder.iterdir()} == {LOCK_FILE, CHECKPOINT_FILE}  # no half-built generation
    second = fake.model = RecordingEmbedder()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"resuming: {2 * BATCH} chunks already embedded" in err
    encoded = first.items_encoded() + second.items_encoded()
    assert len(encoded) == len(set(encoded)) == total
    assert {p.name for p in folder.iterdir()} == {CURRENT, LOCK_FILE, (folder / CURRENT).read_text().strip()}


def test_a_plain_ctrl_c_says_it_stopped(tmp_path, monkeypatch, capsys):
    def stop(args, settings):
        raise KeyboardInterrupt

    monkeypatch.setattr("schema_search.cli.tables._index", stop)  # Ctrl-C anywhere but an embedding
    assert main(["index", "x.sql", "--catalog", "x", "--home", str(tmp_path)]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_describe_prints_progress_lines_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    from schema_search.cli import describe, output

    ticks = iter([0.0, 0.0, 11.0, 12.0, 15.0])
    monkeypatch.setattr(describe, "progress_lines", partial(output.progress_lines, clock=lambda: next(ticks)))
    tick = describe._progress(3)
    for _ in range(3):
        tick()
    assert capsys.readouterr().err.splitlines() == [
        "describing: 2/3 tables (67%), 11 s, about 6 s left",
        "describing: 3 tables in 15 s (0.2 per s)",
    ]
