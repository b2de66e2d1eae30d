"""Where the relay's transactions go: the upstream MTA (aiosmtplib), or a mailbox directory.

A :class:`Delivery` mirrors one client session: ``mail``, ``rcpt`` and ``data`` return the
:class:`Reply` the client gets. :class:`UpstreamDelivery` passes the upstream's replies on
(a 421 becomes a plain 451) and turns anything that keeps us from the upstream -- connection,
greeting, STARTTLS, our own AUTH, timeouts -- into ``451 4.4.1``, counted in
``scrubber_upstream_errors_total{kind}``.

Upstream connections come from an :class:`UpstreamPool` shared by all client sessions: a
session holds one only from MAIL to the end of its transaction, so a client that opens a
session per message does not pay for a TCP connection, EHLO, STARTTLS and AUTH each time.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from dataclasses import dataclass
from typing import Protocol

import aiosmtplib
import structlog

from scrubber.config import SmtpUpstream
from scrubber.mailbox import Mailbox
from scrubber.observability import UPSTREAM_ERRORS

log = structlog.get_logger("scrubber.smtp")

TRANSPORT = "smtp"


@dataclass(frozen=True, slots=True)
class Reply:
    code: int
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 300

    def line(self) -> str:
        """The reply as the client reads it (several lines joined with CRLF if need be)."""
        lines = [_printable(s) for s in self.text.splitlines()] or [""]
        head = [f"{self.code}-{s}" for s in lines[:-1]]
        return "\r\n".join([*head, f"{self.code} {lines[-1]}"])


def _printable(s: str) -> str:
    return "".join(c if c.isprintable() else " " for c in s)


UPSTREAM_DOWN = Reply(451, "4.4.1 Upstream not reachable, try again later")


class Delivery(Protocol):
    """Where a session's transactions go: an upstream MTA or a mailbox directory."""

    async def mail(self, sender: str, options: list[str]) -> Reply: ...

    async def rcpt(self, recipient: str, options: list[str]) -> Reply: ...

    async def data(self, content: bytes, wire: bool = False) -> Reply:
        """Deliver ``content``; ``wire``: it is already in :func:`wire_form`."""
        ...

    async def reset(self) -> None: ...

    async def close(self) -> None: ...


# An idle upstream connection is closed after this long (upstreams drop idle clients after
# 60-300 s; we close ours first rather than find them dead).
POOL_IDLE_SECONDS = 30.0
# One idle longer than this is asked NOOP before it carries a transaction.
POOL_CHECK_SECONDS = 5.0
QUIT_TIMEOUT = 5.0
PROBE_TIMEOUT = 5.0  # at most this long for a reachability probe's connection and greeting


class UpstreamPool:
    """Idle upstream connections, shared by the relay's client sessions.

    ``acquire`` hands out the most recently used idle connection (so that the fewest stay
    warm and the others expire), checking with NOOP one that sat idle for a while, or opens a
    new one. ``release`` takes back a connection that is between transactions.
    """

    def __init__(self, cfg: SmtpUpstream, local_hostname: str, password: str | None, max_idle: int) -> None:
        self.cfg = cfg
        self.local_hostname = local_hostname
        self.password = password
        self.max_idle = max_idle
        self.opened = 0  # connections opened so far (tests and benchmarks read it)
        self._idle: list[tuple[aiosmtplib.SMTP, float]] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    def _new_client(self) -> aiosmtplib.SMTP:
        c = self.cfg
        return aiosmtplib.SMTP(
            hostname=c.host,
            port=c.port,
            local_hostname=self.local_hostname,
            timeout=c.timeout,
            use_tls=c.tls == "implicit",
            start_tls=c.tls == "starttls",
            validate_certs=c.verify,
            cert_bundle=c.ca_file,
            username=c.username,
            password=self.password if c.username else None,
        )

    async def acquire(self, *, fresh: bool = False) -> tuple[aiosmtplib.SMTP, bool]:
        """A connection ready for MAIL, and whether it was used before; raises what connecting
        raises (aiosmtplib.SMTPException, OSError)."""
        while self._idle and not fresh:
            client, since = self._idle.pop()
            if not client.is_connected:
                client.close()
                continue
            if time.monotonic() - since > POOL_CHECK_SECONDS:
                try:
                    resp = await client.noop()
                except (aiosmtplib.SMTPException, OSError):
                    client.close()
                    continue
                if resp.code != 250:
                    self.discard(client)
                    continue
            return client, True
        client = self._new_client()
        await client.connect()
        if client.is_ehlo_or_helo_needed:  # now, so that MAIL knows the upstream's extensions
            try:
                await client.ehlo()
            except aiosmtplib.SMTPHeloError:
                if not client.is_connected:
                    raise
                await client.helo()
        self.opened += 1
        return client, False

    def release(self, client: aiosmtplib.SMTP) -> None:
        """Take back a connection that is between transactions (after a 250 to the message, or
        an RSET): the next transaction of any session may use it."""
        if self._closed or not client.is_connected or len(self._idle) >= self.max_idle:
            self.discard(client)
            return
        self._idle.append((client, time.monotonic()))
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(POOL_IDLE_SECONDS, self._expire)

    def discard(self, client: aiosmtplib.SMTP) -> None:
        """End a connection that is not to be used again: QUIT in the background."""
        if not client.is_connected:
            client.close()
            return
        task = asyncio.get_running_loop().create_task(_quit(client))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _expire(self) -> None:
        self._timer = None
        cutoff = time.monotonic() - POOL_IDLE_SECONDS
        old = [c for c, since in self._idle if since <= cutoff]
        self._idle = [(c, since) for c, since in self._idle if since > cutoff]
        for client in old:
            self.discard(client)
        if self._idle:
            wait = self._idle[0][1] + POOL_IDLE_SECONDS - time.monotonic()
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.1), self._expire)

    async def reachable(self) -> bool:
        """Whether the upstream takes a connection and greets (TLS first when it is implicit)."""
        c = self.cfg
        # No STARTTLS and no AUTH: the greeting says the upstream is there; the rest is for mail.
        client = aiosmtplib.SMTP(
            hostname=c.host,
            port=c.port,
            local_hostname=self.local_hostname,
            timeout=min(c.timeout, PROBE_TIMEOUT),
            use_tls=c.tls == "implicit",
            start_tls=False,
            validate_certs=c.verify,
            cert_bundle=c.ca_file,
        )
        try:
            await client.connect()
        except (aiosmtplib.SMTPException, OSError):
            client.close()
            return False
        await _quit(client)
        return True

    async def close(self) -> None:
        """QUIT every idle connection; connections released later are closed at once."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        idle, self._idle = self._idle, []
        for client, _ in idle:
            self.discard(client)
        if self._closing:
            await asyncio.wait(set(self._closing), timeout=QUIT_TIMEOUT + 1)


async def _quit(client: aiosmtplib.SMTP) -> None:
    try:
        await client.quit(timeout=QUIT_TIMEOUT)
    except (aiosmtplib.SMTPException, OSError):
        client.close()


class UpstreamDelivery:
    """One client session's transactions on upstream connections from the pool: a connection
    is held from MAIL to the end of the transaction (its 250, or RSET) and then given back."""

    def __init__(self, pool: UpstreamPool) -> None:
        self.pool = pool
        self.cfg = pool.cfg
        self.client: aiosmtplib.SMTP | None = None
        self.in_transaction = False
        self.broken = False
        self.utf8 = False

    async def mail(self, sender: str, options: list[str]) -> Reply:
        await self.reset()
        self.broken = False
        # A pooled connection the upstream has since dropped (or is closing with 421) is not
        # the sender's problem: try again, on a new connection the last time.
        for attempt in (1, 2, 3):
            try:
                client, reused = await self.pool.acquire(fresh=attempt == 3)
            except (aiosmtplib.SMTPException, OSError) as exc:
                # Whatever went wrong before MAIL (greeting, EHLO, STARTTLS, our own AUTH) is not
                # the sender's fault, even a 5xx: the sender keeps the message and retries.
                return self._failed(_kind(exc), exc)
            self.client = client
            upstream_options, refusal = _upstream_options(client, options)
            if refusal is not None:
                self._release()
                return refusal
            self.utf8 = "SMTPUTF8" in upstream_options
            try:
                command = self._path(b"FROM:", sender, upstream_options)
            except ValueError as exc:
                self._release()
                return _malformed(exc)
            try:
                resp = await client.execute_command(*command)
            except aiosmtplib.SMTPServerDisconnected as exc:
                if not reused:
                    return self._failed("disconnected", exc)
                self._drop()
                continue
            except (aiosmtplib.SMTPException, OSError) as exc:
                return self._failed(_kind(exc), exc)
            if resp.code == 421 and reused:
                self._drop()
                continue
            if resp.code != 250:
                self._release()
                return _refusal(aiosmtplib.SMTPSenderRefused(resp.code, resp.message, sender))
            self.in_transaction = True
            return Reply(resp.code, resp.message)
        return UPSTREAM_DOWN

    def _path(self, keyword: bytes, address: str, options: list[str]) -> tuple[bytes, ...]:
        """MAIL or RCPT for ``address`` as aiosmtpd read it (``<>`` is the null sender, which
        bounces carry); raises ValueError for what cannot go on a command line."""
        address = null_sender(address)
        if any(ord(c) < 32 or ord(c) == 127 for c in address):
            raise ValueError("control character")
        path = f"<{address}>".encode("utf-8" if self.utf8 else "ascii")
        try:
            params = [o.encode("ascii") for o in options]
        except UnicodeEncodeError:
            raise ValueError("non-ASCII parameter") from None
        return (b"MAIL" if keyword == b"FROM:" else b"RCPT", keyword + path, *params)

    async def rcpt(self, recipient: str, options: list[str]) -> Reply:
        if self.broken or self.client is None:
            return UPSTREAM_DOWN
        try:
            command = self._path(b"TO:", recipient, options)
        except ValueError as exc:
            return _malformed(exc)
        try:
            resp = await self.client.execute_command(*command)
        except (aiosmtplib.SMTPException, OSError) as exc:
            return self._failed(_kind(exc), exc)
        if resp.code not in (250, 251):
            return _refusal(aiosmtplib.SMTPRecipientRefused(resp.code, resp.message, recipient))
        return Reply(resp.code, resp.message)

    async def data(self, content: bytes, wire: bool = False) -> Reply:
        if self.broken or self.client is None:
            return UPSTREAM_DOWN
        client = self.client
        ready = content if wire else wire_form(content)
        try:
            if ready is None or client.protocol is None:
                resp = await client.data(_unstuffed(content) if wire else content)
            else:
                # Private surface: aiosmtplib's data() always normalises line endings and
                # dot-stuffs the message, with two regular expressions on the event loop, and
                # has no way to take a message already in wire form (made in the scrub worker).
                # Going around it (DATA, protocol.write, protocol.read_response) takes 62 ms of
                # CPU per 5 MB message off the loop; wire_form does the same in 11 ms, in the
                # worker (python -m load.smtp_overrides).
                resp = await client.execute_command(b"DATA")
                if resp.code != 354:
                    return await self._refused(aiosmtplib.SMTPDataError(resp.code, resp.message))
                client.protocol.write(ready)
                client.protocol.write(b".\r\n")
                resp = await client.protocol.read_response(timeout=self.cfg.timeout)
                if resp.code != 250:
                    return await self._refused(aiosmtplib.SMTPDataError(resp.code, resp.message))
        except aiosmtplib.SMTPResponseException as exc:
            return await self._refused(exc)
        except (aiosmtplib.SMTPException, OSError) as exc:
            return self._failed(_kind(exc), exc)
        # The upstream took the message: the transaction is over and the connection is free.
        self.in_transaction = False
        self._release()
        return Reply(resp.code, resp.message)

    async def _refused(self, exc: aiosmtplib.SMTPResponseException) -> Reply:
        """The upstream's refusal of DATA or of the message; the connection is made clean (RSET)
        for the next transaction, or dropped after a 421."""
        if exc.code == 421:
            self.in_transaction = False
            self._drop()
        else:
            await self.reset()
        return _refusal(exc)

    async def reset(self) -> None:
        """End the transaction (RSET upstream) and give the connection back."""
        if self.client is None:
            return
        if self.in_transaction:
            self.in_transaction = False
            try:
                resp = await self.client.rset()
            except (aiosmtplib.SMTPException, OSError):
                self._drop()
                return
            if resp.code != 250:
                self._drop()
                return
        self._release()

    async def close(self) -> None:
        """The client session ended: its connection goes back to the pool, clean."""
        await self.reset()

    def _release(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            self.pool.release(client)

    def _drop(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            self.pool.discard(client)

    def _failed(self, kind: str, exc: BaseException) -> Reply:
        UPSTREAM_ERRORS.labels(TRANSPORT, kind).inc()
        upstream = f"{self.cfg.host}:{self.cfg.port}"
        log.warning("smtp.upstream_error", kind=kind, upstream=upstream, error=_describe(exc))
        self.broken = True
        self.in_transaction = False
        client, self.client = self.client, None
        if client is not None:
            client.close()
        return UPSTREAM_DOWN


# MAIL parameters passed on when the upstream offers the extension they belong to.
_PASSED_PARAMS = {"SIZE": "size", "BODY": "8bitmime"}


def wire_form(message: bytes) -> bytes | None:
    """``message`` dot-stuffed and ended with CRLF, for the DATA command (the lone dot goes
    after it); None unless every line ends in CRLF (then aiosmtplib's own, slower, normalising
    path is used). A message that needs neither comes back as it is, not copied."""
    crlf = message.count(b"\r\n")
    if message.count(b"\n") != crlf or message.count(b"\r") != crlf:
        return None
    if message and not message.endswith(b"\r\n"):
        message += b"\r\n"
    if message.startswith(b"."):
        message = b"." + message
    if b"\r\n." in message:
        message = message.replace(b"\r\n.", b"\r\n..")
    return message


def _unstuffed(wire: bytes) -> bytes:
    """The message of a :func:`wire_form` (its CRLF line ends are kept)."""
    if wire.startswith(b".."):
        wire = wire[1:]
    return wire.replace(b"\r\n..", b"\r\n.")


def _upstream_options(client: aiosmtplib.SMTP, options: list[str]) -> tuple[list[str], Reply | None]:
    """The client's MAIL parameters that the upstream understands; SMTPUTF8 it must understand."""
    out: list[str] = []
    for opt in options:
        key = opt.split("=", 1)[0].upper()
        if key == "SMTPUTF8":
            if not client.supports_extension("smtputf8"):
                return [], Reply(550, "5.6.7 Next hop does not support SMTPUTF8")
            out.append(opt)
        elif key in _PASSED_PARAMS and client.supports_extension(_PASSED_PARAMS[key]):
            out.append(opt)
    return out, None


