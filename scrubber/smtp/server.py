"""The SMTP source: aiosmtpd's protocol, one :class:`Server` per client connection.

The server holds a session's state (its id, its :class:`~scrubber.smtp.delivery.Delivery`, its
message count) and speaks the protocol; every decision -- who may connect, what a message
becomes, what the client is told -- is the relay's (:class:`Relay`, which
:class:`~scrubber.smtp.relay.SmtpRelay` is). :class:`Handler` holds aiosmtpd's hooks, each
returning the status line the client reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import uuid
from typing import Any, Protocol, cast

import structlog
from aiosmtpd.smtp import SMTP, Envelope, Session, TLSSetupException, syntax

from scrubber.config import SmtpConfig
from scrubber.observability import SMTP_REFUSED, SMTP_TLS_FAILURES
from scrubber.smtp.delivery import Delivery

log = structlog.get_logger("scrubber.smtp")

# The stream's buffer: DATA is read in blocks of up to this many bytes, and no line length is
# refused (real mail, HTML from some clients, breaks RFC 5321's 1000).
LINE_LIMIT = 65536


# ``<local@domain>`` of dot-atoms, then parameters without comments: nearly every MAIL and RCPT.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_PATH = re.compile(rf"[ \t]*<({_ATOM}(?:\.{_ATOM})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>[ \t]*([^(]*)")


def plain_path(arg: str) -> tuple[str, str] | None:
    """The address and the parameters of a MAIL or RCPT argument in its plain form, as
    aiosmtpd's own parser reads them; None for anything else (quoted local parts, address
    literals, source routes, comments, non-ASCII), which is left to that parser."""
    m = _PLAIN_PATH.fullmatch(arg)
    return None if m is None else (m.group(1), m.group(2))


class Relay(Protocol):
    """What a session asks of the relay: its settings and its decisions."""

    config: SmtpConfig
    in_flight: int  # messages between DATA and their reply: a shutdown waits for them

    @property
    def handler(self) -> Handler: ...

    @property
    def auth_offered(self) -> bool: ...

    def admit(self, peer: Any) -> str | None:
        """None if ``peer`` may talk to us, else the status line it gets before we hang up."""

    def new_delivery(self) -> Delivery: ...

    def session_opened(self, server: Server) -> None: ...

    def session_closed(self, server: Server) -> None: ...

    async def relay_message(self, server: Server, envelope: Envelope, mid: str) -> str:
        """Scrub and deliver one message; the status line the client gets."""

    def count_refused_data(self, server: Server) -> None:
        """A message refused before it was scrubbed (over the size limit)."""


# --------------------------------------------------------------------------- the protocol
class Server(SMTP):
    """aiosmtpd's SMTP with a door (allowed networks, session cap) and per-session relay state."""

    line_length_limit = LINE_LIMIT

    def __init__(self, relay: Relay, **kwargs: Any) -> None:
        super().__init__(relay.handler, **kwargs)
        self.relay = relay
        self.sid = uuid.uuid4().hex[:12]
        self.delivery: Delivery = relay.new_delivery()
        self.count = 0
        self.refused = False
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self._original_transport is None:  # the TCP connection (not the STARTTLS upgrade)
            refusal = self.relay.admit(transport.get_extra_info("peername"))
            if refusal is not None:
                self.refused = True
                with contextlib.suppress(OSError, RuntimeError):
                    stream(transport).write(refusal.encode("ascii") + b"\r\n")
                transport.close()
                return
            self.open = True
            self.relay.session_opened(self)
            super().connection_made(transport)
            # Private surface: aiosmtpd has no hook for the end of a session's task, so the
            # callback goes on the task itself (_handler_coroutine). It buys a quiet log: a
            # client that resets the connection while we answer ends that task with
            # ConnectionResetError, which asyncio logged as "Task exception was never retrieved"
            # with a traceback (seen under load.bench_smtp); it is a debug event instead. Not
            # reproduced on demand: 0 such records in 40 synthetic resets, with or without it.
            if self._handler_coroutine is not None:
                self._handler_coroutine.add_done_callback(_client_gone)
            return
        super().connection_made(transport)

    def connection_lost(self, error: Exception | None) -> None:
        if self.refused:
            return
        if self.open:
            self.open = False
            self.relay.session_closed(self)
        if self.session is not None and self._handler_coroutine is not None:
            super().connection_lost(error)

    def eof_received(self) -> bool | None:
        if self.refused:
            return False
        return super().eof_received()

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        """aiosmtpd reads every address with the email package's header parser: the plain form
        is read here instead, the rest is left to it.

        Private surface: aiosmtpd offers no hook for reading a MAIL or RCPT address. The
        override buys 58 -> 0.5 us of CPU per address (``python -m load.smtp_overrides``)."""
        plain = None if self.local_part_limit else plain_path(arg)
        if plain is None:
            return super()._getaddr(arg)
        return plain

    @syntax("DATA")
    async def smtp_DATA(self, arg: str) -> None:
        """DATA read in blocks up to the lone dot; the replies and checks are aiosmtpd's own.

        Private surface: aiosmtpd's handle_DATA hook runs only once the whole message is read,
        by its own line-by-line loop, with the command timeout. The override buys the data
        phase its own timeout (``data_timeout``), the count of messages refused as too big and
        of replies a shutdown must wait for, and 0.13 -> 0.08 s of CPU on the event loop for a
        5 MB message (``python -m load.smtp_overrides``)."""
        if await self.check_helo_needed() or await self.check_auth_needed("DATA"):
            return
        assert self.envelope is not None and self.session is not None
        if not self.envelope.rcpt_tos:
            await self.push("503 Error: need RCPT command")
            return
        if arg:
            await self.push("501 Syntax: DATA")
            return
        # The data phase has its own, longer timeout (aiosmtpd resets it per command only).
        self._reset_timeout(self.relay.config.data_timeout)
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        try:
            content = await self._read_data()
        except asyncio.IncompleteReadError:
            return  # the client went away mid-message: nothing was accepted
        if content is None:
            self.envelope = Envelope()
            self.relay.count_refused_data(self)
            await self.push("552 5.3.4 Message too big")
            return
        self.envelope.content = self.envelope.original_content = content
        # Counted until the reply is written: stop() waits for it, so no 250 is lost in a shutdown.
        self.relay.in_flight += 1
        try:
            status = await self.relay.handler.handle_DATA(self, self.session, self.envelope)
            self.envelope = Envelope()
            await self.push(status)
        finally:
            self.relay.in_flight -= 1

    async def _read_data(self) -> bytes | None:
        """The message without its final dot line and with dot-stuffing undone; None if it
        is over the size limit (read to its end all the same, to stay in step)."""
        limit = self.data_size_limit or 0
        parts: list[bytes] = []
        size = 0
        last = b"\r\n"  # what came before the newest block: the data starts at a line start
        while True:
            try:
                block = await self._reader.readuntil(b".\r\n")
            except asyncio.LimitOverrunError as exc:
                block = await self._reader.readexactly(exc.consumed)
            size += len(block)
            if not limit or size <= limit:
                parts.append(block)
            seen = last + block
            if seen.endswith(b".\r\n") and seen[-5:-3] == b"\r\n":
                break
            last = seen[-4:]
        if limit and size - 3 > limit:
            return None
        data = b"".join(parts)[:-3]
        # A dot at the start of a line was doubled by the client (RFC 5321 4.5.2). Most
        # messages have none: looking first spares them a copy.
        if data.startswith(b"."):
            data = data[1:]
        return data.replace(b"\r\n.", b"\r\n") if b"\r\n." in data else data


