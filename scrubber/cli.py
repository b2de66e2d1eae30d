"""Command line: ``scrubber scan|scrub|run|check-config``."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, TextIO

from scrubber import __version__, kafkatools
from scrubber.config import ConfigError, Settings
from scrubber.dial import DEFAULT_LEVEL, MAX_LEVEL
from scrubber.engine import Scrubber, ScrubError

BATCH = 64


def _seconds(value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError("time budget must be a number of seconds") from None
    if not n >= 0:
        raise argparse.ArgumentTypeError("time budget must be 0 (none) or more seconds")
    return n


def _level(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"level must be a number 0..{MAX_LEVEL}") from None
    if not 0 <= n <= MAX_LEVEL:
        raise argparse.ArgumentTypeError(f"level must be between 0 and {MAX_LEVEL}")
    return n


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scrubber", description="PII-scrubbing proxy for Kafka and SMTP.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    scan = sub.add_parser("scan", help="scrub JSONL records {id, text} from stdin, write findings + text")
    scan.add_argument(
        "--level", type=_level, help=f"privacy dial 0..{MAX_LEVEL} (default: config or {DEFAULT_LEVEL})"
    )
    scan.add_argument("--config", help="YAML config file (policy keys are used)")

    scrub = sub.add_parser("scrub", help="scrub plain text from stdin")
    scrub.add_argument("--level", type=_level)
    scrub.add_argument("--config")
    scrub.add_argument("--lines", action="store_true", help="treat every line as its own message")
    scrub.add_argument("--explain", action="store_true", help="print findings (never values) to stderr")
    scrub.add_argument(
        "--time-budget",
        type=_seconds,
        metavar="SECONDS",
        help="seconds one message may take; past it nothing is written for it "
        "(default: the config's limits.time_budget_ms, 5 s; 0: no limit)",
    )
    scrub.add_argument(
        "--format",
        choices=("text", "eml"),
        default="text",
        help="text (default), or eml: one e-mail message, scrubbed as the SMTP relay would",
    )

    pw = sub.add_parser("smtp-passwd", help="print a users-file line for SMTP AUTH (password: tty or stdin)")
    pw.add_argument("name", help="user name")

    run = sub.add_parser("run", help="run the configured transports (Kafka, SMTP) and the admin endpoint")
    run.add_argument("--config", help="YAML config file (default: $SCRUBBER_CONFIG)")
    run.add_argument("--workers", type=int, help="worker processes (default: config 'workers' or 1)")
    run.add_argument(
        "--embedded",
        action="store_true",
        help="run the embedded default (local broker, relay into a mailbox directory); "
        "also what happens when no config is given",
    )
    run.add_argument(
        "--level", type=_level, help=f"dial level for the embedded default (default {DEFAULT_LEVEL})"
    )
    run.add_argument(
        "--admin-only",
        action="store_true",
        help="serve only the admin endpoint (metrics, probes, playground) when the config has no transport",
    )

    demo = sub.add_parser("demo", help="push a built-in sample through the embedded setup, show before/after")
    demo.add_argument(
        "--level", type=_level, default=DEFAULT_LEVEL, help=f"dial level (default {DEFAULT_LEVEL})"
    )

    check = sub.add_parser("check-config", help="validate a config file and print the effective config")
    check.add_argument("config", nargs="?", help="YAML config file (default: $SCRUBBER_CONFIG)")

    kp = sub.add_parser(
        "kafka-produce",
        help="send records to a topic (arguments, or stdin lines)",
        description="Send records to a topic, to try a running proxy: one per argument, or one per "
        "line of stdin. Example: scrubber kafka-produce chat.raw 'my ssn is 123-45-6789'",
    )
    kafkatools.add_produce_arguments(kp)
    kc = sub.add_parser(
        "kafka-consume",
        help="print the records of a topic",
        description="Print the records of a topic, one value per line, from its beginning (or only new "
        "ones); stop after --count records or --timeout idle seconds. Exit code 1 when none came. "
        "Example: scrubber kafka-consume --headers scrubber.quarantine",
    )
    kafkatools.add_consume_arguments(kc)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(build_parser().parse_args(argv))
    except KeyboardInterrupt:
        # Ctrl-C before a command set up its own handling (e.g. while the rules load): no traceback.
        sys.stderr.write("scrubber: interrupted\n")
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "scan":
        return cmd_scan(args, _lenient_stdin(), sys.stdout, sys.stderr)
    if args.command == "scrub" and args.format == "eml":
        return cmd_scrub_eml(args, sys.stdin.buffer, sys.stdout.buffer, sys.stderr)
    if args.command == "scrub":
        return cmd_scrub(args, _lenient_stdin(), sys.stdout, sys.stderr)
    if args.command == "smtp-passwd":
        return cmd_smtp_passwd(args, sys.stdin, sys.stdout, sys.stderr)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "check-config":
        return cmd_check_config(args, sys.stdout, sys.stderr)
    if args.command == "demo":
        return run_embedded(args.level, demo=True)
    if args.command == "kafka-produce":
        return kafkatools.run_produce(args)
    if args.command == "kafka-consume":
        return kafkatools.run_consume(args)
    return 2


def _config_path(value: str | None) -> str | None:
    return value or os.environ.get("SCRUBBER_CONFIG") or None


def cmd_run(args: argparse.Namespace) -> int:
    from scrubber import config

    path = _config_path(args.config)
    if args.embedded or path is None:
        return run_embedded(args.level if args.level is not None else DEFAULT_LEVEL, demo=False)
    try:
        settings = config.load(path)
    except config.ConfigError as exc:
        sys.stderr.write(f"scrubber run: invalid configuration: {exc}\n")
        return 2
    if settings.kafka is None and settings.smtp is None and not args.admin_only:
        sys.stderr.write(
            f"scrubber run: {path} configures no transport (no kafka: or smtp: section), so nothing "
            "would be scrubbed; add one, or pass --admin-only to serve just the admin endpoint\n"
        )
        return 2
    if args.workers is not None and not 1 <= args.workers <= 64:
        sys.stderr.write("scrubber run: --workers must be between 1 and 64\n")
        return 2
    return run_service(settings, workers=args.workers)


def run_service(settings: Settings, workers: int | None = None) -> int:
    """Serve the configured transports in this process, or under a supervisor with ``workers`` > 1.

    Exit codes: 0 after a clean stop, 2 when the configuration or the rule files cannot be used,
    1 for any other failure (a transport that could not start, a worker that kept exiting).
    """
    from scrubber.logs import configure, get_logger
    from scrubber.rulefile import RuleError
    from scrubber.service import run_loop, serve
    from scrubber.supervisor import Supervisor

    configure(settings.logging.format, settings.logging.level)
    log = get_logger("scrubber.service")
    n = workers or settings.workers
    try:
        if n > 1:
            return run_loop(Supervisor(settings, n).run(), settings.event_loop)
        run_loop(serve(settings), settings.event_loop)
    except (ConfigError, RuleError) as exc:
        log.error("cannot start", error=str(exc))
        return 2
    except Exception as exc:
        log.exception("failed", error=type(exc).__name__)
        return 1
    return 0


def run_embedded(level: int, *, demo: bool) -> int:
    """Start the embedded broker, then the service on it; with ``demo``, push the sample and stop."""
    import asyncio

    from scrubber import embedded, service

    home = embedded.run_dir()
    try:
        broker = embedded.Broker.start(embedded.port_or_free(embedded.BROKER_PORT), home / "broker.log")
    except embedded.EmbeddedError as exc:
        sys.stderr.write(f"scrubber: {exc}\n")
        return 2
    try:
        settings = embedded.settings(
            broker.bootstrap,
            embedded.port_or_free(embedded.SMTP_PORT),
            embedded.port_or_free(embedded.ADMIN_PORT),
            home,
            level=level,
        )

        async def main() -> None:
            stop = asyncio.Event()
            if not demo:
                await service.serve(
                    settings, stop, on_started=lambda: print(embedded.banner(settings, home), flush=True)
                )
                return
            from scrubber import demo as demo_mod

            started = asyncio.Event()
            task = asyncio.create_task(service.serve(settings, stop, on_started=started.set))
            waiter = asyncio.create_task(started.wait())
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiter.cancel()
                await task
                return
            try:
                await demo_mod.run(settings, home / "mailbox")
            finally:
                stop.set()
                await task

        service.run_loop(main(), settings.event_loop)
    except (RuntimeError, OSError) as exc:
        sys.stderr.write(f"scrubber: {exc}\n")
        return 1
    finally:
        # Last: the proxy has drained and committed against a live broker by now.
        broker.stop()
    embedded.remove_run_dir(home)
    return 0


def cmd_check_config(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from scrubber import config

    try:
        settings = config.load(_config_path(args.config))
    except config.ConfigError as exc:
        err.write(f"scrubber check-config: {exc}\n")
        return 2
    out.write(config.dump(settings))
    return 0


def _scrubber(args: argparse.Namespace, *, timed: bool) -> Scrubber:
    """The engine for ``scan`` (untimed: it answers every record whatever it costs) or ``scrub``
    (timed: ``--time-budget``, else the config's budget)."""
    from scrubber.config import load

    settings = load(args.config)
    budget = _budget(args.time_budget, settings.limits.time_budget_ms) if timed else None
    return Scrubber(settings.policy.policy(args.level), time_budget=budget)


def _budget(given: float | None, config_ms: int) -> float | None:
    """Seconds a message may take: ``--time-budget`` (0: no limit), else the config's."""
    if given is None:
        return config_ms / 1000
    return given or None


def _lenient_stdin() -> TextIO:
    """Standard input as UTF-8 where bytes that are not UTF-8 become lone surrogates.

    A bad line is then reported as such (``_invalid_unicode``) instead of ending the run.
    """
    return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")


def _invalid_unicode(text: str) -> bool:
    """Whether ``text`` holds lone surrogates: undecodable input bytes or "\\ud800" escapes."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# A record that cannot be scanned: (line number, id, reason code, message).
_Bad = tuple[int, Any, str, str]


def _records(stream: TextIO) -> Iterator[tuple[int, Any, str] | _Bad]:
    """(line number, id, text) for each non-blank input line, or what is wrong with it."""
    for n, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        if _invalid_unicode(line):
            yield n, _id_of(line), "invalid_utf8", "line is not valid UTF-8"
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            yield n, None, "invalid_json", f"invalid JSON: {exc.msg} at column {exc.colno}"
            continue
        except RecursionError:  # the standard library's parser recurses once per nesting level
            yield n, None, "invalid_json", "invalid JSON: nested too deeply"
            continue
        if not isinstance(rec, dict):
            yield n, None, "not_object", "record is not a JSON object"
            continue
        rid, text = rec.get("id"), rec.get("text")
        if not isinstance(text, str):
            yield n, rid, "no_text", 'record has no string "text"'
        elif _invalid_unicode(text):
            yield n, rid, "invalid_unicode", '"text" holds lone surrogates (not valid Unicode)'
        else:
            yield n, rid, text


def _id_of(line: str) -> Any:
    """The id of a record that cannot be used, if it can still be read."""
    try:
        rec = json.loads(line.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    except (json.JSONDecodeError, UnicodeEncodeError, RecursionError):
        return None
    return rec.get("id") if isinstance(rec, dict) else None


def cmd_scan(args: argparse.Namespace, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """JSONL {id, text} in, {id, findings, text} out; a bad record gets an error object, never a stop."""
    from scrubber.config import ConfigError

    try:
        scrubber = _scrubber(args, timed=False)
    except ConfigError as exc:
        err.write(f"scrubber scan: invalid configuration: {exc}\n")
        return 2
    failures = 0
    batch: list[tuple[int, Any, str]] = []

    def emit(rec: dict[str, Any]) -> None:
        out.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")

    def fail(n: int, rid: Any, reason: str, msg: str) -> None:
        nonlocal failures
        failures += 1
        err.write(f"scrubber scan: line {n}: {msg}\n")
        emit({"id": rid, "line": n, "error": msg, "reason": reason})

    def flush() -> None:
        if not batch:
            return
        try:
            results = scrubber.scrub_many([t for _, _, t in batch])
        except ScrubError:
            results = None
        for i, (n, rid, text) in enumerate(batch):
            try:
                res = results[i] if results is not None else scrubber.scrub(text)
            except ScrubError as exc:
                fail(n, rid, exc.reason, f"cannot scrub: {exc}")
                continue
            emit({"id": rid, "findings": [f.as_dict() for f in res.findings], "text": res.text})
        batch.clear()

    for item in _records(inp):
        if len(item) == 4:
            flush()
            fail(*item)
            continue
        batch.append(item)
        if len(batch) >= BATCH:
            flush()
    flush()
    out.flush()
    return 1 if failures else 0


def cmd_scrub(args: argparse.Namespace, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """Plain text in, scrubbed text out: all of it as one message, or one message per line."""
    from scrubber.config import ConfigError

    try:
        scrubber = _scrubber(args, timed=True)
    except ConfigError as exc:
        err.write(f"scrubber scrub: invalid configuration: {exc}\n")
        return 2
    data = inp.read()
    messages = data.splitlines(keepends=True) if args.lines else [data]
    status = 0
    for i, msg in enumerate(messages, start=1):
        body = msg.rstrip("\r\n") if args.lines else msg
        ending = msg[len(body) :]
        try:
            if _invalid_unicode(body):
                raise ScrubError("invalid_utf8", "not valid UTF-8")
            res = scrubber.scrub(body)
        except ScrubError as exc:
            err.write(f"scrubber scrub: message {i}: cannot scrub ({exc.reason}); nothing written for it\n")
            status = 1
            continue
        out.write(res.text + ending)
        if args.explain:
            for f in res.findings:
                err.write(f"message {i}: {f.entity} {f.detector} {f.start}-{f.end} score={f.score:.2f}\n")
    return status


def cmd_scrub_eml(args: argparse.Namespace, inp: BinaryIO, out: BinaryIO, err: TextIO) -> int:
    """One e-mail message, scrubbed as the SMTP relay would (its level, headers, attachments)."""
    from scrubber import config
    from scrubber.formats import FormatError
    from scrubber.formats.mime import MimeOptions
    from scrubber.smtp.transform import scrub_message

    try:
        settings = config.load(_config_path(args.config))
    except config.ConfigError as exc:
        err.write(f"scrubber scrub: invalid configuration: {exc}\n")
        return 2
    smtp = settings.smtp
    level = args.level
    if level is None:
        level = smtp.level if smtp is not None and smtp.level is not None else settings.policy.level
    options = MimeOptions(smtp.headers, smtp.attachments) if smtp is not None else MimeOptions()
    budget_ms = (
        smtp.time_budget_ms if smtp is not None and smtp.time_budget_ms else settings.limits.time_budget_ms
    )
    budget = _budget(args.time_budget, budget_ms)
    scrubber = Scrubber(settings.policy.policy(level), time_budget=budget)
    data = inp.read()
    deadline = None if budget is None else time.monotonic() + budget
    try:
        result = scrub_message(data, scrubber, options, deadline=deadline)
    except (ScrubError, FormatError) as exc:
        err.write(f"scrubber scrub: cannot scrub this message ({exc.reason}); nothing written\n")
        return 1
    out.write(result.data)
    if args.explain:
        for entity, n in sorted(result.entities().items()):
            err.write(f"{entity}: {n}\n")
    return 0


def cmd_smtp_passwd(args: argparse.Namespace, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """Print ``NAME:scrypt$...`` for the SMTP users file (see scrubber/smtp/auth.py)."""
    import getpass

    from scrubber.smtp.auth import entry

    password = getpass.getpass("password: ") if inp.isatty() else inp.readline().rstrip("\r\n")
    try:
        line = entry(args.name, password)
    except ValueError as exc:
        err.write(f"scrubber smtp-passwd: {exc}\n")
        return 2
    out.write(line + "\n")
    return 0
