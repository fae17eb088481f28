"""The ``vancetope`` command: a thin typer adapter over the services."""