def _client_gone(task: asyncio.Task[None]) -> None:
    """aiosmtpd's session task ends with the error of a client that hung up (a reset in
    mid-reply): that is the client's doing, not worth a traceback in the log."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("smtp.client_gone", error=type(task.exception()).__name__)


class Handler:
    """aiosmtpd hooks; each returns the status line the client reads."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    async def handle_EHLO(
        self, server: Server, session: Session, envelope: Envelope, hostname: str, responses: list[str]
    ) -> list[str]:
        session.host_name = hostname
        await server.delivery.reset()
        if not self.relay.auth_offered:
            responses = [r for r in responses if not r[4:].upper().startswith("AUTH")]
        return responses

    async def handle_HELO(self, server: Server, session: Session, envelope: Envelope, hostname: str) -> str:
        session.host_name = hostname
        await server.delivery.reset()
        return f"250 {server.hostname}"

    async def handle_MAIL(
        self, server: Server, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        reply = await server.delivery.mail(address, options)
        if reply.ok:
            envelope.mail_from = address
            envelope.mail_options.extend(options)
        return reply.line()

    async def handle_RCPT(
        self, server: Server, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if len(envelope.rcpt_tos) >= self.relay.config.max_recipients:
            SMTP_REFUSED.labels("recipients").inc()
            log.info("smtp.refused", reason="recipients", session=server.sid)
            return "452 4.5.3 Too many recipients"
        reply = await server.delivery.rcpt(address, options)
        if reply.ok:
            envelope.rcpt_tos.append(address)
            envelope.rcpt_options.extend(options)
        return reply.line()

    async def handle_RSET(self, server: Server, session: Session, envelope: Envelope) -> str:
        await server.delivery.reset()
        return "250 2.0.0 OK"

    async def handle_QUIT(self, server: Server, session: Session, envelope: Envelope) -> str:
        await server.delivery.close()
        return "221 2.0.0 Bye"

    async def handle_DATA(self, server: Server, session: Session, envelope: Envelope) -> str:
        server.count += 1
        return await self.relay.relay_message(server, envelope, f"{server.sid}.{server.count}")

    async def handle_exception(self, error: Exception) -> str:
        if isinstance(error, TLSSetupException):
            SMTP_TLS_FAILURES.inc()
            log.info("smtp.tls_failed")
            return "454 4.7.0 TLS not available"
        log.error("smtp.session_error", error=type(error).__name__)
        return "451 4.3.0 Internal error, try again later"


def stream(transport: asyncio.BaseTransport) -> asyncio.Transport:
    """A TCP connection's transport as the stream transport it is. Not an isinstance check:
    uvloop's transports have the methods but do not derive from asyncio's classes."""
    return cast(asyncio.Transport, transport)
