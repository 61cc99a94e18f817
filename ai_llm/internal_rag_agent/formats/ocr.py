"""Text from scans: images (PNG, JPEG, TIFF pages) and PDFs without a text layer, through Tesseract.

Debian's `tesseract` with the Korean and English data (`tesseract-ocr-kor`, installed by `make run`/`make
test`) reads each page through its command line (an image on stdin, text on stdout); scanned PDF pages are
rendered by PDFium (`pypdfium2`) at `OCR_DPI`. A page that reads as Korean text is read a second time with
the Korean model alone (`KOREAN_PAGE_SHARE`), and a Korean statute's misread paragraph numbers are restored
(`restore_paragraph_numbers`). A PDF with a text layer never comes here. Each Tesseract runs
one thread (`OMP_THREAD_LIMIT=1`: its OpenMP threads made a page 4x slower on two cores) and pages are read
side by side, one per core, reporting progress in page order. At most `MAX_OCR_PAGES` pages are read per
document (the rest is left out and the document says so).
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import shutil
import subprocess
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ai_llm.internal_rag_agent.formats.structure import DocumentError

log = logging.getLogger(__name__)

OCR_DPI = 200
MAX_OCR_PAGES = 300
PAGE_TIMEOUT_S = 120
#: Tesseract's page segmentation: one column of text of varying sizes (mode 4). Automatic layout (mode 3)
#: scattered the lines of a sparse Korean page into fragments; a page of documents is one column.
PAGE_SEGMENTATION = "4"
PageProgress = Callable[[int, int], None]
_ENV = {**os.environ, "OMP_THREAD_LIMIT": "1"}


CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
#: An article's head, "제7조(휴가의 신청)", and what follows it on the line.
_ARTICLE_HEAD = re.compile(r"^(제\s*\d+\s*조(?:\s*의\s*\d+)?\s*\([^()]{1,40}\))\s*")
_SUPPLEMENT = re.compile(r"^부\s*칙$")
#: What Tesseract's Korean model makes of a circled paragraph number (it has no ① in its character set):
#: "@", "©", "(0", "(3)", "00", "O", "(2/" — before a space and the paragraph's first word, or before a
#: "(시행일)" title.
_MISREAD_MARK = re.compile(r"^(?:\(?[0-9@©®OoQ]{1,2}[)/]?|\(@\)?)(?:\s+(?=[\uac00-\ud7a3「“\"(])|(?=\([\uac00-\ud7a3]))")
_PARAGRAPH_END = re.compile(r"(다|함|음|임)\.?$|\.$")


def restore_paragraph_numbers(page: str) -> str:
    """A Korean statute page's paragraph numbers (①②③) as printed, where Tesseract misread them.

    A statute numbers an article's paragraphs ①, ②, … in order (and the 부칙's, after it). A line that opens
    with a misread mark (`_MISREAD_MARK`) right after an article's head, or after a line that ends a sentence
    inside an article, is that article's next paragraph; its mark is replaced by the circled number the order
    gives; so is a line that opens with the space a mark read as nothing left. Anything else — a line inside a
    sentence, a list item "1.", a page without articles — is left as read. `page` is Tesseract's text as read
    (before spaces are collapsed).
    """
    if not re.search(r"[\uac00-\ud7a3]", page):
        return page
    out: list[str] = []
    following: int | None = None  # the number of the article's next paragraph, inside an article
    previous = ""
    for line in page.split("\n"):
        text = line.strip()
        head = _ARTICLE_HEAD.match(text)
        if head:
            rest = text[head.end():]
            mark = _MISREAD_MARK.match(rest)
            if mark:
                text, following = f"{head.group(1)} {CIRCLED[0]}{_after(mark, rest)}", 2
            else:
                following = 1 if not rest else None  # a one-paragraph article has no numbers
        elif _SUPPLEMENT.match(text):
            following = 1
        elif following is not None and following <= len(CIRCLED) and (
                _PARAGRAPH_END.search(previous) or _ARTICLE_HEAD.match(previous) or
                _SUPPLEMENT.match(previous)):
            mark = _MISREAD_MARK.match(text)
            if mark:
                text = f"{CIRCLED[following - 1]}{_after(mark, text)}"
                following += 1
            elif line[:1].isspace() and re.match(r"[\uac00-\ud7a3]", text):
                # The mark read as nothing: Tesseract leaves the space that followed it.
                text = f"{CIRCLED[following - 1]} {text}"
                following += 1
            elif text and text[0] in CIRCLED:
                following = CIRCLED.index(text[0]) + 2
        out.append(text)
        if text:
            previous = text
    return "\n".join(out)


def _after(mark: re.Match[str], text: str) -> str:
    """The line after its misread mark, with the space that followed the mark (none before a "(title)")."""
    return (" " if mark.group()[-1:].isspace() else "") + text[mark.end():]


def _tesseract() -> str:
    found = shutil.which("tesseract")
    if found is None:
        raise DocumentError("text recognition (OCR) is not installed on this server (Tesseract); `make run` "
                            "installs it.", "ocr_unavailable")
    return found


@functools.cache
def ocr_languages() -> str:
    """`kor+eng` when Tesseract has both (it reads a page in either); `DocumentError` without Tesseract."""
    try:
        listed = subprocess.run([_tesseract(), "--list-langs"], capture_output=True, text=True, timeout=30,
                                check=False, env=_ENV)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DocumentError("text recognition (OCR) is not available on this server.", "ocr_unavailable") from exc
    installed = {line.strip() for line in listed.stdout.splitlines()[1:]}
    if "kor" not in installed:
        log.warning("Tesseract has no Korean data (tesseract-ocr-kor): Korean scans will not be read")
    return "+".join(lang for lang in ("kor", "eng") if lang in installed) or "eng"


#: Share of a page's letters in Hangul from which it is read again with the Korean model alone: beside the
#: English one, Tesseract reads Korean words as Latin ("원격근무를" → "WALLS"); alone, it reads a Korean page's
#: characters about twice as well (measured on a dev scan: 94 % → 97 %), and an English page badly.
KOREAN_PAGE_SHARE = 0.8
_LETTER = re.compile(r"[A-Za-z\uac00-\ud7a3]")


def read_page(image: Any) -> str:
    """The text Tesseract reads on one page image: with every installed language, then — for a page that is
    Korean text (`KOREAN_PAGE_SHARE`) — with the Korean model alone."""
    buffer = io.BytesIO()
    image.convert("L").save(buffer, "PNG")
    languages = ocr_languages()
    text = _recognise(buffer.getvalue(), languages)
    if "+" in languages and "kor" in languages.split("+"):
        letters = _LETTER.findall(text)
        hangul = sum(1 for c in letters if c >= "\uac00")
        if letters and hangul / len(letters) >= KOREAN_PAGE_SHARE:
            return _recognise(buffer.getvalue(), "kor")
    return text


def _recognise(png: bytes, languages: str) -> str:
    try:
        done = subprocess.run([_tesseract(), "stdin", "stdout", "-l", languages, "--psm", PAGE_SEGMENTATION],
                              input=png, capture_output=True, timeout=PAGE_TIMEOUT_S, check=False, env=_ENV)
    except subprocess.TimeoutExpired as exc:
        raise DocumentError(f"text recognition of a page took over {PAGE_TIMEOUT_S} s and was stopped.",
                            "too_large") from exc
    if done.returncode != 0:
        log.warning("tesseract failed (exit %s): %s", done.returncode, done.stderr[-500:])
        raise DocumentError("text recognition failed on a page (the image could not be read).", "corrupt")
    return done.stdout.decode("utf-8", errors="replace")


def _read_all(images: Iterator[Any], total: int, progress: PageProgress | None) -> tuple[list[str], int]:
    """Every page read, one Tesseract per core, in page order (a few rendered pages in memory at a time)."""
    wanted = min(total, MAX_OCR_PAGES)
    workers = max(1, min(os.cpu_count() or 1, 4))
    pages: list[str] = []
    pending: deque[Future[str]] = deque()

    def collect() -> None:
        pages.append(pending.popleft().result())
        if progress is not None:
            progress(len(pages), wanted)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for number, image in enumerate(images, start=1):
            if number > MAX_OCR_PAGES:
                break
            pending.append(pool.submit(read_page, image))
            if len(pending) >= 2 * workers:
                collect()
        while pending:
            collect()
    return pages, max(total - MAX_OCR_PAGES, 0)


def image_pages(data: bytes, progress: PageProgress | None = None) -> tuple[list[str], int]:
    """(text of each frame, frames left out) of an image file (a TIFF may hold several pages)."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    ocr_languages()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Image.DecompressionBombError as exc:
        raise DocumentError("the image is too large to read (over the decompression-bomb bound).",
                            "too_large") from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise DocumentError(f"the image is damaged and cannot be read ({type(exc).__name__}).", "corrupt") from exc
    frames = getattr(image, "n_frames", 1)
    return _read_all((frame.copy() for frame in ImageSequence.Iterator(image)), frames, progress)


def scanned_pdf_pages(data: bytes, progress: PageProgress | None = None) -> tuple[list[str], int]:
    """(text of each page, pages left out) of a PDF whose pages are images."""
    import pypdfium2 as pdfium

    ocr_languages()
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise DocumentError(f"the PDF cannot be rendered for text recognition ({exc}).", "corrupt") from exc
    try:
        total = len(pdf)

        def render() -> Iterator[Any]:
            for index in range(min(total, MAX_OCR_PAGES)):
                yield pdf[index].render(scale=OCR_DPI / 72).to_pil()

        return _read_all(render(), total, progress)
    finally:
        pdf.close()
