"""Unit tests run without network: sockets are disabled except unix sockets and loopback."""

from __future__ import annotations

import pytest
from pytest_socket import disable_socket, socket_allow_hosts


@pytest.fixture(autouse=True)
def _no_network() -> None:
    disable_socket(allow_unix_socket=True)
    socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)
