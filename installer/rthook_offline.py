"""PyInstaller runtime hook of both bundle programs: no network, whatever the user's environment says.

Runs before the entry script. The same variables ``index/models.force_offline`` and ``ingest/mupdf.py`` set
before they load Hugging Face code or ONNX Runtime; set here once for the whole process and every worker it
starts, so no path that forgets them can reach the network from the bundle.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
