"""Built-in subgraph backends: ``default`` (by op names) and ``fuse`` (elementwise fusion)."""
