"""``python -m vancetope_desktop`` starts the desktop app (the CLI is ``vancetope``)."""

from .app import main

if __name__ == "__main__":
    main()
