"""Where xCodeEval keeps the repair data on the hub, and the task files we build from it.

The hub's ``apr`` rows name their problem by ``src_uid`` only: the statement is a line of
``problem_descriptions.jsonl`` and the hidden tests an entry of ``unittest_db.json``, both at the
repository's root (xCodeEval's own documentation). A task file holds them joined, one row per
buggy program, in the fields and the byte layout of the files the study was measured on.
"""

from __future__ import annotations

from dataclasses import dataclass

REPO_ID = "NTU-NLP-sg/xCodeEval"
REPO_URL = f"https://huggingface.co/datasets/{REPO_ID}"
LICENCE = "CC BY-NC 4.0"
PROBLEMS_FILE = "problem_descriptions.jsonl"
TESTS_FILE = "unittest_db.json"


def split_file(split: str, hub_file: str) -> str:
    """The path in the repository of one language's rows of one ``apr`` split."""
    return f"apr/{split}/{hub_file}"


#: Statement fields of a problem (``problem_descriptions.jsonl``), each a task file's
#: ``prob_desc_<name>``; the samples are JSON lists there and JSON text in a task file.
STATEMENT_FIELDS = (
    "description",
    "input_spec",
    "output_spec",
    "notes",
    "time_limit",
    "memory_limit",
    "input_from",
    "output_to",
)
SAMPLE_FIELDS = ("sample_inputs", "sample_outputs")

#: A task file's row, in the order of the measured Ruby file.
TASK_FIELDS = (
    "delete_cnt",
    "fix_code_uid",
    "difficulty",
    "replace_cnt",
    "fix_ops_cnt",
    "prob_desc_output_spec",
    "apr_id",
    "bug_source_code",
    "prob_desc_input_spec",
    "src_uid",
    "bug_code_uid",
    "equal_cnt",
    "prob_desc_time_limit",
    "similarity_score",
    "bug_exec_outcome",
    "lang_cluster",
    "potential_dominant_fix_op",
    "prob_desc_sample_inputs",
    "prob_desc_input_from",
    "prob_desc_description",
    "lang",
    "fix_exec_outcome",
    "insert_cnt",
    "fix_source_code",
    "prob_desc_notes",
    "file_name",
    "tags",
    "prob_desc_output_to",
    "prob_desc_created_at",
    "prob_desc_memory_limit",
    "prob_desc_sample_outputs",
    "hidden_unit_tests",
)

#: Fields of the program's own row, copied as they are; the validation split has no reference
#: fixes, so the ``fix_*`` fields are empty text when the hub leaves them out.
ROW_FIELDS = (
    "apr_id",
    "bug_code_uid",
    "src_uid",
    "lang",
    "lang_cluster",
    "bug_source_code",
    "bug_exec_outcome",
    "difficulty",
    "tags",
    "similarity_score",
    "equal_cnt",
    "replace_cnt",
    "delete_cnt",
    "insert_cnt",
    "fix_ops_cnt",
    "potential_dominant_fix_op",
)
EMPTY_WHEN_ABSENT = ("fix_source_code", "fix_code_uid", "fix_exec_outcome")


@dataclass(frozen=True)
class TaskFileFormat:
    """How a task file's rows are written: one JSON object a line, in this key order."""

    #: key order of every row
    fields: tuple[str, ...]
    #: escape non-ASCII characters (``\\u2009``) instead of writing them as UTF-8
    ensure_ascii: bool
    #: the JSON type of ``difficulty`` (the Ruby file has 1600.0, the C++ file 1600)
    difficulty: type


@dataclass(frozen=True)
class Language:
    """One study language: which hub rows it takes and how its task file is written."""

    #: the name in the config (``data.fetch.language``)
    name: str
    #: the file of ``apr/<split>/`` that holds its rows
    hub_file: str
    #: the rows' ``lang_cluster`` (every dialect of the language)
    lang_cluster: str
    #: keep only the problems this other language's rows have (C++ studies Ruby's problems)
    problems_of: str | None
    format: TaskFileFormat
    #: the file of ``data/manifests/`` describing the task file the study was measured on
    manifest: str


LANGUAGES: dict[str, Language] = {
    lang.name: lang
    for lang in (
        Language(
            name="ruby",
            hub_file="Ruby.jsonl",
            lang_cluster="Ruby",
            problems_of=None,
            format=TaskFileFormat(TASK_FIELDS, ensure_ascii=True, difficulty=float),
            manifest="xcodeeval-apr-ruby.json",
        ),
        Language(
            name="cpp",
            hub_file="C++.jsonl",
            lang_cluster="C++",
            problems_of="ruby",
            format=TaskFileFormat(tuple(sorted(TASK_FIELDS)), ensure_ascii=False, difficulty=int),
            manifest="xcodeeval-apr-cpp.json",
        ),
    )
}


def language(name: str) -> Language:
    """The language called ``name``; an unknown name lists the known ones."""
    try:
        return LANGUAGES[name]
    except KeyError:
        raise KeyError(f"unknown language {name!r}; known: {', '.join(LANGUAGES)}") from None
