"""Peer baselines for documents, computed without our code: what other tools would return.

* ``peer-bm25-pages``: ``rank_bm25.BM25Okapi`` over whole pages (the raw file text),
  tokenized with the plain ``\\w+`` regex on lower-cased text.
* ``peer-dense-chunks``: all-MiniLM-L6-v2 over LangChain-style fixed chunks of the raw
  file text (1,000 characters, 200 overlap), cosine-ranked, pages in order of their
  best chunk.

Both read the files themselves; only the page URLs come from the corpus, since the
gold answers are URLs. Neither can say "off topic": they always return pages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..peers import tokenize
from .splitter import split_text

# (page URL, the page's raw text)
Page = tuple[str, str]


class PeerBM25Pages:
    def __init__(self, pages: Sequence[Page]) -> None:
        from rank_bm25 import BM25Okapi

        self.urls = [url for url, _ in pages]
        self._bm25 = BM25Okapi([tokenize(text) for _, text in pages])

    def rank(self, question: str, k: int) -> list[str]:
        scores = self._bm25.get_scores(tokenize(question))
        return [self.urls[i] for i in np.argsort(-scores, kind="stable")[:k]]


class PeerDenseChunks:
    """MiniLM over fixed-size chunks; vectors cached on disk by the hash of the chunk texts."""

    def __init__(self, pages: Sequence[Page], model, cache: Path | None = None) -> None:
        self._model = model
        self.urls: list[str] = []
        texts: list[str] = []
        for url, text in pages:
            for chunk in split_text(text):
                self.urls.append(url)
                texts.append(chunk)
        self._vectors = _cached(cache, texts, self._encode)

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)

    def rank(self, question: str, k: int) -> list[str]:
        scores = self._vectors @ self._encode([question])[0]
        pages: list[str] = []
        for i in np.argsort(-scores, kind="stable"):
            if self.urls[i] not in pages:
                pages.append(self.urls[i])
                if len(pages) == k:
                    break
        return pages


def _cached(cache: Path | None, texts: list[str], encode) -> np.ndarray:
    if cache is None:
        return encode(texts)
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:16]
    path = cache / f"peer-dense-{key}.npy"
    if path.exists():
        return np.load(path)
    vectors = encode(texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors
