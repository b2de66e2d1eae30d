"""The admin HTTP endpoint: ``/metrics``, ``/healthz``, ``/readyz`` (and extra routes, e.g. the playground).

A small HTTP/1.1 server on the service's own event loop: one request per connection, bounded
request size and read time, no request content in logs. Serving from the loop (not a thread)
means ``/healthz`` also proves that the loop still turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus

from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder

from scrubber.config import ListenError
from scrubber.logs import get_logger

MAX_HEAD_BYTES = 16 * 1024
MAX_BODY_BYTES = 1024 * 1024
READ_TIMEOUT = 10.0

log = get_logger("scrubber.admin")


@dataclass(frozen=True)
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes


Handler = Callable[[Request], Awaitable[Response]]


def _text(status: int, text: str) -> Response:
    return Response(status, (text + "\n").encode())


def _json(status: int, data: object) -> Response:
    return Response(status, json.dumps(data).encode() + b"\n", "application/json")


def split_listen(listen: str) -> tuple[str, int]:
    """``"HOST:PORT"`` (``[v6]:PORT`` too) as ``(host, port)``."""
    host, _, port = listen.rpartition(":")
    return host.strip("[]"), int(port)


class AdminServer:
    """Serves metrics from ``registry``; ``live()`` answers ``/healthz``, ``checks()`` ``/readyz``.

    ``checks()`` maps a check name (``rules``, ``kafka``, ``worker-1`` ...) to whether it passes;
    ready means every check passes and there is at least one. ``details()``, if given, adds what
    is worth knowing but is no readiness (``smtp_upstream: unreachable``).
    """

    def __init__(
        self,
        listen: str,
        *,
        live: Callable[[], bool],
        checks: Callable[[], Mapping[str, bool]],
        details: Callable[[], Mapping[str, str]] | None = None,
        registry: CollectorRegistry = REGISTRY,
        routes: Mapping[tuple[str, str], Handler] | None = None,
    ) -> None:
        self.host, self.port = split_listen(listen)
        self.live = live
        self.checks = checks
        self.details = details
        self.registry = registry
        self.routes = dict(routes or {})
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        try:
            self._server = await asyncio.start_server(
                self._connection, self.host, self.port, limit=MAX_HEAD_BYTES
            )
        except OSError as exc:
            raise ListenError("admin.listen", f"{self.host}:{self.port}", exc) from None
        self.port = int(self._server.sockets[0].getsockname()[1])
        log.info("admin endpoint listening", address=f"{self.host}:{self.port}")

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    # ------------------------------------------------------------------ dispatch
    async def respond(self, req: Request) -> Response:
        handler = self.routes.get((req.method, req.path))
        if handler is not None:
            return await handler(req)
        if any(path == req.path for _, path in self.routes) or (
            req.method not in ("GET", "HEAD") and req.path in ("/metrics", "/healthz", "/readyz")
        ):
            return _text(405, "method not allowed")
        if req.path == "/metrics":
            encoder, content_type = choose_encoder(req.headers.get("accept", ""))
            return Response(200, encoder(self.registry), content_type)
        if req.path == "/healthz":
            return _text(200, "ok") if self.live() else _text(503, "not alive")
        if req.path == "/readyz":
            checks = dict(self.checks())
            ready = bool(checks) and all(checks.values())
            body: dict[str, object] = {"ready": ready, "checks": checks}
            details = dict(self.details()) if self.details is not None else {}
            if details:
                body["details"] = details
            return _json(200 if ready else 503, body)
        return _text(404, "not found")

    # ------------------------------------------------------------------ HTTP
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            try:
                async with asyncio.timeout(READ_TIMEOUT):
                    req = await _read_request(reader)
            except TimeoutError:
                resp = _text(408, "request timeout")
            except _BadRequest as exc:
                resp = _text(exc.status, exc.reason)
            else:
                if req.method not in ("GET", "HEAD", "POST"):
                    resp = _text(405, "method not allowed")
                else:
                    try:
                        resp = await self.respond(req)
                    except Exception as exc:
                        log.error("admin request failed", path=req.path, error=type(exc).__name__)
                        resp = _text(500, "internal error")
                if req.method == "HEAD":
                    resp = Response(
                        resp.status, b"", resp.content_type, {"Content-Length": str(len(resp.body))}
                    )
            writer.write(_encode(resp))
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()


class _BadRequest(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


async def _read_request(reader: asyncio.StreamReader) -> Request:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise _BadRequest(431, "request header too large") from None
    except asyncio.IncompleteReadError:
        raise _BadRequest(400, "incomplete request") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest(400, "bad request line")
    method, target, _ = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise _BadRequest(400, "bad header line")
        headers[name.strip().lower()] = value.strip()
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise _BadRequest(400, "bad content-length") from None
    if length < 0:
        raise _BadRequest(400, "bad content-length")
    if length > MAX_BODY_BYTES:
        raise _BadRequest(413, "request body too large")
    try:
        body = await reader.readexactly(length) if length else b""
    except asyncio.IncompleteReadError:
        raise _BadRequest(400, "incomplete body") from None
    path = target.split("?", 1)[0]
    return Request(method, path, headers, body)


def _encode(resp: Response) -> bytes:
    reason = HTTPStatus(resp.status).phrase
    headers = {
        "Content-Type": resp.content_type,
        "Content-Length": str(len(resp.body)),
        "Connection": "close",
        "Cache-Control": "no-store",
        **resp.headers,
    }
    head = f"HTTP/1.1 {resp.status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("latin-1") + b"\r\n" + resp.body
