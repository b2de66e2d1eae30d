"""The admin endpoint served by ``serve()`` in this process, with a tiny component of our own."""

from __future__ import annotations

import asyncio
import json

from obs_helpers import http_raw
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from scrubber import config
from scrubber.admin import MAX_BODY_BYTES, MAX_HEAD_BYTES, AdminServer
from scrubber.observability import COMPONENT_READY
from scrubber.service import serve
from tests.conftest import LogLines, free_port


class Toggle:
    """A component whose readiness the test switches."""

    name = "toggle"

    def __init__(self) -> None:
        self.is_ready = False
        self.started = False
        self.stopped = False
        self.release = asyncio.Event()  # stop() waits for it, so the test can look at a draining service

    async def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        await self.release.wait()
        self.stopped = True

    def ready(self) -> bool:
        return self.is_ready


async def get(
    port: int, path: str, method: str = "GET", extra: str = ""
) -> tuple[int, dict[str, str], bytes]:
    return await http_raw(port, f"{method} {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())


async def poll(port: int, path: str, status: int, timeout: float = 90.0) -> bytes:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            code, _, body = await get(port, path)
            if code == status:
                return body
        except OSError:
            pass
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"{path} never answered {status}")
        await asyncio.sleep(0.05)


async def test_readiness_follows_rules_and_components_and_drops_while_stopping(log_lines: LogLines) -> None:
    port = free_port()
    settings = config.parse({"admin": {"listen": f"127.0.0.1:{port}"}})
    comp = Toggle()
    gauges = [("scrubber_component_ready", {"component": name}) for name in ("rules", "toggle")]
    for name in ("rules", "toggle"):
        COMPONENT_READY.labels(name).set(0)
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop, components=[comp], signals=()))
    try:
        await poll(port, "/healthz", 200)
        body = await poll(port, "/readyz", 503)
        checks = json.loads(body)["checks"]
        assert checks["toggle"] is False
        comp.is_ready = True
        ready = json.loads(await poll(port, "/readyz", 200))
        assert ready == {"ready": True, "checks": {"running": True, "rules": True, "toggle": True}}
        assert comp.started
        # The watcher publishes readiness as gauges (and logs the change) once a second.
        for _ in range(300):
            if all(REGISTRY.get_sample_value(*gauge) == 1.0 for gauge in gauges):
                break
            await asyncio.sleep(0.1)
        assert [REGISTRY.get_sample_value(*gauge) for gauge in gauges] == [1.0, 1.0]
        stop.set()
        draining = json.loads(await poll(port, "/readyz", 503))
        assert draining["checks"]["running"] is False
    finally:
        stop.set()
        comp.release.set()
        await asyncio.wait_for(task, 30)
    assert comp.stopped
    events = [rec["event"] for rec in log_lines()]
    for expected in ("starting", "admin endpoint listening", "rules loaded", "component started", "ready"):
        assert expected in events
    assert events[-3:] == ["stopping", "component stopped", "stopped"]


async def test_metrics_health_and_error_answers() -> None:
    checks = {"a": True}
    server = AdminServer("127.0.0.1:0", live=lambda: True, checks=lambda: checks)
    await server.start()
    port = server.port
    try:
        status, headers, body = await get(port, "/metrics")
        assert status == 200 and headers["content-type"].startswith("text/plain")
        names = {f.name for f in text_string_to_metric_families(body.decode())}
        assert {"scrubber_messages", "scrubber_build_info", "process_cpu_seconds"} <= names

        status, headers, _ = await get(
            port, "/metrics", extra="Accept: application/openmetrics-text; version=1.0.0\r\n"
        )
        assert status == 200 and headers["content-type"].startswith("application/openmetrics-text")

        status, headers, body = await get(port, "/readyz", method="HEAD")
        assert status == 200 and body == b"" and int(headers["content-length"]) > 0

        checks["b"] = False
        status, _, body = await get(port, "/readyz")
        assert status == 503 and json.loads(body)["checks"] == {"a": True, "b": False}

        assert (await get(port, "/nothing"))[0] == 404
        assert (await get(port, "/metrics", method="POST", extra="Content-Length: 0\r\n"))[0] == 405
        assert (await get(port, "/metrics", method="DELETE"))[0] == 405
        assert (await http_raw(port, b"garbage\r\n\r\n"))[0] == 400
        assert (await http_raw(port, b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"))[0] == 400
        big = "X-Pad: " + "a" * (MAX_HEAD_BYTES + 10) + "\r\n"
        assert (await get(port, "/metrics", extra=big))[0] == 431
        too_long = f"Content-Length: {MAX_BODY_BYTES + 1}\r\n"
        assert (await get(port, "/metrics", method="POST", extra=too_long))[0] == 413
    finally:
        await server.stop()


async def test_healthz_fails_when_not_alive() -> None:
    server = AdminServer("127.0.0.1:0", live=lambda: False, checks=dict)
    await server.start()
    try:
        assert (await get(server.port, "/healthz"))[0] == 503
        status, _, body = await get(server.port, "/readyz")
        assert status == 503 and json.loads(body) == {"ready": False, "checks": {}}
    finally:
        await server.stop()


async def test_playground_routes_are_served_when_enabled() -> None:
    port = free_port()
    settings = config.parse({"admin": {"listen": f"127.0.0.1:{port}", "playground": True}})
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop, components=[], signals=()))
    try:
        await poll(port, "/healthz", 200)
        status, headers, _ = await get(port, "/playground")
        assert status == 200 and headers["content-type"].startswith("text/html")
        body = json.dumps({"text": "ssn 524-59-3318", "level": 2}).encode()
        req = (
            f"POST /playground/api/scrub HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        status, _, answer = await http_raw(port, req)
        assert status == 200 and json.loads(answer)["text"] == "ssn [US_SSN]"
        status, _, answer = await http_raw(
            port, b"POST /playground/api/scrub HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
        )
        assert status == 400 and "JSON" in json.loads(answer)["error"]
        assert (await get(port, "/playground/api/scrub"))[0] == 405
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
