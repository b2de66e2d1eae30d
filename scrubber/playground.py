"""The playground: paste text, move the dial, see what would be masked. Off unless enabled.

The admin server routes ``GET /playground`` to :func:`page` and ``POST /playground/api/scrub`` to
:func:`handle`. Text sent here is scrubbed in memory and answered; it is never logged or stored.
"""

from __future__ import annotations

import importlib.resources
import json
import secrets
from functools import lru_cache
from typing import Any

from scrubber.dial import DEFAULT_LEVEL, ENTITY_LEVELS, MAX_LEVEL, OperatorSpec, Policy
from scrubber.engine import Scrubber, ScrubError

MAX_CHARS = 100_000
PLAYGROUND_OPERATORS = ("label", "mask", "hash", "remove")
# The hash operator needs a key; the playground uses one of its own, made at start, so that
# pseudonyms shown here never match the service's real ones.
_KEY = secrets.token_bytes(32)


class PlaygroundError(ValueError):
    """A request the playground cannot answer; the message is safe to show."""


def page() -> bytes:
    return importlib.resources.files("scrubber").joinpath("static", "playground.html").read_bytes()


@lru_cache(maxsize=32)
def _scrubber(level: int, operator: str) -> Scrubber:
    return Scrubber(Policy(level=level, default_operator=OperatorSpec(operator), hmac_key=_KEY))


def handle(body: bytes) -> dict[str, Any]:
    """Answer one scrub request: ``{"text", "level", "operator"}`` -> findings and scrubbed text."""
    try:
        req = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise PlaygroundError("request body is not JSON") from None
    if not isinstance(req, dict):
        raise PlaygroundError("request must be a JSON object")
    text = req.get("text", "")
    level = req.get("level", DEFAULT_LEVEL)
    operator = req.get("operator", "label")
    if not isinstance(text, str):
        raise PlaygroundError('"text" must be a string')
    if len(text) > MAX_CHARS:
        raise PlaygroundError(f"text is longer than {MAX_CHARS} characters")
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= MAX_LEVEL:
        raise PlaygroundError(f'"level" must be an integer 0..{MAX_LEVEL}')
    if operator not in PLAYGROUND_OPERATORS:
        raise PlaygroundError(f'"operator" must be one of {", ".join(PLAYGROUND_OPERATORS)}')
    try:
        result = _scrubber(level, operator).scrub(text)
    except ScrubError as exc:
        raise PlaygroundError(f"cannot scrub this text ({exc.reason})") from None
    shown = result.findings or result.observed
    return {
        "level": level,
        "operator": operator,
        "masked_entities": [e for e, lv in ENTITY_LEVELS.items() if 0 < lv <= level],
        "levels": dict(ENTITY_LEVELS),
        "text": result.text,
        "observe_only": level == 0,
        "findings": [f.as_dict() for f in shown],
    }
