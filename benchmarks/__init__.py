"""Benchmark suite: ``python -m benchmarks`` (see README, "Performance")."""
