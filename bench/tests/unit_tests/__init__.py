"""Unit tests of the benchmarks (no network but loopback)."""
