"""Unit tests run without network: sockets are disabled except unix sockets and loopback."""

from __future__ import annotations

import pytest
from pytest_socket import socket_allow_hosts


@pytest.fixture(autouse=True)
def _no_network() -> None:
    # Guard connect() only (as pytest-socket's own --allow-hosts does): disable_socket() would
    # block creating any TCP socket, loopback included, and its guarded getaddrinfo breaks the
    # resolution of "localhost" here. Servers started by tests listen on 127.0.0.1.
    socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)
