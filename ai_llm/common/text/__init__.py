"""Language-aware text helpers shared by retrieval, the offline engine and the search gateway.

Korean is written without reliable spaces after PDF extraction, so every tokenizer here emits
character bigrams for Hangul runs in addition to whole words; English is lower-cased words minus
stop words. The same tokens serve BM25, Postgres full-text search and sentence scoring.

Every stop-word and neutral-word list of the project is a data file in `data/`, read by `word_list`; the
morphological analysis (Kiwi, Snowball stems, the Korean–English tables) is `analysis`.
"""

from __future__ import annotations

import re
import unicodedata
from importlib import resources

_HANGUL = re.compile(r"[\uac00-\ud7a3]+")
#: One Hangul syllable (가–힣): `HANGUL_SYLLABLE.search(text)` says the text has Korean in it.
HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
_WORD = re.compile(r"[0-9a-z][0-9a-z.\-_/]*[0-9a-z]|[0-9a-z]|[\uac00-\ud7a3]+", re.IGNORECASE)


def word_list(name: str) -> frozenset[str]:
    """The words of `data/<name>.txt` in this package: whitespace-separated, `#` starts a comment line.

    Every stop-word and neutral-word list of the project is such a file, so each list has one source.
    """
    text = resources.files(__name__).joinpath("data", f"{name}.txt").read_text(encoding="utf-8")
    return frozenset(word for line in text.splitlines() if not line.lstrip().startswith("#") for word in line.split())


#: English stop words (`data/stopwords_en.txt`): dropped by `tokenize`, `content_words` and `analysis`.
ENGLISH_STOPWORDS = word_list("stopwords_en")
#: Korean stop words (`data/stopwords_ko.txt`): whole words `content_words` drops.
KOREAN_STOPWORDS = word_list("stopwords_ko")
#: Words of a request that say what to do with the answer, not what it is about (never salient in a question;
#: `data/query_stopwords_en.txt`).
QUERY_STOPWORDS = word_list("query_stopwords_en")
#: Korean morphemes of the same kind (`data/query_stopwords_ko.txt`).
KOREAN_QUERY_STOPWORDS = word_list("query_stopwords_ko")
#: Words that name no topic in a report's title: the stop words, the query stop words and
#: `data/title_stopwords_en.txt`.
TITLE_STOPWORDS = ENGLISH_STOPWORDS | QUERY_STOPWORDS | word_list("title_stopwords_en")
#: English words without request content for the semantic cache's same-request check (`data/neutral_en.txt`;
#: the file says why this is not the stop-word list).
NEUTRAL_ENGLISH = word_list("neutral_en")
#: Korean morphemes ("form/class", class N, V or M) without request content for the same check
#: (`data/neutral_ko.txt`).
NEUTRAL_KOREAN = word_list("neutral_ko")

#: Korean particles and endings stripped from the end of a word to get its stem.
KOREAN_PARTICLES = sorted(
    """은 는 이 가 을 를 의 에 에서 에게 께 으로 로 와 과 도 만 까지 부터 보다 처럼 이나 나 이랑 랑 하고
    에는 에서는 으로는 로는 이란 란 이며 며 요 이요 입니까 인가요 인가 는지 은지 인지 할까요 해줘 해 주세요
    알려줘 알려주세요 뭐야 뭐예요 무엇인가요 무엇 어떻게 돼 되나요 있나요 있어 찾아줘""".split(),
    key=len, reverse=True,
)


