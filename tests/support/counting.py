"""Offline embeddings that count what they embed (tests that nothing is embedded twice)."""

from __future__ import annotations

from langchain_tepa import HashingEmbeddings

__all__ = ["CountingEmbeddings"]


class CountingEmbeddings(HashingEmbeddings):
    """``HashingEmbeddings`` that count the document texts and the queries they embed."""

    def __init__(self) -> None:
        super().__init__()
        self.documents = 0
        self.queries = 0

    @property
    def texts(self) -> int:
        """Documents and queries together."""
        return self.documents + self.queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return super().embed_query(text)
