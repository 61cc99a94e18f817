"""`unsupported_numbers`: a number an answer states must be in one of its passages."""

from __future__ import annotations

from ai_llm.internal_rag_agent.grounding import numbers_in, unsupported_numbers


def test_numbers_are_read_as_written_without_citations_or_list_numbering() -> None:
    assert numbers_in("1. Claims within 14 days [2], up to 1,200 dollars [1, 3].\n2. Then 2.5 %") == {"14", "1200", "2.5"}
    assert numbers_in("전원은 ２４시간 유지된다") == {"24"}  # full-width digits count


def test_a_number_from_elsewhere_is_reported_and_a_grounded_one_is_not() -> None:
    passages = ["Expense claims must be filed within 14 days after the trip ends.", "Hotels up to 150 dollars."]
    assert unsupported_numbers("File within 14 days [1]; hotels up to 150 dollars [2].", passages) == []
    assert unsupported_numbers("File within 30 days [1], hotels 150 dollars.", passages) == ["30"]
    assert unsupported_numbers("No number at all.", []) == []
    assert unsupported_numbers("Up to 1200 dollars", ["a limit of 1,200 dollars"]) == []


def test_a_number_inside_a_longer_one_is_not_grounded_by_it() -> None:
    assert unsupported_numbers("It takes 20 seconds.", ["It takes 200 seconds."]) == ["20"]
