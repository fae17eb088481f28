"""The domain: documents, scopes and visibility, tags, errors and settings. No Qt, no I/O."""
