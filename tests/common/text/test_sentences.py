"""Sentence splitting (`ai_llm.common.text.split_sentences`): where a sentence ends, and where a period does not
end one — so a quoted sentence is the whole sentence a person can find in the document."""

from __future__ import annotations

import pytest

from ai_llm.common.text import split_sentences


@pytest.mark.parametrize(("text", "sentences"), [
    ("Flask is small. It grows with you.", ["Flask is small.", "It grows with you."]),
    ("See Fig. 3 for details, e.g. the table. Then stop.", ["See Fig. 3 for details, e.g. the table.", "Then stop."]),
    ("A. Smith wrote it in 2010. 11 more followed.", ["A. Smith wrote it in 2010. 11 more followed."]),
    ("정책을 예고한다. 다만 긴급한 경우는 제외한다.", ["정책을 예고한다.", "다만 긴급한 경우는 제외한다."]),
    # A list item keeps its marker; a dotted date stays one.
    ("1. 제1항에 따른 입법예고절차를 거치지 아니한 법령안", ["1. 제1항에 따른 입법예고절차를 거치지 아니한 법령안"]),
    ("1의2. 당사자의 신청이 있는 경우", ["1의2. 당사자의 신청이 있는 경우"]),
    ("가. 법의 적용 제외를 정함. 나. 청문을 실시함.", ["가. 법의 적용 제외를 정함.", "나. 청문을 실시함."]),
    # "다." is the third item's marker at an item's start, a sentence end after a word.
    ("다. 연구비카드로 결제한 사람은 7일 이내에 등록하여야 한다.", ["다. 연구비카드로 결제한 사람은 7일 이내에 등록하여야 한다."]),
    ("나. 회의비를 쓴다. 다. 식비를 쓴다.", ["나. 회의비를 쓴다.", "다. 식비를 쓴다."]),
    ("그렇다. 다음 문장이다.", ["그렇다.", "다음 문장이다."]),
    ("10. Next item of the list", ["10. Next item of the list"]),
    ("발의연월일: 2010. 11. 15.", ["발의연월일: 2010. 11. 15."]),
    ("Version 3.0. Released later.", ["Version 3.0.", "Released later."]),
])
def test_sentence_ends(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences
