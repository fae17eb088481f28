"""The benchmarks are scripts run on demand (see README.md here), never collected by pytest."""

collect_ignore_glob = ["*.py"]
