"""The PySide6 face of the services: main window, item models, widgets and background workers."""
