"""RAMP+'s and the breadth method's selection as pure functions: grouping, scores, the gate,
ties, closeness, stop rules."""

from __future__ import annotations

from ramp.methods.selection import Entry, canonical_output, edit_size, program_key, select

BUGGY = "n = gets.to_i\nputs n * 3\n"


def entry(id, code="puts 1", *, gated=True, outputs=("1",), agreed=1, large=(), edit=1):
    return Entry(id, code, edit, gated, tuple(outputs), agreed, tuple(large))


def test_canonical_output_compares_as_the_judge_accepts():
    assert canonical_output("1.50\n  YES \r\n") == canonical_output("1.5 yes")
    assert canonical_output("1 2\n3") == "1 2 3"
    assert canonical_output("10") != canonical_output("1")
    assert canonical_output("Yes") == "yes" and canonical_output("Alice") == "Alice"
    assert canonical_output("1e999999999999999999999") != ""  # no overflow error


def test_edit_size_counts_changed_lines_only():
    assert edit_size(BUGGY, BUGGY) == 0
    assert edit_size(BUGGY, "n = gets.to_i\n\nputs n * 2   \n") == 1  # blank and trailing space
    assert edit_size(BUGGY, "n = gets.to_i\nputs n * 2\nputs 0\n") == 2
    assert edit_size(BUGGY, "puts gets.to_i * 2\n") == 2  # two lines replaced by one


def test_program_key_ignores_blank_lines_and_line_ends():
    assert program_key("a\n\nb  \r\n") == program_key("a\nb")
    assert program_key("a\nb") != program_key("a\nc")


def test_candidates_with_the_same_outputs_form_one_group_of_distinct_programs():
    sel = select([entry("1.0", "puts 2", outputs=("4", "10")),
                  entry("1.1", "puts 3", outputs=("5", "10")),
                  entry("1.2", "puts 2  \n\n", outputs=("4", "10")),  # the same program again
                  entry("1.3", "p 2", outputs=("4", "10"))], evidence=2)
    best = sel.best
    assert [m.id for m in best.members] == ["1.0", "1.2", "1.3"]
    assert best.votes == 2  # "puts 2" twice counts once
    assert len(sel.groups) == 2


def test_score_counts_votes_and_agreement_and_large_failures():
    sel = select([entry("a", "x", outputs=("4",), agreed=1),
                  entry("b", "y", outputs=("4",), agreed=1),
                  entry("c", "z", outputs=("5",), agreed=0, large=("ok", "TIME_LIMIT_EXCEEDED"))],
                 evidence=1)
    assert [g.score for g in sel.groups] == [3, 0]  # 1 + 2 votes; 0 + 1 vote - 1 large failure
    without_votes = select([entry("a", "x", outputs=("4",), agreed=0),
                            entry("b", "y", outputs=("4",), agreed=0),
                            entry("c", "z", outputs=("5",), agreed=1)],
                           evidence=1, use_votes=False)
    assert without_votes.best.representative.id == "c"  # expected outputs alone decide


def test_a_gated_out_group_never_ranks_above_a_gated_one():
    sel = select([entry("wrong1", "a", gated=False, outputs=("11",), agreed=3),
                  entry("wrong2", "b", gated=False, outputs=("11",), agreed=3),
                  entry("right", "c", gated=True, outputs=("10",), agreed=0)], evidence=3)
    assert sel.best.representative.id == "right"
    assert sel.runner_up is None  # the gated-out group does not compete
    assert not sel.close


def test_ties_go_to_the_smallest_edit_then_the_earlier_candidate():
    sel = select([entry("big", "a", outputs=("1",), edit=5),
                  entry("small", "b", outputs=("2",), edit=1),
                  entry("small_late", "c", outputs=("3",), edit=1)], evidence=1)
    assert [g.representative.id for g in sel.groups] == ["small", "small_late", "big"]
    group = select([entry("big", "a", edit=4), entry("small", "b", edit=2)], evidence=1).best
    assert group.representative.id == "small"


def test_close_groups_and_the_confident_stop_rule():
    two_agree = [entry("a", "x", outputs=("4", "10")), entry("b", "y", outputs=("4", "10"))]
    sel = select(two_agree, evidence=2)
    assert sel.confident(2) and not sel.confident(3)
    rival = entry("c", "z", outputs=("4", "11"), agreed=2)  # 2 + 1 against 1 + 2: close
    sel = select([*two_agree, rival], evidence=2)
    assert sel.close and not sel.confident(2)
    lone = select([entry("a", "x")], evidence=1)
    assert lone.passes_every_check() and not lone.confident(2)
    disagrees = select([entry("a", "x", agreed=0), entry("b", "y", agreed=0)], evidence=3)
    assert not disagrees.confident(2)  # agreeing with fewer than half the expected outputs
    gated_out = select([entry("a", "x", gated=False), entry("b", "y", gated=False)], evidence=1)
    assert not gated_out.confident(2) and not gated_out.passes_every_check()
    assert not select([], evidence=0).confident(1)
    assert not select(two_agree, evidence=0).confident(2)  # no generated input to agree on


def test_the_stop_rule_of_ramp_needs_every_check():
    sel = select([entry("a", "x", agreed=2, outputs=("1", "2"))], evidence=3)
    assert not sel.passes_every_check()
    sel = select([entry("a", "x", agreed=1, large=("MEMORY_LIMIT_EXCEEDED",))], evidence=1)
    assert not sel.passes_every_check()


def test_summary_names_members_and_scores():
    sel = select([entry("1.0", "x", edit=2), entry("1.1", "y", edit=1)], evidence=1)
    assert sel.summary() == [{"members": ["1.1", "1.0"], "votes": 2, "agreed": 1,
                              "large_failures": 0, "gated": True, "score": 3, "edit": 1}]


def test_a_judged_output_outranks_votes_where_agreement_ranks_first():
    many = [entry("1.0", "puts 11", outputs=("11",), agreed=0),
            entry("1.1", "p 11", outputs=("11",), agreed=0),
            entry("1.2", "print 11", outputs=("11",), agreed=0)]
    right = entry("1.3", "puts 10", outputs=("10",), agreed=1, edit=5)
    by_score = select([*many, right], evidence=1)  # 3 votes against 1 vote + 1 agreed
    assert by_score.best.representative.id == "1.0" and by_score.close  # 3 against 2
    judged = select([*many, right], evidence=1, agreement_first=True)
    assert judged.best.representative.id == "1.3" and not judged.close
    assert not judged.settled(2) and judged.best.votes == 1  # one program: not settled


def test_the_settled_stop_rule_needs_votes_and_no_close_rival():
    two = [entry("1.0", "puts 2", agreed=0), entry("1.1", "p 2", agreed=0)]
    assert select(two, evidence=0).settled(2)
    assert not select(two, evidence=0).settled(3)
    rival = entry("1.2", "puts 3", outputs=("3",), agreed=0)
    assert select([*two, rival], evidence=0).close  # 2 votes against 1
    assert not select([*two, rival], evidence=0).settled(2)
    gated_out = entry("1.3", "puts 4", outputs=("4",), agreed=0, gated=False)
    assert select([*two, gated_out], evidence=0).settled(2)  # a gated-out group competes not
