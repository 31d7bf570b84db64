"""Test support code shared by the unit, integration and benchmark tests.

``tests.support.fake_openai`` is a scripted OpenAI-compatible HTTP server on 127.0.0.1;
``tests.support.fixtures`` holds the pytest fixtures that start and stop it.
"""