def _refusal(exc: aiosmtplib.SMTPResponseException) -> Reply:
    """The upstream's own refusal, passed on; a 421 (it is closing) is a plain 4xx for our client."""
    if exc.code == 421:
        return Reply(451, "4.4.2 Upstream closed the connection, try again later")
    return Reply(exc.code, exc.message)


def null_sender(address: str) -> str:
    """The sender as it goes between angle brackets: aiosmtpd reads ``MAIL FROM:<>`` as "<>"."""
    return "" if address == "<>" else address


def _malformed(exc: ValueError) -> Reply:
    if isinstance(exc, UnicodeEncodeError):
        return Reply(553, "5.6.7 Address needs SMTPUTF8")
    return Reply(553, "5.1.3 Address or parameters cannot be passed on")


def _describe(exc: BaseException) -> str:
    """The error for the log: its class and text, but only the code of an upstream reply (a reply's
    text can quote the addresses of the message)."""
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return f"{type(exc).__name__} {exc.code}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _kind(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, aiosmtplib.SMTPConnectError | ConnectionRefusedError):
        return "connect"
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return "auth"
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return "refused"
    if isinstance(exc, ssl.SSLError):
        return "tls"
    if isinstance(exc, aiosmtplib.SMTPServerDisconnected | ConnectionError):
        return "disconnected"
    return "protocol"


