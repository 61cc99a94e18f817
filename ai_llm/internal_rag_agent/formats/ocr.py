"""Text from scans: images (PNG, JPEG, TIFF pages) and PDFs without a text layer, through Tesseract.

Debian's `tesseract-ocr` with the Korean and English data (`tesseract-ocr-kor`, installed by `make run`/`make
test`) reads each page (`pytesseract`); scanned PDF pages are rendered by PDFium (`pypdfium2`) at `OCR_DPI`.
A PDF with a text layer never comes here. Each page reports progress as it is read; at most `MAX_OCR_PAGES`
pages are read per document (the rest is left out and the document says so).
"""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Callable, Iterator
from typing import Any

from ai_llm.internal_rag_agent.formats.structure import DocumentError

log = logging.getLogger(__name__)

OCR_DPI = 200
MAX_OCR_PAGES = 300
#: Tesseract's page segmentation: one column of text of varying sizes (mode 4). Automatic layout (mode 3)
#: scattered the lines of a sparse Korean page into fragments; a page of documents is one column.
TESSERACT_CONFIG = "--psm 4"
PageProgress = Callable[[int, int], None]


@functools.cache
def ocr_languages() -> str:
    """`kor+eng` when Tesseract has both (it reads a page in either); `OcrUnavailable` without Tesseract."""
    import pytesseract

    try:
        installed = set(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractNotFoundError, OSError) as exc:
        raise DocumentError("text recognition (OCR) is not installed on this server (Tesseract); `make run` "
                            "installs it.", "ocr_unavailable") from exc
    wanted = [lang for lang in ("kor", "eng") if lang in installed]
    if "kor" not in installed:
        log.warning("Tesseract has no Korean data (tesseract-ocr-kor): Korean scans will not be read")
    return "+".join(wanted) or "eng"


def read_page(image: Any) -> str:
    """The text Tesseract reads on one page image."""
    import pytesseract

    languages = ocr_languages()
    gray = image.convert("L")
    try:
        return str(pytesseract.image_to_string(gray, lang=languages, config=TESSERACT_CONFIG))
    except pytesseract.TesseractError as exc:
        raise DocumentError(f"text recognition failed on a page ({exc.message}).", "corrupt") from exc


def _read_all(images: Iterator[Any], total: int, progress: PageProgress | None) -> tuple[list[str], int]:
    pages: list[str] = []
    for number, image in enumerate(images, start=1):
        if number > MAX_OCR_PAGES:
            break
        pages.append(read_page(image))
        if progress is not None:
            progress(number, min(total, MAX_OCR_PAGES))
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
