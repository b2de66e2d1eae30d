"""Scrub workers as child processes that talk to their parent over stdin and stdout.

The SMTP relay and the Kafka proxy both scrub in workers of this kind (``python -m
scrubber.workers``, see :mod:`scrubber.workers`). A message between the two sides is a
frame: an 8-byte big-endian length, then a pickle. Pipes rather than a ``multiprocessing`` pool:
they leave nothing behind when either side is killed (a pool's queues hold named semaphores that
only a clean exit removes), and a worker whose stdin closes knows that its parent is gone.

The worker side is synchronous (:func:`worker_streams`, :func:`read_frame`, :func:`write_frame`);
the parent side is :class:`PipeWorker`, on the parent's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import struct
import sys
from typing import Any, BinaryIO

_FRAME = struct.Struct(">Q")
# Once a worker has exited, how long to wait for the end of its stdout (a dead process's pipe
# ends at once, unless a grandchild holds it open).
REAP_SECONDS = 5.0


# --------------------------------------------------------------------------- the worker side
def worker_streams() -> tuple[BinaryIO, BinaryIO]:
    """The worker's frame streams (its stdin and stdout); anything printed later goes to stderr.

    Ctrl-C reaches the whole process group: the parent decides when its workers stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return inp, out


def read_frame(stream: BinaryIO) -> Any:
    """The next frame's object; EOFError when the parent closed the pipe (mid-frame too)."""
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        raise EOFError
    (size,) = _FRAME.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        raise EOFError
    return pickle.loads(body)


def write_frame(stream: BinaryIO, obj: Any) -> None:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(body)))
    stream.write(body)  # not joined to the length: a large message is not copied once more
    stream.flush()


# --------------------------------------------------------------------------- the parent side
class WorkerExited(Exception):
    """The worker closed its end before answering (it exited, with ``code``)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"exit code {code}")
        self.code = code


class PipeWorker:
    """One worker process, seen from its parent."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @staticmethod
    async def spawn(module: str, *args: str) -> asyncio.subprocess.Process:
        """``python -m module args...`` with pipes on stdin and stdout (stderr is the parent's)."""
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            module,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )

    async def call(self, obj: Any, reply: bool = True) -> Any:
        """Send ``obj``; then (with ``reply``) read the answer. A dead worker raises
        ``asyncio.IncompleteReadError`` or ``ConnectionError``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(_FRAME.pack(len(body)))
        self.proc.stdin.write(body)
        await self.proc.stdin.drain()
        if not reply:
            return None
        (size,) = _FRAME.unpack(await self.proc.stdout.readexactly(_FRAME.size))
        return pickle.loads(await self.proc.stdout.readexactly(size))

    async def handshake(self, *frames: Any, timeout: float) -> Any:
        """Send the start-up ``frames`` and return the worker's answer to the last one.

        A worker that exits first raises :class:`WorkerExited`. One that does not answer within
        ``timeout`` (or a cancelled start) is killed and reaped, and the exception goes on. A
        worker that answers anything but ``("ready",)`` is reaped too: the answer says why.
        """
        try:
            for frame in frames[:-1]:
                await self.call(frame, reply=False)
            reply = await asyncio.wait_for(self.call(frames[-1]), timeout)
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            self.kill()  # it has exited: this only closes its stdin
            raise WorkerExited(await self.reap()) from None
        except BaseException:
            self.kill()
            await self.reap()
            raise
        if reply != ("ready",):
            self.kill()
            await self.reap()
        return reply

    def alive(self) -> bool:
        return self.proc.returncode is None

    def kill(self) -> None:
        """SIGKILL it, and close our end of its stdin: its transport is done only once every
        pipe is closed, and a write pipe to a dead process is not always noticed by itself."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        if self.proc.stdin is not None:
            self.proc.stdin.close()

    async def reap(self) -> int:
        """Wait for it to end and read its stdout to the end; return its exit code.

        The exit code can be known before the end of its stdout is read: a transport whose pipe
        was never read to the end is never finished, and it complains (or fails, once the event
        loop is closed) when it is collected later.
        """
        code = await self.proc.wait()
        if self.proc.stdout is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.proc.stdout.read(), REAP_SECONDS)
        return code

    async def stop(self, grace: float) -> None:
        """Close its stdin (it exits when it reads the end); kill it if it has not within ``grace``."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), grace)
        except TimeoutError:
            self.kill()
        await self.reap()
