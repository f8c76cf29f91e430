"""Build the sample SQLite shop database from sample_schemas/shop.sql and shop_data.sql.

    python scripts/make_sample_db.py [PATH]     # default: sample_schemas/shop.db

The database is built in a temporary file next to PATH and moved over it in one step,
so running it again replaces the file whole, and a reader never sees half of one.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_schemas"
SCRIPTS = (SAMPLES / "shop.sql", SAMPLES / "shop_data.sql")


def make_sample_db(path: Path = SAMPLES / "shop.db") -> Path:
    """Write the sample shop database to ``path`` (replacing it) and return the path."""
    path = Path(path).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        connection = sqlite3.connect(scratch)
        try:
            connection.executescript("\n".join(script.read_text(encoding="utf-8") for script in SCRIPTS))
            problems = connection.execute("PRAGMA foreign_key_check").fetchall()
            if problems:  # the data file and the schema disagree: fail here, not in a test much later
                raise SystemExit(f"shop_data.sql breaks foreign keys of shop.sql: {problems[:5]}")
            connection.commit()
        finally:
            connection.close()
        os.chmod(scratch, 0o644)  # mkstemp makes it private; a sample database is for anyone to read
        os.replace(scratch, path)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return path


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = make_sample_db(Path(argv[0]) if argv else SAMPLES / "shop.db")
    print(f"wrote {path} (sqlite:///{path})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
