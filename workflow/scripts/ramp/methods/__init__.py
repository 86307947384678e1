"""Repair methods: RAMP and the baselines, each a module of batch steps."""
