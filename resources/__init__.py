"""The app's run-time files, installed as the package ``vancetope_desktop.assets``.

See ``vancetope_desktop/resources.py``: the one module that reads them.
"""
