"""The study's languages: one record each, the facts other modules list checked against it."""

from __future__ import annotations

import pytest

from ramp import languages
from ramp.execution import dialects
from ramp.execution.runtime import RUNTIMES
from ramp.hub import layout
from ramp.languages import (
    CPP,
    LANGUAGES,
    PYTHON,
    RUBY,
    STUDY_LANGUAGES,
    language,
    language_of,
    language_of_file,
)
from ramp.llm.answer_end import RULES
from ramp.llm.base import ChatMessage, SamplingParams
from ramp.llm.fake import FakeLLM
from ramp.tasks import Problem


def test_every_dialect_the_executor_knows_belongs_to_one_language():
    assert set(CPP.langs) == set(dialects.CPP_STANDARDS)
    for lang in dialects.known_langs():
        assert language_of(lang).key in RUNTIMES
    assert language_of("GNU C++") is CPP and language_of("Ruby") is RUBY


def test_each_language_has_a_runtime_a_stop_rule_and_fetchable_study_languages():
    for lang in LANGUAGES.values():
        assert lang.key in RUNTIMES and lang.stop_rule in RULES and lang.fence in lang.tags
    assert set(STUDY_LANGUAGES) == set(layout.LANGUAGES)


def test_unknown_names_are_errors_that_list_the_known_ones():
    with pytest.raises(ValueError, match="known are ruby, cpp, python"):
        language("java")
    with pytest.raises(ValueError, match=r"unknown lang 'Java 8'.*GNU C\+\+11"):
        language_of("Java 8")


def test_a_problem_s_language_follows_its_lang():
    problem = Problem("t", "p", "d", "i", "o", "", (), 1.0, 256, (), None, "int main() {}",
                      lang="MS C++ 2017")
    assert problem.language is languages.CPP
    assert Problem("t", "p", "d", "i", "o", "", (), 1.0, 256, (), None, "puts 1").language is RUBY


def test_one_call_takes_each_prompt_s_own_parameters_in_order():
    llm = FakeLLM(respond=lambda prompt: prompt[0].content.upper())
    ruby, cpp = SamplingParams(stop_when="program:ruby"), SamplingParams(stop_when="program:cpp")
    prompts = [(ChatMessage("user", x),) for x in "abc"]
    answers = llm.complete(prompts, [ruby, cpp, ruby])
    assert [a.text for a in answers] == ["A", "B", "C"]
    assert llm.batches == 1 and [p for _, p in llm.seen] == [ruby, cpp, ruby]
    with pytest.raises(ValueError, match="3 prompts but 2"):
        llm.complete(prompts, [ruby, cpp])


def test_the_study_s_language_is_data_language_ruby_by_default():
    from ramp import study_config

    assert study_config.language({}) is RUBY
    assert study_config.language({"data": {"language": "cpp"}}) is CPP
    assert study_config.language({"data": {"language": "cpp", "fetch": {"language": "cpp"}}}) \
        is CPP
    with pytest.raises(ValueError, match=r"fetch\.language is 'ruby' but data\.language is 'cpp'"):
        study_config.language({"data": {"language": "cpp", "fetch": {"language": "ruby"}}})
    with pytest.raises(ValueError, match="'python' is not one of ruby, cpp"):
        study_config.language({"data": {"language": "python"}})


def test_ruby_s_tables_stay_where_they_were_another_language_s_go_apart():
    from ramp import study_config

    assert study_config.data_root({}) == "results"
    assert study_config.data_root({"data": {"language": "cpp"}}, "logs") == "logs/cpp"


def test_a_model_stage_refuses_tasks_of_another_language():
    from ramp import study_config

    study_config.check_language({"data": {"language": "cpp"}}, ["GNU C++11", "MS C++"])
    with pytest.raises(ValueError, match=r"language is Ruby .* include GNU C\+\+17"):
        study_config.check_language({}, ["Ruby", "GNU C++17"])


def test_a_program_file_s_language_follows_its_name_unless_lang_says():
    assert language_of_file("a.cpp") is CPP and language_of_file("dir/B.RB") is RUBY
    assert language_of_file("x.cc", keys=list(LANGUAGES)) is CPP
    assert language_of_file("x.py", keys=list(LANGUAGES)) is PYTHON
    assert language_of_file("x.rb", "cpp") is CPP and language_of_file("x", "ruby") is RUBY


def test_a_name_it_cannot_tell_is_one_line_naming_the_choices():
    with pytest.raises(ValueError) as e:
        language_of_file("a.py")  # Python is no study language
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("a.py: cannot tell the program's language")
    assert ".rb ruby" in str(e.value) and ".cpp .cc .cxx .c++ cpp" in str(e.value)
    assert "--lang (ruby, cpp)" in str(e.value)
    with pytest.raises(ValueError, match="--lang java: not one of ruby, cpp, python"):
        language_of_file("a.java", "java", keys=list(LANGUAGES))


def test_help_texts_name_the_languages():
    assert languages.names(["ruby"]) == "Ruby"
    assert languages.names(["ruby", "cpp", "python"]) == "Ruby, C++ or Python"
