"""The benchmarks in benchmarks/ at a tiny size: their JSON names every peer configuration."""
