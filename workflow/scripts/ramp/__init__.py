"""RAMP: multi-agent automated program repair for Ruby, as a reproducible study."""

__version__ = "0.1.0"
