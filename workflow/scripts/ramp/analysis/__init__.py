"""Scoring and analysis over the run tables: hidden validation, pass@k, oracle, transitions.

Every function here takes and returns DataFrames (or plain values); only
:func:`ramp.analysis.hidden.validate_attempts` and :func:`ramp.analysis.oracle.run_oracle` run
programs, through the executor seam. The figures read what these modules write.
"""
