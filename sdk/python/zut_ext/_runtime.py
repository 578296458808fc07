"""Plumbing behind Extension.run: bounded line reader, frame writer, worker threads, asyncio loop."""

from __future__ import annotations

import collections
import json
import threading
TYPE_CHECKING = False  # typing is imported by type checkers only: it costs start-up time
if TYPE_CHECKING:
    import asyncio
    from typing import IO, Any, Callable, Deque, Dict, Optional

from .errors import LineTooLong, NotConnected

#: Longest host line accepted, terminating LF included (the Go SDK's scanner cap).
MAX_LINE = 4 * 1024 * 1024


def read_line(stream: IO[bytes]) -> Optional[bytes]:
    """One line without its LF (and a trailing CR), ``None`` at EOF; raises LineTooLong past 4 MiB."""
    line = stream.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE:
        raise LineTooLong(f"host line exceeds {MAX_LINE} bytes (4 MiB)")
    if line.endswith(b"\n"):
        line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
    return line


class Writer:
    """Writes whole frames, one JSON line each, under a lock."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream: Optional[IO[bytes]] = stream
        self._lock = threading.Lock()

    def send(self, frame: Dict[str, Any]) -> None:
        """Writes one frame; raises NotConnected once closed or when the pipe is gone."""
        data = (json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            stream = self._stream
            if stream is None:
                raise NotConnected("not connected to zut")
            try:
                stream.write(data)
                stream.flush()
            except (OSError, ValueError) as e:
                self._stream = None
                raise NotConnected(f"write to zut failed: {e}") from e

    def close(self) -> None:
        """Later sends raise NotConnected."""
        with self._lock:
            self._stream = None


class Pool:
    """Daemon worker threads: an idle one takes the job, otherwise a new thread starts.

    So a job never waits behind a blocked one (like a goroutine per request),
    and threads are reused across requests. Idle threads exit after 30 s.
    """

    IDLE_SECONDS = 30.0

    def __init__(self) -> None:
        self._jobs: "collections.deque[Callable[[], None]]" = collections.deque()
        self._cond = threading.Condition(threading.Lock())
        self._idle = 0

    def submit(self, job: Callable[[], None]) -> None:
        """Runs ``job`` on a worker thread."""
        with self._cond:
            if self._idle > 0:
                self._idle -= 1
                self._jobs.append(job)
                self._cond.notify()
                return
        threading.Thread(target=self._work, args=(job,), daemon=True, name="zut-ext-worker").start()

    def _work(self, job: Callable[[], None]) -> None:
        while True:
            job()
            with self._cond:
                self._idle += 1
                while not self._jobs:
                    if not self._cond.wait(self.IDLE_SECONDS) and not self._jobs:
                        if self._idle > 0:
                            self._idle -= 1
                            return
                        # Our slot was reserved by submit(): its job is on the way.
                job = self._jobs.popleft()


class AsyncLoop:
    """One asyncio event loop on a daemon thread, started on first use, for ``async def`` handlers."""

    def __init__(self) -> None:
        self._loop: "Optional[asyncio.AbstractEventLoop]" = None
        self._lock = threading.Lock()

    def loop(self) -> "asyncio.AbstractEventLoop":
        """The running loop (started on first call; asyncio is imported only then, to keep start-up fast)."""
        import asyncio

        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, daemon=True, name="zut-ext-asyncio").start()
                self._loop = loop
            return self._loop

    def submit(self, coro: Any, done: Callable[[Any, Optional[BaseException]], None]) -> None:
        """Runs ``coro`` on the loop; ``done(result, error)`` is called when it finishes."""
        import asyncio

        future = asyncio.run_coroutine_threadsafe(coro, self.loop())

        def finished(f: "Any") -> None:
            try:
                result = f.result()
            except BaseException as e:  # noqa: BLE001 - reported to the host as the Go SDK does
                done(None, e)
                return
            done(result, None)

        future.add_done_callback(finished)

    def run(self, coro: Any) -> Any:
        """Runs ``coro`` on the loop and waits for its result (from a worker thread)."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop()).result()


class SerialQueues:
    """Per-key ordered job queues (panel callbacks): jobs of one key run one at a time, in order."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._queues: Dict[str, Deque[Callable[[], None]]] = {}

    def submit(self, key: str, job: Callable[[], None]) -> None:
        """Queues ``job`` behind the other jobs of ``key``."""
        with self._lock:
            queue = self._queues.get(key)
            if queue is not None:
                queue.append(job)
                return
            self._queues[key] = collections.deque([job])
        self._pool.submit(lambda: self._drain(key))

    def _drain(self, key: str) -> None:
        while True:
            with self._lock:
                queue = self._queues[key]
                if not queue:
                    del self._queues[key]
                    return
                job = queue.popleft()
            job()
