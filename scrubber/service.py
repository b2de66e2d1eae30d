"""``scrubber run``: start the configured transports and the admin endpoint, stop them cleanly.

Each transport is a :class:`Component`: ``start()`` returns once it is serving, ``stop()`` drains
and releases everything, ``ready()`` answers the readiness probe. The service knows nothing of
how a transport works; a transport knows nothing of how detection works (it is handed a
:class:`~scrubber.engine.Scrubber` factory).

Ready (``/readyz``) means: the rule files compiled (``rules``) and every component says
``ready()``; while stopping, the service reports not ready so traffic drains away first. What
components report beside readiness (the SMTP upstream's reachability) is a ``/readyz`` detail.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import structlog

from scrubber import __version__
from scrubber.admin import AdminServer, Handler, Request, Response
from scrubber.config import ConfigError, Settings
from scrubber.engine import Scrubber
from scrubber.kafka.proxy import KafkaProxy
from scrubber.logs import configure, get_logger
from scrubber.observability import COMPONENT_READY
from scrubber.smtp.relay import SmtpRelay

READY_POLL_SECONDS = 1.0

T = TypeVar("T")

log = get_logger("scrubber.service")


class Component(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def ready(self) -> bool: ...


@runtime_checkable
class Detailed(Protocol):
    """A component with something to say on /readyz that is not readiness."""

    def details(self) -> Mapping[str, str]: ...


def build_components(settings: Settings) -> list[Component]:
    components: list[Component] = []
    if settings.kafka is not None:
        components.append(KafkaProxy(settings))
    if settings.smtp is not None:
        components.append(SmtpRelay(settings))
    return components


def summary(settings: Settings) -> dict[str, object]:
    """What is configured, for the start-up log: names, addresses and levels, never secrets."""
    out: dict[str, object] = {
        "level": settings.policy.level,
        "admin": settings.admin.listen,
    }
    if settings.kafka is not None:
        out["kafka"] = {
            "bootstrap_servers": settings.kafka.bootstrap_servers,
            "group_id": settings.kafka.group_id,
            "quarantine_topic": settings.kafka.quarantine_topic,
            "routes": [
                {"in": r.input, "out": r.output, "format": r.format, "level": r.level}
                for r in settings.kafka.routes
            ],
        }
    if settings.smtp is not None:
        up = settings.smtp.upstream
        out["smtp"] = {
            "listen": settings.smtp.listen,
            "upstream": f"{up.host}:{up.port}" if settings.smtp.mailbox_dir is None else "mailbox",
            "upstream_tls": up.tls,
            "auth_required": settings.smtp.auth.required,
            "level": settings.smtp.level,
        }
    return out


class Health:
    """What ``/healthz`` and ``/readyz`` answer for one process."""

    def __init__(self, components: Sequence[Component]) -> None:
        self.components = components
        self.rules_loaded = False
        self.stopping = False

    def live(self) -> bool:
        return True

    def checks(self) -> dict[str, bool]:
        checks = {"running": not self.stopping, "rules": self.rules_loaded}
        for c in self.components:
            checks[c.name] = _ready(c)
        return checks

    def details(self) -> dict[str, str]:
        """What components report beside readiness (the SMTP upstream's reachability)."""
        out: dict[str, str] = {}
        for c in self.components:
            if isinstance(c, Detailed):
                out.update(c.details())
        return out


def _ready(c: Component) -> bool:
    try:
        return bool(c.ready())
    except Exception:
        return False


def playground_routes() -> dict[tuple[str, str], Handler]:
    """``GET /playground`` and ``POST /playground/api/scrub``; request text is never logged."""
    from scrubber import playground

    async def page(_req: Request) -> Response:
        return Response(200, playground.page(), "text/html; charset=utf-8")

    async def scrub(req: Request) -> Response:
        import json

        try:
            answer = await asyncio.to_thread(playground.handle, req.body)
        except playground.PlaygroundError as exc:
            return Response(400, json.dumps({"error": str(exc)}).encode(), "application/json")
        return Response(200, json.dumps(answer).encode(), "application/json")

    return {("GET", "/playground"): page, ("POST", "/playground/api/scrub"): scrub}


async def serve(
    settings: Settings,
    stop: asyncio.Event | None = None,
    on_started: Callable[[], None] | None = None,
    *,
    components: Sequence[Component] | None = None,
    admin: bool = True,
    report_ready: Callable[[bool], None] | None = None,
    signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT),
) -> None:
    """Run until a signal in ``signals`` (or ``stop`` is set), then stop every component in reverse order.

    ``on_started`` is called once every component serves (the embedded default prints its banner).
    ``components`` replaces the configured transports (tests); ``admin=False`` leaves the admin
    endpoint to a supervisor, which learns readiness through ``report_ready``.
    """
    if not structlog.is_configured():
        configure(settings.logging.format, settings.logging.level)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    log.info(
        "starting",
        version=__version__,
        pid=os.getpid(),
        event_loop=type(loop).__module__.split(".", 1)[0],
        config=summary(settings),
    )
    components = list(build_components(settings) if components is None else components)
    health = Health(components)
    server: AdminServer | None = None
    if admin:
        routes = playground_routes() if settings.admin.playground else {}
        server = AdminServer(
            settings.admin.listen,
            live=health.live,
            checks=health.checks,
            details=health.details,
            routes=routes,
        )
        await server.start()
    watcher = asyncio.create_task(_watch_readiness(health, report_ready))
    started: list[Component] = []
    try:
        # Compile the rules once before anything is accepted: a broken rule file fails here.
        await asyncio.to_thread(Scrubber, settings.policy.policy())
        health.rules_loaded = True
        log.info("rules loaded")
        for c in components:
            try:
                await c.start()
            except Exception as exc:
                log.error("component did not start", component=c.name, error=f"{type(exc).__name__}: {exc}")
                raise
            started.append(c)
            log.info("component started", component=c.name)
        if on_started is not None:
            on_started()
        await stop.wait()
        log.info("stopping")
    finally:
        health.stopping = True
        for c in reversed(started):
            try:
                await c.stop()
            except Exception as exc:
                log.error("component did not stop cleanly", component=c.name, error=type(exc).__name__)
            else:
                log.info("component stopped", component=c.name)
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        if server is not None:
            await server.stop()
        log.info("stopped")


def loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop for ``event_loop`` (``auto``, ``uvloop``, ``asyncio``); None: asyncio's own.

    uvloop runs the same asyncio code with its sockets, timers and protocol callbacks in C; the
    relay and the Kafka proxy spend less CPU per message on it. ``auto`` takes it when installed.
    """
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ConfigError("event_loop: uvloop is not installed") from None
        return None
    return uvloop.new_event_loop


def run_loop(main: Coroutine[Any, Any, T], choice: str = "auto") -> T:
    """``asyncio.run(main)`` on the event loop ``choice`` names."""
    with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
        return runner.run(main)


async def _watch_readiness(health: Health, report: Callable[[bool], None] | None) -> None:
    """Keep the readiness gauges (and the supervisor) current; log every change."""
    last: Mapping[str, bool] | None = None
    while True:
        checks = health.checks()
        for name, ok in checks.items():
            COMPONENT_READY.labels(name).set(1 if ok else 0)
        ready = all(checks.values())
        if report is not None:
            report(ready)
        if checks != last:
            failing = sorted(n for n, ok in checks.items() if not ok)
            if ready:
                log.info("ready", checks=sorted(checks))
            else:
                log.info("not ready", failing=failing)
            last = checks
        await asyncio.sleep(READY_POLL_SECONDS)
