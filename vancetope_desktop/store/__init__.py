"""Persistence: SQLModel tables on SQLite, the FTS5 chunk index, the job queue and the file blobs."""
