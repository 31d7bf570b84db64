"""Vectors in page metadata decode to exactly the bytes stored, by either base64 decoder."""

from __future__ import annotations

import base64
import binascii
import struct

import numpy as np
import pytest

from langchain_tepa.storage.chroma import codec


def _a2b(text: str) -> bytes | str:
    """What ``binascii.a2b_base64`` (the decoder before the fast path) makes of ``text``."""
    try:
        return binascii.a2b_base64(text)
    except (ValueError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _decoded(text: str) -> bytes | str:
    try:
        return codec._b64decode(text)
    except (ValueError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"


def test_stored_vectors_decode_to_the_float32_bits_written() -> None:
    rng = np.random.default_rng(3)
    special = struct.unpack(
        "<8f",
        struct.pack(
            "<8I",
            0x7FC00001,
            0xFFC12345,
            0x7F800000,
            0xFF800000,
            0x80000000,
            0x00000001,
            0x807FFFFF,
            0x3F800000,
        ),
    )  # NaN payloads, inf, -0, subnormals
    vectors = [
        list(special),
        *(
            rng.normal(size=n) * 10.0 ** rng.integers(-38, 38)
            for n in (1, 2, 3, 383, 384, 385, 1536)
        ),
    ]
    for vec in vectors:
        text = codec.encode_vector(vec)
        want = np.asarray(vec, dtype="<f4").tobytes()
        assert codec._b64decode(text) == binascii.a2b_base64(text) == want
        got = codec._vector_array(text)
        assert got.dtype == np.dtype("<f4") and got.tobytes() == want
        assert not got.flags.writeable
    assert codec.decode_vector(codec.encode_vector([0.5, -2.0])) == [0.5, -2.0]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "QQ",  # missing padding
        "QQ=",
        "QQ==",
        "QR==",  # non-zero trailing bits
        "QUJ=",
        "QUJD====",  # extra padding
        "QUJD=QUJD",  # data after padding
        " QUJD",
        "QU\nJD",  # characters outside the alphabet are skipped by a2b_base64
        "QUJD\n",
        "QU-_",  # the URL-safe alphabet
        "QUJDé",  # not ASCII
        "Q",
        "=",
        "====",
        base64.b64encode(bytes(range(256))).decode("ascii"),
    ],
)
def test_any_text_decodes_or_fails_as_a2b_base64_does(text: str) -> None:
    assert _decoded(text) == _a2b(text)


def test_a_value_that_is_not_text_fails_as_before() -> None:
    assert _decoded(5) == _a2b(5)  # type: ignore[arg-type]
