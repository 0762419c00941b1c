"""What several test packages share: example paths and stores, servers they start, generators."""
