"""Unit tests run without network: sockets are disabled except unix sockets and loopback."""

from __future__ import annotations

import pytest
from pytest_socket import socket_allow_hosts


@pytest.fixture(autouse=True)
def _no_network() -> None:
    # as tests/unit_tests/conftest.py: guard connect() only, loopback allowed
    socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)
