"""Backends; each module imports its heavy library at import time, so import them lazily."""
