"""Where the relay's transactions go: the upstream MTA (aiosmtplib), or a mailbox directory.

A :class:`Delivery` mirrors one client session: ``mail``, ``rcpt`` and ``data`` return the
:class:`Reply` the client gets. :class:`UpstreamDelivery` passes the upstream's replies on
(a 421 becomes a plain 451) and turns anything that keeps us from the upstream -- connection,
greeting, STARTTLS, our own AUTH, timeouts -- into ``451 4.4.1``, counted in
``scrubber_upstream_errors_total{kind}``.
"""

from __future__ import annotations

import asyncio
import ssl
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

    async def data(self, content: bytes) -> Reply: ...

    async def reset(self) -> None: ...

    async def close(self) -> None: ...


class UpstreamDelivery:
    """One upstream connection per client session, opened at the first MAIL and kept for the next."""

    def __init__(self, cfg: SmtpUpstream, local_hostname: str, password: str | None) -> None:
        self.cfg = cfg
        self.local_hostname = local_hostname
        self.password = password
        self.client: aiosmtplib.SMTP | None = None
        self.in_transaction = False
        self.broken = False
        self.utf8 = False

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

    async def _connected(self) -> aiosmtplib.SMTP:
        if self.client is not None and self.client.is_connected:
            return self.client
        client = self._new_client()
        await client.connect()
        self.client = client
        return client

    async def mail(self, sender: str, options: list[str]) -> Reply:
        await self.reset()
        self.broken = False
        for attempt in (1, 2):
            try:
                client = await self._connected()
            except (aiosmtplib.SMTPException, OSError) as exc:
                # Whatever went wrong before MAIL (greeting, EHLO, STARTTLS, our own AUTH) is not
                # the sender's fault, even a 5xx: the sender keeps the message and retries.
                return self._failed(_kind(exc), exc)
            upstream_options, refusal = _upstream_options(client, options)
            if refusal is not None:
                return refusal
            self.utf8 = "SMTPUTF8" in upstream_options
            try:
                resp = await client.mail(
                    sender, options=upstream_options, encoding="utf-8" if self.utf8 else "ascii"
                )
            except UnicodeEncodeError:
                return Reply(553, "5.6.7 Address needs SMTPUTF8")
            except aiosmtplib.SMTPResponseException as exc:
                return _refusal(exc)
            except aiosmtplib.SMTPServerDisconnected as exc:
                # A kept connection the upstream has since closed: try once on a new one.
                if attempt == 2:
                    return self._failed("disconnected", exc)
                continue
            except (aiosmtplib.SMTPException, OSError) as exc:
                return self._failed(_kind(exc), exc)
            self.in_transaction = True
            return Reply(resp.code, resp.message)
        return UPSTREAM_DOWN

    async def rcpt(self, recipient: str, options: list[str]) -> Reply:
        if self.broken or self.client is None:
            return UPSTREAM_DOWN
        try:
            resp = await self.client.rcpt(
                recipient, options=options, encoding="utf-8" if self.utf8 else "ascii"
            )
        except UnicodeEncodeError:
            return Reply(553, "5.6.7 Address needs SMTPUTF8")
        except aiosmtplib.SMTPResponseException as exc:
            return _refusal(exc)
        except (aiosmtplib.SMTPException, OSError) as exc:
            return self._failed(_kind(exc), exc)
        return Reply(resp.code, resp.message)

    async def data(self, content: bytes) -> Reply:
        if self.broken or self.client is None:
            return UPSTREAM_DOWN
        self.in_transaction = False
        client = self.client
        wire = wire_form(content)
        try:
            if wire is None or client.protocol is None:
                resp = await client.data(content)
            else:
                # aiosmtplib's data() runs two regular expressions over the message on the event
                # loop (tenths of a second for 5 MB, every session waiting); the message is
                # already in wire form, so it goes out as it is.
                resp = await client.execute_command(b"DATA")
                if resp.code != 354:
                    return _refusal(aiosmtplib.SMTPDataError(resp.code, resp.message))
                client.protocol.write(wire)
                resp = await client.protocol.read_response(timeout=self.cfg.timeout)
                if resp.code != 250:
                    return _refusal(aiosmtplib.SMTPDataError(resp.code, resp.message))
        except aiosmtplib.SMTPResponseException as exc:
            return _refusal(exc)
        except (aiosmtplib.SMTPException, OSError) as exc:
            return self._failed(_kind(exc), exc)
        return Reply(resp.code, resp.message)

    async def reset(self) -> None:
        if not self.in_transaction or self.client is None:
            return
        self.in_transaction = False
        try:
            await self.client.rset()
        except (aiosmtplib.SMTPException, OSError):
            self.client.close()

    async def close(self) -> None:
        client, self.client = self.client, None
        if client is None or not client.is_connected:
            return
        try:
            await client.quit(timeout=5)
        except (aiosmtplib.SMTPException, OSError):
            client.close()

    def _failed(self, kind: str, exc: BaseException) -> Reply:
        UPSTREAM_ERRORS.labels(TRANSPORT, kind).inc()
        log.warning("smtp.upstream_error", kind=kind, error=type(exc).__name__)
        self.broken = True
        self.in_transaction = False
        if self.client is not None:
            self.client.close()
        return UPSTREAM_DOWN


# MAIL parameters passed on when the upstream offers the extension they belong to.
_PASSED_PARAMS = {"SIZE": "size", "BODY": "8bitmime"}


def wire_form(message: bytes) -> bytes | None:
    """``message`` dot-stuffed and ended with the lone dot, for the DATA command; None unless
    every line ends in CRLF (then aiosmtplib's own, slower, normalising path is used)."""
    crlf = message.count(b"\r\n")
    if message.count(b"\n") != crlf or message.count(b"\r") != crlf:
        return None
    if message and not message.endswith(b"\r\n"):
        message += b"\r\n"
    if message.startswith(b"."):
        message = b"." + message
    return message.replace(b"\r\n.", b"\r\n..") + b".\r\n"


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
        self.sender, self.recipients = sender, []
        return Reply(250, "2.1.0 OK")

    async def rcpt(self, recipient: str, options: list[str]) -> Reply:
        self.recipients.append(recipient)
        return Reply(250, "2.1.5 OK")

    async def data(self, content: bytes) -> Reply:
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
