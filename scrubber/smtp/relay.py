"""SMTP relay: a before-queue proxy that scrubs every message before the upstream MTA sees it.

::

    client MTA --SMTP--> server (aiosmtpd) -> relay -> scrub worker --> delivery --SMTP--> upstream MTA
                                                                          `-------> or a mailbox directory

The client's transaction is mirrored on an upstream one, command by command: MAIL and every RCPT
are passed on as the client sends them and the upstream's reply is the client's reply, so each
recipient's result is the upstream's own. At DATA the message is scrubbed in a worker
(:mod:`scrubber.smtp.transform` in :mod:`scrubber.workers`), the scrubbed message is
sent upstream, and the client gets the upstream's answer: 250 only once the upstream accepted
it, 4xx stays 4xx and 5xx stays 5xx. An upstream that cannot be reached or does not answer in
time gives ``451 4.4.1`` so that the sender keeps the message and retries
(:mod:`scrubber.smtp.delivery`). The envelope is passed on unchanged. Upstream connections are
pooled across client sessions: a session holds one from MAIL to the end of its transaction.

A message that cannot be scrubbed is refused (``554 5.6.0``) or, with
``on_unscrubbable: quarantine``, kept unchanged in ``quarantine_dir`` (``250``, never
forwarded). Connections from outside ``allowed_networks`` get ``554 5.7.1``; STARTTLS uses the
configured certificate; AUTH (PLAIN, LOGIN) is offered only over TLS, against a users file
(:mod:`scrubber.smtp.auth`). Logs carry session and message ids, outcomes and reasons, never
addresses or content.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import ssl
import time
from typing import Any

import structlog
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from scrubber.config import ConfigError, ListenError, Settings, SmtpConfig, open_networks
from scrubber.engine import ScrubError
from scrubber.formats import FormatError
from scrubber.formats.mime import MimeOptions
from scrubber.mailbox import Mailbox
from scrubber.observability import (
    QUARANTINED,
    REGEX_TIMEOUTS,
    SMTP_AUTH_FAILURES,
    SMTP_REFUSED,
    SMTP_SESSIONS,
    UPSTREAM_UP,
    TransportMetrics,
)
from scrubber.smtp.auth import UsersFile, UsersFileError
from scrubber.smtp.delivery import (
    TRANSPORT,
    Delivery,
    MailboxDelivery,
    Reply,
    UpstreamDelivery,
    UpstreamPool,
    null_sender,
)
from scrubber.smtp.server import Handler, Server, stream
from scrubber.smtp.transform import Scrubbed, SmtpJob
from scrubber.workers import WorkerLost, WorkerPool

log = structlog.get_logger("scrubber.smtp")

ROUTE = "smtp"
DRAIN_SECONDS = 10.0
CLOSE_SECONDS = 1.0
# How often the upstream's reachability is probed (scrubber_upstream_up, /readyz details).
UPSTREAM_PROBE_SECONDS = 15.0

# Refusals that are the message's own doing but not about scrubbing: never quarantined.
REFUSED_REASONS = {"attachment_refused": Reply(550, "5.7.1 Message refused: attachment type not allowed")}
# Reasons that are ours and may pass: the sender should try again.
TEMPORARY_REASONS = frozenset({"worker_failed"})
# A message over this size goes to the bulk worker (when there are two or more).
LARGE_MESSAGE_BYTES = 512 * 1024
GRACE_SECONDS = 1.0
# A message that waits this long for a free worker gets a temporary failure (the sender retries).
QUEUE_TIMEOUT = 60.0
# A message whose worker gave no reply: (reason, detail) of its ScrubError.
WORKER_LOST = {
    "time_budget": ("time_budget", "worker stopped after its time budget"),
    "worker_crashed": ("worker_failed", "worker process ended"),
    "no_worker": ("worker_failed", "no scrub worker free"),
}


# --------------------------------------------------------------------------- the component
class SmtpRelay:
    """The SMTP transport (a :class:`~scrubber.service.Component`)."""

    name = "smtp"

    def __init__(self, settings: Settings, *, passthrough: bool = False) -> None:
        """``passthrough``: scrub with no detectors at all (benchmarks of the relay's own cost)."""
        if settings.smtp is None:
            raise ConfigError("smtp: section missing")
        cfg: SmtpConfig = settings.smtp
        # With --workers N every worker listens on the same port; the kernel spreads connections.
        self.shared_port = settings.workers > 1
        self.config = cfg
        self.level = settings.policy.level if cfg.level is None else cfg.level
        try:
            options = MimeOptions(headers=cfg.headers, attachments=cfg.attachments)
        except ValueError as exc:
            raise ConfigError(f"smtp.{exc}") from None
        job = SmtpJob(
            policy=settings.policy.policy(self.level),
            options=options,
            regex_timeout=settings.limits.regex_timeout_ms / 1000,
            detectors=not passthrough,
            wire=not cfg.mailbox_dir,
        )
        budget_ms = cfg.time_budget_ms if cfg.time_budget_ms is not None else settings.limits.time_budget_ms
        self.budget = budget_ms / 1000
        # With two processes or more, one takes the large messages only: see scrubber.workers.
        self.pool = WorkerPool(
            job,
            cfg.scrub_processes,
            transport=TRANSPORT,
            logging=(settings.logging.format, settings.logging.level),
            bulk=True,
        )
        self.metrics = TransportMetrics(TRANSPORT)
        self.networks = [ipaddress.ip_network(n, strict=False) for n in cfg.allowed_networks]
        self.handler = Handler(self)
        self.users: UsersFile | None = None
        self.tls: ssl.SSLContext | None = None
        self.password: str | None = None
        self.mailbox = Mailbox(cfg.mailbox_dir) if cfg.mailbox_dir else None
        self.quarantine = Mailbox(cfg.quarantine_dir) if cfg.quarantine_dir else None
        self.upstream: UpstreamPool | None = None
        self.sessions: set[Server] = set()
        self._closing: set[asyncio.Task[None]] = set()
        self.in_flight = 0
        self.address: tuple[str, int] | None = None
        self._server: asyncio.Server | None = None
        self._watch: asyncio.Task[None] | None = None
        self.upstream_reachable: bool | None = None  # None until the first probe

    @property
    def auth_offered(self) -> bool:
        return self.users is not None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        cfg = self.config
        self._load_secrets()
        for box in (self.mailbox, self.quarantine):
            if box is not None:
                try:
                    box.create()
                except OSError as exc:
                    raise ConfigError(f"smtp: cannot create {box.path}: {exc.strerror}") from None
        if self.mailbox is None:
            self.upstream = UpstreamPool(cfg.upstream, cfg.hostname, self.password, cfg.max_sessions)
            self._watch = asyncio.create_task(self._watch_upstream(self.upstream))
        await self.pool.start()
        host, _, port = cfg.listen.rpartition(":")
        loop = asyncio.get_running_loop()
        try:
            self._server = await loop.create_server(
                self._protocol, host=host.strip("[]"), port=int(port), reuse_port=self.shared_port or None
            )
        except BaseException as exc:
            if self._watch is not None:
                self._watch.cancel()
            await self.pool.stop()
            if isinstance(exc, OSError):
                raise ListenError("smtp.listen", cfg.listen, exc) from None
            raise
        sock = self._server.sockets[0].getsockname()
        self.address = (sock[0], sock[1])
        wide = open_networks(cfg.allowed_networks)
        if wide and not cfg.auth.required:  # the config refuses this unless allow_open_relay says yes
            log.warning("smtp.open_relay", allowed_networks=wide, auth=False)
        log.info(
            "smtp.listening",
            listen=f"{sock[0]}:{sock[1]}",
            upstream="mailbox" if self.mailbox else f"{cfg.upstream.host}:{cfg.upstream.port}",
            dial_level=self.level,
            tls=self.tls is not None,
            auth=self.users is not None,
            workers=cfg.scrub_processes,
        )

    def _load_secrets(self) -> None:
        cfg = self.config
        if cfg.tls.cert and cfg.tls.key:
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            try:
                ctx.load_cert_chain(cfg.tls.cert, cfg.tls.key)
            except (OSError, ssl.SSLError) as exc:
                raise ConfigError(f"smtp.tls: cannot load the certificate and key: {exc}") from None
            self.tls = ctx
        if cfg.auth.users_file:
            try:
                self.users = UsersFile.load(cfg.auth.users_file)
            except UsersFileError as exc:
                raise ConfigError(f"smtp.auth.users_file: {exc}") from None
        up = cfg.upstream
        if up.username and not self.mailbox:
            value = os.environ.get(up.password_env or "")
            if not value:
                raise ConfigError("smtp.upstream.password_env: names no set environment variable")
            self.password = value

    def _protocol(self) -> Server:
        cfg = self.config
        return Server(
            self,
            hostname=cfg.hostname,
            data_size_limit=cfg.max_message_bytes,
            enable_SMTPUTF8=True,
            tls_context=self.tls,
            require_starttls=cfg.auth.required,
            timeout=cfg.command_timeout,
            auth_required=cfg.auth.required,
            auth_require_tls=True,
            authenticator=self._authenticate,
            loop=asyncio.get_running_loop(),
        )

    async def _watch_upstream(self, upstream: UpstreamPool) -> None:
        """Probe the upstream now and every UPSTREAM_PROBE_SECONDS. What it finds is a metric and
        a /readyz detail, not readiness: with a shared upstream down, every pod would leave the
        Service at once, and clients would get no answer instead of a 451 that makes them retry."""
        while True:
            reachable = await upstream.reachable()
            UPSTREAM_UP.labels(TRANSPORT).set(int(reachable))
            if reachable != self.upstream_reachable:
                where = f"{self.config.upstream.host}:{self.config.upstream.port}"
                if reachable:
                    log.info("smtp.upstream_reachable", upstream=where)
                else:
                    log.warning("smtp.upstream_unreachable", upstream=where)
            self.upstream_reachable = reachable
            await asyncio.sleep(UPSTREAM_PROBE_SECONDS)

    def details(self) -> dict[str, str]:
        """What /readyz says about the upstream besides readiness."""
        if self.mailbox is not None:
            return {}
        state = {None: "unknown", True: "reachable", False: "unreachable"}[self.upstream_reachable]
        return {"smtp_upstream": state}

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        server, self._server = self._server, None
        if server is not None:
            server.close()
        deadline = time.monotonic() + DRAIN_SECONDS
        while self.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        # Every session's connection_lost must have run (it ends the session's upstream
        # transaction) before that work is waited for; a TLS session slow to close is cut.
        for s in list(self.sessions):
            if s.transport is not None:
                s.transport.close()
        await self._sessions_gone(CLOSE_SECONDS)
        for s in list(self.sessions):
            if s.transport is not None:
                stream(s.transport).abort()
        await self._sessions_gone(CLOSE_SECONDS)
        if self._closing:
            await asyncio.wait(self._closing, timeout=DRAIN_SECONDS)
        if self.upstream is not None:
            await self.upstream.close()
        await self.pool.stop()
        log.info("smtp.stopped")

    async def _sessions_gone(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while self.sessions and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    def ready(self) -> bool:
        return self._server is not None and self._server.is_serving() and self.pool.ready()

    # ------------------------------------------------------------------ sessions
    def admit(self, peer: Any) -> str | None:
        """None if the peer may talk to us, else the status line it gets before we hang up."""
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None
        try:
            ip = ipaddress.ip_address(peer[0])
        except (TypeError, ValueError, IndexError):
            ip = None
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip is None or not any(ip in net for net in self.networks if net.version == ip.version):
            log.warning("smtp.refused", reason="network")
            SMTP_REFUSED.labels("network").inc()
            return "554 5.7.1 Access denied: client network not allowed"
        if len(self.sessions) >= self.config.max_sessions:
            log.warning("smtp.refused", reason="sessions", limit=self.config.max_sessions)
            SMTP_REFUSED.labels("sessions").inc()
            return "421 4.3.2 Too many sessions, try again later"
        return None

    def session_opened(self, server: Server) -> None:
        self.sessions.add(server)
        SMTP_SESSIONS.inc()
        log.debug("smtp.session_open", session=server.sid)

    def session_closed(self, server: Server) -> None:
        if server in self.sessions:
            self.sessions.discard(server)
            SMTP_SESSIONS.dec()
        # The connection is gone: end its upstream transaction in the background (stop() waits for it).
        task = asyncio.get_running_loop().create_task(server.delivery.close())
        self._closing.add(task)
        task.add_done_callback(self._closed)
        log.debug("smtp.session_closed", session=server.sid, messages=server.count)

    def _closed(self, task: asyncio.Task[None]) -> None:
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("smtp.upstream_close_failed", error=type(task.exception()).__name__)

    def new_delivery(self) -> Delivery:
        if self.upstream is None:
            assert self.mailbox is not None
            return MailboxDelivery(self.mailbox)
        return UpstreamDelivery(self.upstream)

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        ok = (
            self.users is not None
            and isinstance(data, LoginPassword)
            and self.users.check(data.login, data.password)
        )
        if not ok:
            SMTP_AUTH_FAILURES.inc()
            log.info("smtp.auth_failed", session=getattr(server, "sid", None), mechanism=mechanism)
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True)

    # ------------------------------------------------------------------ messages
    async def relay_message(self, server: Server, envelope: Envelope, mid: str) -> str:
        content = envelope.original_content or b""
        self.metrics.message_bytes.observe(len(content))
        started = time.perf_counter()
        try:
            try:
                result = await self._scrub(content)
            except (ScrubError, FormatError) as exc:
                await server.delivery.reset()
                return await self._unscrubbable(envelope, mid, content, exc.reason)
            self.metrics.scrub_seconds.observe(time.perf_counter() - started)
            self.metrics.found(result.counts)
            reply = await server.delivery.data(result.data, wire=result.wire)
            self._count(mid, _outcome(reply), reply, result=result, size=len(content))
            return reply.line()
        except Exception as exc:  # a bug of ours: the sender keeps the message and retries
            log.error("smtp.relay_error", mid=mid, error=type(exc).__name__)
            reply = Reply(451, "4.3.0 Internal error, try again later")
            self._count(mid, "tempfailed", reply, reason="internal_error", size=len(content))
            return reply.line()

    async def _scrub(self, content: bytes) -> Scrubbed:
        """Scrub one message in a worker; raises ScrubError or FormatError with the reason it cannot be.

        A worker still busy when the message's budget (plus a grace period) is over is stopped
        and replaced, and the message fails with ``time_budget``.
        """
        try:
            reply = await self.pool.call(
                (content, self.budget),
                bulk=len(content) > LARGE_MESSAGE_BYTES,
                timeout=self.budget + GRACE_SECONDS,
                wait=QUEUE_TIMEOUT,
            )
        except WorkerLost as exc:
            raise ScrubError(*WORKER_LOST[exc.reason]) from None
        if reply[0] != "ok":
            raise ScrubError(reply[1], reply[2])
        result: Scrubbed = reply[1]
        return result

    async def _unscrubbable(self, envelope: Envelope, mid: str, content: bytes, reason: str) -> str:
        if reason == "regex_timeout":
            REGEX_TIMEOUTS.inc()
        if reason in REFUSED_REASONS:
            reply = REFUSED_REASONS[reason]
            self._count(mid, "rejected", reply, reason=reason, size=len(content))
            return reply.line()
        if reason in TEMPORARY_REASONS:
            reply = Reply(451, f"4.3.0 Message not scrubbed ({reason}), try again later")
            self._count(mid, "tempfailed", reply, reason=reason, size=len(content))
            return reply.line()
        if self.config.on_unscrubbable == "quarantine" and self.quarantine is not None:
            headers = [
                ("X-Scrubber-Quarantine", f"reason={reason}; session={mid}"),
                ("Return-Path", f"<{null_sender(envelope.mail_from or '')}>"),
                ("Envelope-To", ", ".join(envelope.rcpt_tos)),
            ]
            try:
                await asyncio.to_thread(self.quarantine.deliver, content, headers)
            except OSError as exc:
                log.error("smtp.quarantine_error", mid=mid, error=type(exc).__name__)
                reply = Reply(451, "4.3.0 Quarantine not writable, try again later")
                self._count(mid, "tempfailed", reply, reason="quarantine_error", size=len(content))
                return reply.line()
            QUARANTINED.labels(TRANSPORT, reason).inc()
            reply = Reply(250, f"2.6.0 Message held in quarantine ({reason}), not delivered")
            self._count(mid, "quarantined", reply, reason=reason, size=len(content))
            return reply.line()
        reply = Reply(554, f"5.6.0 Message cannot be scrubbed ({reason})")
        self._count(mid, "rejected", reply, reason=reason, size=len(content))
        return reply.line()

    def count_refused_data(self, server: Server) -> None:
        server.count += 1
        self.metrics.outcome(ROUTE, "rejected").inc()
        log.info("smtp.message", mid=f"{server.sid}.{server.count}", outcome="rejected", reason="limits")

    def _count(
        self,
        mid: str,
        outcome: str,
        reply: Reply,
        *,
        result: Scrubbed | None = None,
        reason: str | None = None,
        size: int,
    ) -> None:
        self.metrics.outcome(ROUTE, outcome).inc()
        fields: dict[str, Any] = {"mid": mid, "outcome": outcome, "code": reply.code, "bytes": size}
        if reason is not None:
            fields["reason"] = reason
        if result is not None:
            fields["findings"] = result.findings
            fields["parts"] = result.parts
        log.info("smtp.message", **fields)


def _outcome(reply: Reply) -> str:
    if reply.ok:
        return "forwarded"
    return "tempfailed" if reply.code < 500 else "rejected"
