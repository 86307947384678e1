"""The LLM agents: each builds its prompt from a template and parses its answer (no I/O)."""
