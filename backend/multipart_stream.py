"""Read one file field out of a `multipart/form-data` request body as a stream of chunks.

The upload is relayed to the file-management agent while it arrives, so the backend never holds the whole
file (neither in memory nor on disk); the size limit is counted on the file's bytes as they pass.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header


class UploadError(ValueError):
    """The request body is not a usable multipart upload (the message says why)."""


class UploadTooLarge(UploadError):
    """The file is larger than the configured limit."""


class UploadIncomplete(UploadError):
    """The body ended before the file part did (client went away or the body is truncated)."""


@dataclass
class FilePart:
    filename: str
    content_type: str


def multipart_boundary(content_type: str | None) -> bytes:
    """The boundary of a `multipart/form-data` Content-Type header, or UploadError."""
    if not content_type:
        raise UploadError("expected a multipart/form-data body with a `file` field")
    mime, options = parse_options_header(content_type)
    if mime != b"multipart/form-data" or not options.get(b"boundary"):
        raise UploadError("expected a multipart/form-data body with a `file` field")
    return options[b"boundary"]


FIELD_BYTES = 1024


class MultipartFileStream:
    """Streams the bytes of the multipart field `field` (which must carry a filename).

    Args:
        body: the raw request body chunks.
        boundary: the multipart boundary.
        limit: largest allowed file size in bytes (UploadTooLarge beyond it).
        field: the form field holding the file.
    """

    def __init__(self, body: AsyncIterator[bytes], boundary: bytes, limit: int, field: str = "file") -> None:
        self._body = body
        self._limit = limit
        self._field = field
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._headers: dict[bytes, bytes] = {}
        self._in_target = False
        self._target: FilePart | None = None
        self._target_done = False
        self._pending: list[bytes] = []
        self._body_done = False
        self.size = 0
        #: Small text fields sent before the file (e.g. `visibility`), at most `FIELD_BYTES` each.
        self.fields: dict[str, str] = {}
        self._field_name: str | None = None
        self._field_value = bytearray()
        self._parser = MultipartParser(boundary, {
            "on_part_begin": self._part_begin,
            "on_header_field": lambda d, s, e: self._header_name.extend(d[s:e]),
            "on_header_value": lambda d, s, e: self._header_value.extend(d[s:e]),
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
        })

    # --- parser callbacks ----------------------------------------------------------------
    def _part_begin(self) -> None:
        self._headers = {}

    def _header_end(self) -> None:
        self._headers[bytes(self._header_name).lower()] = bytes(self._header_value)
        self._header_name.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        disposition, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if disposition == b"form-data" and name == self._field and self._target is None and filename is not None:
            content_type = self._headers.get(b"content-type", b"application/octet-stream").decode("latin-1")
            self._target = FilePart(filename.decode("utf-8", "replace"), content_type or "application/octet-stream")
            self._in_target = True
        elif disposition == b"form-data" and filename is None and self._target is None and name:
            self._field_name = name
            self._field_value.clear()

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_target:
            self._pending.append(bytes(data[start:end]))
        elif self._field_name is not None and len(self._field_value) < FIELD_BYTES:
            self._field_value.extend(data[start:end][:FIELD_BYTES - len(self._field_value)])

    def _part_end(self) -> None:
        if self._in_target:
            self._in_target = False
            self._target_done = True
        elif self._field_name is not None:
            self.fields[self._field_name] = self._field_value.decode("utf-8", "replace")
            self._field_name = None

    # --- reading -------------------------------------------------------------------------
    async def _feed(self) -> None:
        try:
            chunk = await self._body.__anext__()
        except StopAsyncIteration:
            self._body_done = True
            return
        try:
            self._parser.write(chunk)
        except MultipartParseError as exc:
            raise UploadError(f"malformed multipart body: {exc}") from exc

    async def open(self) -> FilePart:
        """Read up to the file field's headers; returns its filename and content type."""
        while self._target is None:
            if self._body_done:
                raise UploadError(f"the multipart body has no `{self._field}` file field")
            self._pending.clear()  # bytes of other fields are not kept
            await self._feed()
        return self._target

    async def chunks(self) -> AsyncIterator[bytes]:
        """The file's bytes as they arrive; UploadTooLarge as soon as the limit is passed."""
        while True:
            pending, self._pending = self._pending, []
            for piece in pending:
                self.size += len(piece)
                if self.size > self._limit:
                    raise UploadTooLarge(f"the file is larger than the {self._limit} byte limit")
                yield piece
            if self._target_done:
                return
            if self._body_done:
                raise UploadIncomplete("the upload ended before the file was complete")
            await self._feed()
