"""``scrubber kafka-produce`` / ``kafka-consume``: a small client to try a running proxy.

aiokafka is imported when a command runs, not when the command line is parsed, so that the other
commands do not pay for it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from typing import Any, TextIO

DEFAULT_BOOTSTRAP = "127.0.0.1:9092"


def add_produce_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bootstrap", default=DEFAULT_BOOTSTRAP, help=f"broker address (default {DEFAULT_BOOTSTRAP})"
    )
    p.add_argument("--key", help="the key of every record sent")
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a header on every record sent (repeat for more)",
    )
    p.add_argument("topic", help="topic to send to, e.g. chat.raw")
    p.add_argument("values", nargs="*", help="one record per argument; none: one per line of stdin")


def add_consume_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bootstrap", default=DEFAULT_BOOTSTRAP, help=f"broker address (default {DEFAULT_BOOTSTRAP})"
    )
    p.add_argument("--count", type=int, default=0, help="stop after this many records (0: when idle)")
    p.add_argument(
        "--timeout", type=float, default=20.0, help="stop after this many idle seconds (default 20)"
    )
    p.add_argument(
        "--from-end",
        action="store_true",
        help="only records that arrive from now on (default: from the topic's beginning)",
    )
    p.add_argument(
        "--headers",
        action="store_true",
        help="print each record's partition, offset, key and headers before its value "
        "(a quarantined record's reason is its scrubber-reason header)",
    )
    p.add_argument("topic", help="topic to read, e.g. chat.clean or scrubber.quarantine")


def _header(spec: str) -> tuple[str, bytes]:
    name, sep, value = spec.partition("=")
    if not sep or not name:
        raise ValueError(f"--header {spec!r}: expected NAME=VALUE")
    return name, value.encode()


async def produce(
    bootstrap: str,
    topic: str,
    values: Sequence[str],
    key: str | None = None,
    headers: Sequence[tuple[str, bytes]] = (),
) -> int:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    try:
        await producer.start()
        for v in values:
            await producer.send_and_wait(
                topic, v.encode(), key=key.encode() if key else None, headers=list(headers) or None
            )
    finally:
        await producer.stop()
    return len(values)


async def consume(
    bootstrap: str,
    topic: str,
    count: int,
    timeout: float,
    out: TextIO,
    *,
    from_end: bool = False,
    headers: bool = False,
) -> int:
    """Print up to ``count`` records of ``topic``; stop after ``timeout`` idle seconds."""
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=None,
        auto_offset_reset="latest" if from_end else "earliest",
        enable_auto_commit=False,
    )
    seen = 0
    try:
        await consumer.start()
        while count <= 0 or seen < count:
            batch = await consumer.getmany(timeout_ms=int(timeout * 1000))
            if not batch:
                break
            for records in batch.values():
                for rec in records:
                    if headers:
                        out.write(_describe(rec))
                    value = rec.value.decode("utf-8", "replace") if rec.value is not None else ""
                    out.write(value + "\n")
                    seen += 1
                    if 0 < count <= seen:
                        break
            out.flush()
    finally:
        await consumer.stop()
    return seen


def _describe(rec: Any) -> str:
    """``--- partition P, offset O, key K`` and one ``name: value`` line per header."""
    key = rec.key.decode("utf-8", "replace") if rec.key is not None else None
    lines = [f"--- partition {rec.partition}, offset {rec.offset}, key {key!r}"]
    lines += [f"{name}: {value.decode('utf-8', 'replace')}" for name, value in rec.headers]
    return "\n".join(lines) + "\n"


def _quiet_client_logs() -> None:
    """aiokafka logs each failed connection attempt; these commands report a failure in one line."""
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)


def run_produce(args: argparse.Namespace) -> int:
    _quiet_client_logs()
    try:
        headers = [_header(h) for h in args.header]
    except ValueError as exc:
        sys.stderr.write(f"scrubber kafka-produce: {exc}\n")
        return 2
    values = args.values or [line.rstrip("\n") for line in sys.stdin if line.strip()]
    try:
        n = asyncio.run(produce(args.bootstrap, args.topic, values, args.key, headers))
    except Exception as exc:
        return _failed("kafka-produce", args.bootstrap, exc)
    sys.stderr.write(f"produced {n} record(s) to {args.topic}\n")
    return 0


def run_consume(args: argparse.Namespace) -> int:
    _quiet_client_logs()
    try:
        n = asyncio.run(
            consume(
                args.bootstrap,
                args.topic,
                args.count,
                args.timeout,
                sys.stdout,
                from_end=args.from_end,
                headers=args.headers,
            )
        )
    except Exception as exc:
        return _failed("kafka-consume", args.bootstrap, exc)
    if n == 0:
        sys.stderr.write(f"no records in {args.topic} within {args.timeout:g}s\n")
        return 1
    return 0


def _failed(command: str, bootstrap: str, exc: Exception) -> int:
    """One line that names the broker and what went wrong (aiokafka's errors, OSError), no traceback."""
    from aiokafka.errors import KafkaError

    if not isinstance(exc, KafkaError | OSError):
        raise exc
    sys.stderr.write(f"scrubber {command}: broker {bootstrap}: {type(exc).__name__}: {exc}\n")
    return 1
