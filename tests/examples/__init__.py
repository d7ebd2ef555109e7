"""Each example in examples/ run at its CI size (--small)."""
