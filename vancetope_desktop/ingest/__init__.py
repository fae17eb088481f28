"""Turning files and text into titled, tagged, chunked text: one extractor per format."""