def normalize(text: str) -> str:
    """NFKC, collapse whitespace, strip."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def strip_korean_particle(word: str) -> str:
    """Remove one trailing particle/ending from a Hangul word, keeping at least one syllable."""
    for particle in KOREAN_PARTICLES:
        if word.endswith(particle) and len(word) > len(particle):
            return word[: -len(particle)]
    return word


def hangul_bigrams(run: str) -> list[str]:
    """Character bigrams of a Hangul run (a single syllable is its own token)."""
    if len(run) < 2:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def content_words(text: str) -> list[str]:
    """Key words of a query: English words minus stop words, Korean words minus particles/stop words."""
    out: list[str] = []
    for raw in _WORD.findall(normalize(text).lower()):
        if _HANGUL.fullmatch(raw):
            stem = strip_korean_particle(raw)
            if stem and stem not in KOREAN_STOPWORDS:
                out.append(stem)
        elif raw not in ENGLISH_STOPWORDS:
            out.append(raw)
    return out


def tokenize(text: str) -> list[str]:
    """Index/query tokens: English words (stop words removed) and Hangul bigrams."""
    tokens: list[str] = []
    for raw in _WORD.findall(normalize(text).lower()):
        if _HANGUL.fullmatch(raw):
            tokens.extend(hangul_bigrams(raw))
        elif raw not in ENGLISH_STOPWORDS:
            tokens.append(raw)
    return tokens


#: Plural-looking words that are not plurals of another word.
_NOT_PLURAL = frozenset("news goods arms glasses means species series physics economics politics mathematics "
                        "athletics savings this its is was has does us bus gas plus yes less".split())


def singular(word: str) -> str:
    """Light English plural folding: companies→company, taxes→tax, prices→price; news, bus, analysis stay.

    The English stemmer of this package for text that must keep its derivations apart: the semantic cache's
    same-request check treats "parking" / "park" and "interesting" / "interested" as different requests, which
    Snowball (`analysis.stem`, the stemmer of indexing and search) merges.
    """
    if len(word) < 4 or word in _NOT_PLURAL or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return word[:-1]


def is_korean(text: str, min_share: float = 0.2) -> bool:
    """True when Hangul makes up at least `min_share` of the letters."""
    hangul = sum(len(m) for m in _HANGUL.findall(text))
    letters = sum(1 for ch in text if ch.isalpha())
    return letters > 0 and hangul / letters >= min_share


#: Words that end with a period without ending a sentence (lower-case, without the period).
_ABBREVIATIONS = frozenset(
    """e.g i.e etc et al fig figs no nos vs cf approx dr mr mrs ms st vol pp p sec ch eq eqs ref refs u.s inc
    ltd co jr sr dept min max resp incl viz ca est""".split())
_SENTENCE_END = re.compile(r"""([.!?。]["'”’)\]]*)\s+(?=["'“‘(\[]?[A-Z0-9\uac00-\ud7a3])""")
#: A paragraph's opening list marker ("1.", "10.", "1의2.", "가.", "a.", "iv."): the item goes on after it.
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,3}(?:의\d{1,2})?|[가-하]|[a-zA-Z]|[ivxIVX]{1,4})[.)]$")
_KOREAN_END = re.compile(r"(?<=[다요음함됨임])\.\s*(?=\S)")
#: "다." opening a piece is the third item's marker ("가.", "나.", "다."), not a sentence ending in 다.
_KOREAN_MARKER = re.compile(r"^다\.\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of a text: every line is a paragraph (or a list item), split at sentence ends.

    English ends are `.`, `!`, `?` before a capital, digit or Hangul, except after an abbreviation
    (`e.g.`, `et al.`, `Fig.`), an initial (`J. Smith`), a list item's marker (`1.`, `1의2.`, `가.`), inside a
    number or between the parts of a dotted date (`2010. 11. 15.`); Korean ends are `다.`, `요.`, `음.`, `함.`,
    `됨.`, `임.` and the same punctuation.
    """
    out: list[str] = []
    for paragraph in text.split("\n"):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        start = 0
        pieces: list[str] = []
        for match in _SENTENCE_END.finditer(paragraph):
            before = paragraph[start:match.start(1)].rsplit(None, 1)
            word = before[-1].lower().rstrip(".") if before else ""
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
            if _LIST_MARKER.match(paragraph[start:match.end(1)]):
                continue  # "1. 제1항에 따른 …", "가. 법의 적용 …": the marker belongs to its item
            if word.isdigit() and paragraph[match.end():match.end() + 1].isdigit():
                continue  # a dotted date, "2010. 11. 15."
            pieces.append(paragraph[start:match.end(1)])
            start = match.end()
        pieces.append(paragraph[start:])
        for piece in pieces:
            # Korean text often has no space after a sentence-final `다.` (PDF extraction drops it).
            piece = piece.strip()
            marker = _KOREAN_MARKER.match(piece)
            head, piece = (piece[:marker.end()], piece[marker.end():]) if marker else ("", piece)
            parts = _KOREAN_END.split(piece)
            parts[0] = head + parts[0]
            out.extend(part.strip() + ("." if i < len(parts) - 1 else "")
                       for i, part in enumerate(parts) if part.strip())
    return out
