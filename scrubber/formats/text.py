"""Plain text: the whole payload, strict UTF-8, is one unit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scrubber.formats import FormatError


@dataclass(frozen=True, slots=True)
class TextDocument:
    text: str

    @property
    def texts(self) -> Sequence[str]:
        return (self.text,)

    @property
    def contexts(self) -> Sequence[str]:
        return ("",)

    def render(self, scrubbed: Sequence[str]) -> bytes:
        (text,) = scrubbed
        return text.encode("utf-8")


class TextFormat:
    """UTF-8 text. Undecodable bytes are an error, never guessed at: a wrong guess could hide PII."""

    name = "text"

    def parse(self, payload: bytes) -> TextDocument:
        try:
            return TextDocument(payload.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise FormatError("invalid_utf8", f"byte {exc.start}") from None
