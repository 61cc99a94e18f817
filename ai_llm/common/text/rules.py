"""Text rules that need no model: key-word rewrites, rule-based query variants, extractive sentence ranking.

The offline mode uses them in place of a language model, and any code may call them directly (report
condensing ranks sentences this way whatever the model). They are deterministic and quote only the text they
are given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ai_llm.common.text import (
    content_words,
    is_korean,
    normalize,
    singular,
    split_sentences,
    strip_korean_particle,
    tokenize,
)

_QUESTION_TAIL = re.compile(r"(은|는|이|가)?\s*(무엇인가요|뭐야|뭐예요|무엇입니까|어떻게 되나요|알려줘|알려주세요)\??$")


def rewrite_query(question: str) -> str:
    """Key-noun form of a question: particles, question endings and stop words removed."""
    words = content_words(_QUESTION_TAIL.sub("", normalize(question)))
    return " ".join(words) if words else normalize(question)


def query_variants(question: str, n: int = 3) -> list[str]:
    """Rule-based variants of a question for multi-query retrieval (never the same as the rewrite).

    Variants: (1) the original wording, (2) the key words without Korean particles or English
    plurals, (3) the most distinctive words only (longest / containing digits or capitals).
    """
    text = normalize(question)
    rewrite = rewrite_query(text)
    words = rewrite.split()
    stems = [strip_korean_particle(w) if is_korean(w) else singular(w) for w in words]
    distinctive = sorted(words, key=lambda w: (any(c.isdigit() for c in w), len(w)), reverse=True)
    candidates = [text, " ".join(stems), " ".join(distinctive[: max(2, len(distinctive) // 2)]),
                  " ".join(reversed(words))]
    out: list[str] = []
    for candidate in candidates:
        candidate = candidate.strip()
        if candidate and candidate != rewrite and candidate not in out:
            out.append(candidate)
        if len(out) == n:
            break
    while len(out) < n:
        out.append(text if text not in out else f"{rewrite} {len(out)}".strip())
    return out


def rank_sentences(question: str, passages: Sequence[str]) -> list[tuple[float, str]]:
    """Sentences of `passages` scored by token overlap with the question (best first)."""
    q_tokens = set(tokenize(question))
    if not q_tokens:
        return []
    scored: list[tuple[float, str]] = []
    seen: set[str] = set()
    for passage in passages:
        for sentence in split_sentences(passage):
            clean = sentence.strip()
            if len(clean) < 8 or clean in seen:
                continue
            seen.add(clean)
            s_tokens = set(tokenize(clean))
            if not s_tokens:
                continue
            overlap = len(q_tokens & s_tokens)
            if overlap:
                # Favour coverage of the question, lightly penalise very long sentences.
                scored.append((overlap / len(q_tokens) - min(len(clean), 600) / 6000, clean))
    scored.sort(key=lambda item: item[0], reverse=True)
    return scored


def extract_answer(question: str, passages: Sequence[str], max_sentences: int = 3) -> str:
    """Quote the sentences that best answer the question; empty string when none overlaps."""
    ranked = rank_sentences(question, passages)
    return " ".join(sentence for _, sentence in ranked[:max_sentences])
