"""Logging: structlog over the standard library, JSON lines by default, never raw content.

Every record, ours or a library's, passes :func:`refuse_raw_content` before it is rendered:

- a field whose key names raw content (``text``, ``body``, ``value``, ``payload`` ... see
  :data:`RAW_CONTENT_KEYS`) is replaced by ``"[refused]"``, whatever it holds;
- every other string (the event name, reasons, exception text and tracebacks included) is run
  through the engine's pattern detectors for values that identify a person or open an account
  (emails, SSNs, cards, IBANs, phone numbers, passports, licences, secrets); what they find is
  replaced by its label, e.g. ``[EMAIL_ADDRESS]``. IP addresses, ZIP codes and dates are left
  alone: broker and upstream addresses, ports and timestamps are what operators need.

Numbers are not scanned: offsets, partitions, sizes and counts are logged as numbers. Both kinds
of intervention are counted in ``scrubber_log_redactions_total{reason}``.

Library records (aiokafka, aiosmtpd, asyncio) keep only their message template unless the logger
is in :data:`TRUSTED_LOGGERS`: their arguments may hold what a client sent (aiosmtpd logs the
SMTP command lines, addresses included). Python warnings are captured as records as well.

Library records are also rate-limited (:class:`LibraryRate`): a client library that loses its
server logs the same error many times a second (aiokafka: about 60 while a broker is down), which
would drown every other line. Past a few records of one kind in a window the rest are counted in
``scrubber_log_records_suppressed_total{logger}`` and the next record written says how many were
left out (``suppressed``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict, WrappedLogger

from scrubber.engine import Scrubber
from scrubber.observability import LOG_REDACTIONS, LOG_SUPPRESSED

RAW_CONTENT_KEYS = frozenset(
    {
        "text",
        "body",
        "value",
        "values",
        "raw",
        "payload",
        "content",
        "message_text",
        "message",
        "data",
        "subject",
        "headers",
        "envelope",
        "mail_from",
        "rcpt_tos",
        "recipients",
        "sender",
        "record",
        "record_key",
    }
)
REFUSED = "[refused]"
# Scanned for PII-looking values; IP_ADDRESS, ZIP_CODE and DATE_OF_BIRTH deliberately are not.
LOG_ENTITIES = frozenset(
    {
        "CREDIT_CARD",
        "BANK_ACCOUNT",
        "IBAN",
        "SECRET",
        "US_SSN",
        "PASSPORT",
        "DRIVER_LICENSE",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
    }
)
# Keys the pipeline itself adds; their values are never content.
_OWN_KEYS = frozenset({"timestamp", "level", "logger", "worker", "pid", "exc_info"})
TRUSTED_LOGGERS = ("scrubber", "aiokafka", "py.warnings")
MAX_FIELD_CHARS = 16384
_LIBRARY_LEVELS = {"mail.log": logging.WARNING, "aiokafka": logging.WARNING, "asyncio": logging.WARNING}
# Records of one kind (logger, level, message template) written per window; the rest are counted.
LIBRARY_BURST = 5
LIBRARY_WINDOW = 10.0  # seconds
_MAX_KINDS = 1024  # kinds remembered at once (a library that formats its own messages makes many)


@cache
def _scanner() -> Scrubber:
    """The engine, restricted to pattern rules for :data:`LOG_ENTITIES`, built on first use."""
    from scrubber import rulefile
    from scrubber.detectors.cues import load_cues
    from scrubber.detectors.patterns import PatternDetector
    from scrubber.detectors.vendors import load_pattern_rules
    from scrubber.dial import MAX_LEVEL, Policy

    root = rulefile.grammar_dir()
    # Vendor tokens too: a key in a log line is as much a secret as one in a message.
    rules = load_pattern_rules(root, load_cues(root / "cues.yaml"))
    wanted = [r for r in rules if r.entity in LOG_ENTITIES]
    return Scrubber(Policy(level=MAX_LEVEL), detectors=[PatternDetector(wanted, timeout=0.05)])


def redact_string(value: str) -> str:
    """``value`` with PII-looking spans replaced by labels; ``[refused]`` if it cannot be scanned."""
    text, reason = _scan(value)
    if reason is not None:
        LOG_REDACTIONS.labels(reason).inc()
    return text


@lru_cache(maxsize=512)
def _scan(value: str) -> tuple[str, str | None]:
    # Event names and reasons repeat; the cache keeps them from being scanned every time.
    if len(value) > MAX_FIELD_CHARS:
        value = value[:MAX_FIELD_CHARS] + "...[truncated]"
    try:
        result = _scanner().scrub(value)
    except Exception:
        # Fail closed: a value we could not check is not written.
        return REFUSED, "unscannable"
    return result.text, ("pii_value" if result.findings else None)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return redact_string(value)
    if isinstance(value, Mapping):
        return {k: _clean_field(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact_string(str(value))


def _clean_field(key: str, value: Any) -> Any:
    if key.lower() in RAW_CONTENT_KEYS:
        LOG_REDACTIONS.labels("raw_key").inc()
        return REFUSED
    return _clean(value)


def refuse_raw_content(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Refuse raw-content keys and redact PII-looking values (see the module docstring)."""
    for key, value in list(event_dict.items()):
        if key in _OWN_KEYS or key.startswith("_"):
            continue
        event_dict[key] = _clean_field(key, value)
    return event_dict


