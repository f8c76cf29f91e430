"""How much a channel tells about one question beyond what the other channels already say. Pure.

Coverage scaling weighs a channel by how many items it has text for. That is right
for a channel of sparse comments, and wrong for generated descriptions: a small
model describes *every* table, so coverage gives its field full weight, yet most of
what it writes is a paraphrase of the names ("This table contains information about
singers") plus words that fit any table. For most questions such a field matches the
same words the names and comments do, only in a noisier order, and RRF then counts
that order as a second opinion.

A channel's novelty for a question is the IDF mass of the question terms that it
matches and no other channel does, as a share of what the question could carry
(each term at the rarest IDF). A description that says what nothing else says
(``meteorological`` for a table ``wx_obs``) scores high for the question that uses
that word and lends its ranking weight there; for every other question it scores
zero and stays out of the fusion.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def idf(document_frequency: int, documents: int) -> float:
    """BM25's inverse document frequency, as tantivy (and Lucene) compute it.

    >>> round(idf(1, 100), 3)  # a rare word
    4.21
    >>> round(idf(90, 100), 3)  # nearly everywhere
    0.11
    """
    return math.log(1 + (documents - document_frequency + 0.5) / (document_frequency + 0.5))


def novelty(frequencies: Mapping[str, Sequence[int]], channel: str, documents: int) -> float:
    """Share of the question's possible IDF mass that only ``channel`` matches.

    Args:
        frequencies: channel -> document frequency of each question term, in the
            same term order for every channel.
        channel: the channel to judge.
        documents: items in the collection.

    >>> freqs = {"names": [3, 0, 0], "descriptions": [40, 2, 0]}
    >>> round(novelty(freqs, "descriptions", 100), 3)  # only the second term is new: 3.70 / (3 x 4.21)
    0.293
    >>> novelty({"names": [3], "descriptions": [5]}, "descriptions", 100)
    0.0
    """
    own = frequencies.get(channel, ())
    if not own or documents <= 0:
        return 0.0
    others = [f for name, f in frequencies.items() if name != channel]
    new = sum(idf(df, documents) for i, df in enumerate(own) if df > 0 and all(other[i] == 0 for other in others))
    return new / (len(own) * idf(1, documents))
