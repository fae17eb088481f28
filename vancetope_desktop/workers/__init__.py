"""The processes the desktop app starts beside itself (the indexing process), each a thin adapter over the
services, like the CLI and the agent tools. The UI names them by importing them (``module.__name__``), so
the import linter sees that dependency; ``pyproject.toml`` keeps this package under the UI and the CLI and
free of Qt."""
