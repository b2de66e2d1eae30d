"""``scrubber run``: start the configured transports and the admin endpoint, stop them cleanly.

Each transport is a :class:`Component`: ``start()`` returns once it is serving, ``stop()`` drains
and releases everything, ``ready()`` answers the readiness probe. The service knows nothing of
how a transport works; a transport knows nothing of how detection works (it is handed a
:class:`~scrubber.engine.Scrubber` factory).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import Protocol

from scrubber.config import Settings


class Component(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def ready(self) -> bool: ...


def build_components(settings: Settings) -> list[Component]:
    components: list[Component] = []
    if settings.kafka is not None:
        from scrubber.kafka import KafkaProxy

        components.append(KafkaProxy(settings))
    if settings.smtp is not None:
        from scrubber.smtp import SmtpRelay

        components.append(SmtpRelay(settings))
    return components


async def serve(
    settings: Settings,
    stop: asyncio.Event | None = None,
    on_started: Callable[[], None] | None = None,
) -> None:
    """Run until SIGTERM/SIGINT (or ``stop`` is set), then stop every component in reverse order.

    ``on_started`` is called once every component serves (the embedded default prints its banner).
    """
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    components = build_components(settings)
    started: list[Component] = []
    try:
        for c in components:
            await c.start()
            started.append(c)
        if on_started is not None:
            on_started()
        await stop.wait()
    finally:
        for c in reversed(started):
            await c.stop()
