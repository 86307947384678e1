"""The xCodeEval program-repair data, fetched from the Hugging Face hub and built into task files.

``layout`` says where the hub keeps what and what a task file looks like, ``source`` reads the
hub's files (downloaded and cached, or from a local clone), ``build`` joins and selects the rows
(pure), ``check`` compares a built file with the one the study was measured on, and ``fetch``
does the whole job for the workflow's data rule and ``ramp data fetch``.
"""
