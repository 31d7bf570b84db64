"""Integration tests of the benchmarks (the scale runs through a Chroma server)."""