class MailboxDelivery:
    """Delivery into a directory: every accepted message becomes one .eml file."""

    def __init__(self, mailbox: Mailbox) -> None:
        self.mailbox = mailbox
        self.sender = ""
        self.recipients: list[str] = []

    async def mail(self, sender: str, options: list[str]) -> Reply:
        self.sender, self.recipients = null_sender(sender), []
        return Reply(250, "2.1.0 OK")

    async def rcpt(self, recipient: str, options: list[str]) -> Reply:
        self.recipients.append(recipient)
        return Reply(250, "2.1.5 OK")

    async def data(self, content: bytes, wire: bool = False) -> Reply:
        if wire:
            content = _unstuffed(content)
        headers = [("Return-Path", f"<{self.sender}>"), ("Envelope-To", ", ".join(self.recipients))]
        try:
            await asyncio.to_thread(self.mailbox.deliver, content, headers)
        except OSError as exc:
            UPSTREAM_ERRORS.labels(TRANSPORT, "mailbox").inc()
            log.error("smtp.mailbox_error", error=type(exc).__name__)
            return Reply(451, "4.3.0 Mailbox not writable, try again later")
        return Reply(250, "2.0.0 OK: delivered to the mailbox")

    async def reset(self) -> None:
        self.sender, self.recipients = "", []

    async def close(self) -> None:
        return None