def library_template(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """For library records, keep the message template; format the arguments only if trusted."""
    args = event_dict.pop("positional_args", ())
    record = event_dict.get("_record")
    name = record.name if record is not None else ""
    if args and name.startswith(TRUSTED_LOGGERS):
        with contextlib.suppress(TypeError, ValueError):
            event_dict["event"] = str(event_dict["event"]) % args
    return event_dict


class LibraryRate(logging.Filter):
    """Lets at most ``burst`` library records of one kind through per ``window`` seconds.

    The rest are dropped and counted (``scrubber_log_records_suppressed_total{logger}``); the
    first record of that kind written afterwards carries ``suppressed``: how many were left out.
    """

    def __init__(
        self,
        burst: int = LIBRARY_BURST,
        window: float = LIBRARY_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self.clock = clock
        # kind -> [window start, records written in it, records left out since the last written]
        self.kinds: dict[tuple[str, int, str], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        kind = (record.name, record.levelno, str(record.msg))
        seen = self.kinds.get(kind)
        if seen is None:
            if len(self.kinds) >= _MAX_KINDS:
                self._forget(now)
            seen = self.kinds[kind] = [now, 0, 0]
        elif now - seen[0] >= self.window:
            seen[0], seen[1] = now, 0
        if seen[1] >= self.burst:
            seen[2] += 1
            LOG_SUPPRESSED.labels(record.name).inc()
            return False
        seen[1] += 1
        if seen[2]:
            record.suppressed = int(seen[2])
            seen[2] = 0
        return True

    def _forget(self, now: float) -> None:
        """Drop the kinds whose window is over and that owe no count of left-out records."""
        for kind, (start, _, left_out) in list(self.kinds.items()):
            if now - start >= self.window and not left_out:
                del self.kinds[kind]
        if len(self.kinds) >= _MAX_KINDS:
            self.kinds.clear()


class _NamedWriter(structlog.WriteLogger):
    """A structlog writer that knows the logger name it was asked for (``add_logger_name`` reads it)."""

    def __init__(self, file: TextIO, name: str) -> None:
        super().__init__(file)
        self.name = name


def configure(fmt: str = "auto", level: str = "info", stream: TextIO | None = None) -> None:
    """Send structlog and standard-library logging to ``stream`` (stderr) as JSON or console lines.

    ``fmt`` is ``json``, ``console`` or ``auto`` (console when ``stream`` is a terminal). Our own
    events go straight through structlog (the standard library's record machinery costs several
    times more per event); library records go through a logging handler; both end in the same
    :func:`refuse_raw_content` and renderer.
    """
    stream = stream or sys.stderr
    console = fmt == "console" or (fmt == "auto" and stream.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(colors=False)
        if console
        else structlog.processors.JSONRenderer(sort_keys=False, default=str)
    )
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    tail: list[structlog.typing.Processor] = [
        structlog.processors.format_exc_info,
        refuse_raw_content,
        renderer,
    ]
    numeric = logging.getLevelName(level.upper())
    structlog.configure(
        processors=[*shared, *tail],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=lambda name="scrubber", *_: _NamedWriter(stream, str(name)),
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, library_template, structlog.stdlib.ExtraAdder(["suppressed"])],
        use_get_message=False,
        pass_foreign_args=True,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail],
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(LibraryRate())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    # Python warnings become records too, so that every line on stderr is one of ours.
    logging.captureWarnings(True)
    root.setLevel(numeric)
    for name, floor in _LIBRARY_LEVELS.items():
        logging.getLogger(name).setLevel(max(floor, numeric))


def get_logger(name: str = "scrubber") -> Any:
    """A structlog logger; pass fields as keywords, never message content."""
    return structlog.get_logger(name)
