"""Generators (issue 13): text in, summaries, keywords, atom drafts, digest writeups and conversation summaries
(issue 15: ``chat_summary``, the built-in one and the entity guard every answer goes through) out.

``base`` holds the interface every implementation follows and the reply schemas a model is held to;
``fallback`` the rule that a failing model item is answered by the built-in generator; ``builtin`` the
default generator (no model, deterministic, offline); ``model`` the generator over a chat model, whose chat
models are ``local_model`` (a GGUF file run by llama.cpp) and ``endpoint`` (an OpenAI-compatible server; MCP
sampling lives in ``agents.mcp_sampling``); ``choice`` builds the one a library's settings choose. Pure
Python: no Qt, no services, no store.
"""
