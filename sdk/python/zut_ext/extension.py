"""The Extension builder and its run loop (protocol v2, same wire behaviour as the Go SDK)."""

from __future__ import annotations

import json
import sys
import threading

from ._runtime import AsyncLoop, Pool, SerialQueues, Writer, read_line
from .errors import NotConnected, SdkError
from .host_info import HostInfo
from .results import AssistantMessageDecision, Response, ToolCallDecision, ToolResult, TurnStartDecision

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs start-up time
if TYPE_CHECKING:
    from typing import IO, Any, Callable, Dict, Iterable, List, Optional, Tuple, TypeVar, cast, overload

    from .frames import Event, PanelContent, PanelKey

    F = TypeVar("F", bound=Callable[..., Any])
else:
    def cast(_type: object, value: object) -> object:
        return value

#: The protocol version spoken (``frames.PROTOCOL_VERSION``, generated from the schema; a test keeps
#: them equal: importing ``frames`` at start-up would import ``typing``).
PROTOCOL_VERSION = 2

#: Capabilities announced in ``hello`` (the Go SDK's list; zut ignores them).
CAPABILITIES = ["commands", "tools", "events", "alerts", "panels", "session_state", "status", "widgets"]

#: Names ``panel_key.key`` can take (protocol §7.2); ``rune`` carries the character in ``text``.
KEY_NAMES = ("up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end",
             "pageup", "pagedown", "rune", "esc", "unknown")

#: Lifecycle events zut emits.
EVENT_NAMES = ("session_start", "session_opened", "session_switched", "session_forked", "session_compacted",
               "turn_start", "tool_call", "tool_confirmation_requested", "assistant_message", "turn_end")


class Context:
    """Passed to command and tool handlers that take a second parameter."""

    __slots__ = ("ext", "host", "request_id")

    def __init__(self, ext: "Extension", host: HostInfo, request_id: str) -> None:
        #: The extension, for one-way frames (``ctx.ext.notify(...)``) and panel callbacks.
        self.ext = ext
        #: What zut said in ``hello_ack``.
        self.host = host
        #: The id of the request being answered.
        self.request_id = request_id


class _Registration:
    __slots__ = ("name", "description", "handler", "schema", "deferred", "arity")

    def __init__(self, name: str, description: str, handler: Callable[..., Any], schema: Any = None,
                 deferred: bool = False) -> None:
        self.name = name
        self.description = description
        self.handler = handler
        self.schema = schema
        self.deferred = deferred
        self.arity = _arity(handler, 2)


_CO_VARARGS = 0x04
_CO_COROUTINE = 0x80


def _arity(fn: Callable[..., Any], most: int) -> int:
    """How many positional arguments ``fn`` takes, at most ``most`` (no ``inspect``: it is slow to import)."""
    target = getattr(fn, "__func__", fn)
    code = getattr(target, "__code__", None)
    if code is None:
        call = getattr(type(fn), "__call__", None)
        code = getattr(call, "__code__", None)
        if code is None:
            return most
        count = code.co_argcount - 1
    else:
        count = code.co_argcount - (1 if hasattr(fn, "__self__") else 0)
    if code.co_flags & _CO_VARARGS:
        return most
    return max(0, min(int(count), most))


def _is_async(fn: Callable[..., Any]) -> bool:
    """True for an ``async def`` function or method."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & _CO_COROUTINE)


def _is_awaitable(value: Any) -> bool:
    return hasattr(value, "__await__")


def _panic(e: BaseException) -> str:
    text = str(e)
    return text if text else type(e).__name__


class Extension:
    """A zut extension: register handlers, then call :meth:`run` (or :meth:`main`).

    Every registration method works as a decorator (``@ext.command("hi", "say hi")``)
    or as a plain call with the handler as the last argument. Handlers may be
    plain functions (run on a worker thread, so they may block) or ``async def``
    (run on one asyncio loop thread).
    """

    def __init__(self, name: str, version: str = "") -> None:
        self.name = name
        self.version = version
        self._commands: List[_Registration] = []
        self._tools: List[_Registration] = []
        self._events: Dict[str, Callable[..., Any]] = {}
        self._all_events: Optional[Callable[..., Any]] = None
        self._tool_guard: Optional[Callable[..., Any]] = None
        self._turn_guard: Optional[Callable[..., Any]] = None
        self._message_guard: Optional[Callable[..., Any]] = None
        self._on_hello: List[Callable[..., Any]] = []
        self._panel_keys: Dict[str, Callable[..., Any]] = {}
        self._panel_closes: Dict[str, Callable[..., Any]] = {}
        self._panel_lock = threading.Lock()
        self._writer: Optional[Writer] = None
        self._host = HostInfo()
        self._pool = Pool()
        self._async = AsyncLoop()
        self._panels = SerialQueues(self._pool)

    # ------------------------------------------------------------------ registration

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def command(self, name: str, description: str = "", handler: None = None) -> Callable[[F], F]: ...
        @overload
        def command(self, name: str, description: str, handler: F) -> F: ...
        @overload
        def command(self, name: str, description: str = "", *, handler: F) -> F: ...

    def command(self, name: str, description: str = "", handler: Optional[F] = None) -> Any:
        """Registers ``/name``; the handler gets ``(args: str[, ctx])`` and returns a :class:`Response` or None."""

        def register(fn: F) -> F:
            self._commands.append(_Registration(name, description, fn))
            return fn

        return register(handler) if handler is not None else register

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None,
                 handler: None = None, *, deferred: bool = False) -> Callable[[F], F]: ...
        @overload
        def tool(self, name: str, description: str, schema: Optional[Dict[str, Any]], handler: F, *,
                 deferred: bool = False) -> F: ...
        @overload
        def tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None, *, handler: F,
                 deferred: bool = False) -> F: ...

    def tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None,
             handler: Optional[F] = None, *, deferred: bool = False) -> Any:
        """Registers a tool; the handler gets ``(args: dict[, ctx])`` and returns a :class:`ToolResult` or str."""
        schema = schema if schema is not None else {"type": "object", "properties": {}}

        def register(fn: F) -> F:
            self._tools.append(_Registration(name, description, fn, schema, deferred))
            return fn

        return register(handler) if handler is not None else register

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def deferred_tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None,
                          handler: None = None) -> Callable[[F], F]: ...
        @overload
        def deferred_tool(self, name: str, description: str, schema: Optional[Dict[str, Any]], handler: F) -> F: ...
        @overload
        def deferred_tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None, *,
                          handler: F) -> F: ...

    def deferred_tool(self, name: str, description: str = "", schema: Optional[Dict[str, Any]] = None,
                      handler: Optional[F] = None) -> Any:
        """Registers a tool that the model sees only after a result's ``activate_tools`` names it."""
        return self.tool(name, description, schema, handler, deferred=True)

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def on_event(self, name: str, handler: None = None) -> Callable[[F], F]: ...
        @overload
        def on_event(self, name: str, handler: F) -> F: ...

    def on_event(self, name: str, handler: Optional[F] = None) -> Any:
        """Observes a lifecycle event; the handler gets the ``event`` frame (a dict). One handler per name."""

        def register(fn: F) -> F:
            self._events[name] = fn
            return fn

        return register(handler) if handler is not None else register

    def on_all_events(self, handler: F) -> F:
        """Receives every event without a handler of its own (subscribes to all of them)."""
        self._all_events = handler
        return handler

    def intercept_tool_call(self, handler: F) -> F:
        """Consulted before every tool call: ``(tool: str, args) ->`` :class:`ToolCallDecision`,
        ``(allowed: bool, reason: str)``, a bool, or None (allow)."""
        self._tool_guard = handler
        return handler

    def intercept_turn_start(self, handler: F) -> F:
        """Consulted before each model call: ``(step: int) ->`` :class:`TurnStartDecision`, a context str, or None."""
        self._turn_guard = handler
        return handler

    def intercept_assistant_message(self, handler: F) -> F:
        """Consulted before the user sees a message: ``(text) ->`` :class:`AssistantMessageDecision`,
        a replacement str, or None."""
        self._message_guard = handler
        return handler

    def on_hello(self, handler: F) -> F:
        """Runs ``(ext, host)`` after ``hello_ack`` and before registrations are announced."""
        self._on_hello.append(handler)
        return handler

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def on_panel_key(self, panel_id: str, handler: None = None) -> Callable[[F], F]: ...
        @overload
        def on_panel_key(self, panel_id: str, handler: F) -> F: ...

    def on_panel_key(self, panel_id: str, handler: Optional[F] = None) -> Any:
        """Key callback of a panel: ``(key: PanelKey dict)``; callbacks of one panel run in order."""

        def register(fn: F) -> F:
            with self._panel_lock:
                self._panel_keys[panel_id] = fn
            return fn

        return register(handler) if handler is not None else register

    if TYPE_CHECKING:  # overloads: the decorator form keeps the handler's type
        @overload
        def on_panel_close(self, panel_id: str, handler: None = None) -> Callable[[F], F]: ...
        @overload
        def on_panel_close(self, panel_id: str, handler: F) -> F: ...

    def on_panel_close(self, panel_id: str, handler: Optional[F] = None) -> Any:
        """Called ``()`` when the user closes the panel (Esc / Ctrl+C)."""

        def register(fn: F) -> F:
            with self._panel_lock:
                self._panel_closes[panel_id] = fn
            return fn

        return register(handler) if handler is not None else register

    # ------------------------------------------------------------------ one-way frames

    @property
    def host(self) -> HostInfo:
        """What zut said in ``hello_ack`` (empty before :meth:`run` connects)."""
        return self._host

    def send(self, frame: Dict[str, Any]) -> None:
        """Writes one raw frame; raises :class:`NotConnected` before ``run`` or after it returned."""
        writer = self._writer
        if writer is None:
            raise NotConnected("not connected to zut (call inside run())")
        writer.send(frame)

    def notify(self, level: str, message: str) -> None:
        """One-shot note; level ``info``, ``success``, ``warn`` or ``error``."""
        self.send({"type": "notify", "level": level, "message": message})

    def clear_notes(self) -> None:
        """Removes this extension's notes."""
        self.send({"type": "clear_notes"})

    def set_status(self, key: str, text: str) -> None:
        """Persistent status row keyed by ``key`` (no level, as the Go SDK)."""
        self.send({"type": "status", "key": key, "text": text})

    def clear_status(self, key: str) -> None:
        """Removes a status row."""
        self.send({"type": "status", "key": key, "text": ""})

    def set_widget(self, id: str, title: str, lines: Iterable[str], position: str = "above_input") -> None:
        """Persistent widget above the editor."""
        self.send({"type": "widget", "id": id, "position": position, "title": title, "lines": list(lines)})

    def clear_widget(self, id: str) -> None:
        """Removes a widget."""
        self.send({"type": "widget_clear", "id": id})

    def alert(self, kind: str = "bell", reason: str = "") -> None:
        """Host-owned alert (terminal bell)."""
        frame: Dict[str, Any] = {"type": "alert", "kind": kind}
        if reason:
            frame["reason"] = reason
        self.send(frame)

    def submit(self, text: str) -> None:
        """Submits a prompt (interactive zut only)."""
        self.send({"type": "submit", "text": text})

    def submit_slash(self, text: str) -> None:
        """Runs a slash command as if typed (interactive zut only)."""
        self.send({"type": "submit_slash", "text": text})

    def open_panel(self, content: PanelContent) -> None:
        """Opens a panel at any time (e.g. from inside a tool call)."""
        self.send({"type": "open_panel", "panel": dict(content)})

    def render_panel(self, content: PanelContent) -> None:
        """Redraws this extension's open panel ``content['id']``."""
        frame: Dict[str, Any] = {"type": "panel_render", "panel_id": content.get("id", "")}
        for key in ("title", "lines", "footer"):
            if key in content:
                frame[key] = content[key]
        self.send(frame)

    def close_panel(self, panel_id: str) -> None:
        """Closes this extension's panel."""
        self.send({"type": "panel_close", "panel_id": panel_id})

    def log(self, message: str) -> None:
        """Writes a line to stderr, i.e. the extension log (``zut ext logs <name>``)."""
        try:
            sys.stderr.write(f"[{self.name}] {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ running

    def main(self) -> None:
        """Runs on stdin/stdout and exits the process: status 0 after ``shutdown`` or EOF, 1 on error."""
        try:
            self.run()
        except SdkError as e:
            self.log(f"error: {e}")
            sys.exit(1)
        sys.exit(0)

    def run(self, stdin: Optional[IO[bytes]] = None, stdout: Optional[IO[bytes]] = None) -> None:
        """Speaks the protocol until ``shutdown`` or stdin EOF; raises :class:`SdkError` on failure.

        Returns at once on ``shutdown`` even if handlers are still running.
        """
        reader = stdin if stdin is not None else sys.stdin.buffer
        writer = Writer(stdout if stdout is not None else sys.stdout.buffer)
        self._writer = writer
        try:
            self._handshake(reader, writer)
            self._loop(reader, writer)
        finally:
            writer.close()

    def _handshake(self, reader: IO[bytes], writer: Writer) -> None:
        hello: Dict[str, Any] = {"type": "hello", "protocol_version": PROTOCOL_VERSION, "name": self.name}
        if self.version:
            hello["version"] = self.version
        hello["capabilities"] = CAPABILITIES
        writer.send(hello)
        line = read_line(reader)
        if line is None:
            raise SdkError("stdin closed before hello_ack")
        try:
            ack = json.loads(line)
        except ValueError as e:
            raise SdkError(f"parse hello_ack: {e}") from e
        if not isinstance(ack, dict) or ack.get("type") != "hello_ack":
            got = ack.get("type") if isinstance(ack, dict) else type(ack).__name__
            raise SdkError(f"unsupported host protocol version: first host frame must be hello_ack (got {got!r})")
        version = ack.get("protocol_version")
        if version != PROTOCOL_VERSION:
            raise SdkError(f"unsupported host protocol version {version} (want {PROTOCOL_VERSION})")
        self._host = HostInfo.from_frame(ack)
        for callback in self._on_hello:
            callback(self, self._host)
        for c in self._commands:
            frame: Dict[str, Any] = {"type": "register_command", "name": c.name}
            if c.description:
                frame["description"] = c.description
            writer.send(frame)
        for t in self._tools:
            frame = {"type": "register_tool", "name": t.name}
            if t.description:
                frame["description"] = t.description
            frame["schema"] = t.schema
            if t.deferred:
                frame["deferred"] = True
            writer.send(frame)
        events = list(EVENT_NAMES) if self._all_events is not None else list(self._events)
        for name in self._events:
            if name not in events:
                events.append(name)
        intercept = [n for n, h in (("tool_call", self._tool_guard), ("turn_start", self._turn_guard),
                                    ("assistant_message", self._message_guard)) if h is not None]
        if events or intercept:
            sub: Dict[str, Any] = {"type": "subscribe"}
            if events:
                sub["events"] = events
            if intercept:
                sub["intercept"] = intercept
            writer.send(sub)
        writer.send({"type": "ready"})

    def _loop(self, reader: IO[bytes], writer: Writer) -> None:
        while True:
            line = read_line(reader)
            if line is None:
                return
            try:
                frame = json.loads(line)
            except ValueError as e:
                self.log(f"malformed host frame skipped: {e}")
                continue
            if not isinstance(frame, dict):
                self.log("malformed host frame skipped: not a JSON object")
                continue
            kind = frame.get("type")
            if kind == "tool_call":
                self._dispatch_tool(frame)
            elif kind == "command_invoked":
                self._dispatch_command(frame)
            elif kind == "event_intercept":
                self._dispatch_intercept(frame)
            elif kind == "event":
                self._dispatch_event(cast("Event", frame))
            elif kind == "panel_key" or kind == "panel_close":
                self._dispatch_panel(frame)
            elif kind == "shutdown":
                try:
                    writer.send({"type": "shutdown_ack"})
                except NotConnected:
                    pass
                return
            # Anything else (panel_resize, future frames) is ignored.

    # ------------------------------------------------------------------ dispatch

    def _reply(self, frame: Dict[str, Any]) -> None:
        writer = self._writer
        if writer is None:
            return
        try:
            writer.send(frame)
        except NotConnected:
            pass  # zut left; nobody waits for this reply

    def _call(self, fn: Callable[..., Any], args: Tuple[Any, ...],
              finish: Callable[[Any, Optional[BaseException]], None]) -> None:
        """Runs a handler: async ones on the loop, plain ones on a worker thread (never on the reader)."""
        if _is_async(fn):
            try:
                coro = fn(*args)
            except BaseException as e:  # noqa: BLE001
                finish(None, e)
                return
            self._async.submit(coro, finish)
            return

        def job() -> None:
            try:
                result = fn(*args)
                if _is_awaitable(result):
                    result = self._async.run(result)
            except BaseException as e:  # noqa: BLE001
                finish(None, e)
                return
            finish(result, None)

        self._pool.submit(job)

    def _dispatch_command(self, frame: Dict[str, Any]) -> None:
        id = str(frame.get("id", ""))
        name = frame.get("name", "")
        args = frame.get("args", "")
        reg = next((c for c in self._commands if c.name == name), None)
        if reg is None:
            self._reply(Response.error(f"no handler for /{name}").to_frame(id))
            return

        def finish(result: Any, error: Optional[BaseException]) -> None:
            if error is not None:
                self._log_exception(f"command /{name}", error)
                response = Response.error(f"panic: {_panic(error)}")
            elif isinstance(result, Response):
                response = result
            elif result is None:
                response = Response.noop()
            else:
                response = Response.error(f"command handler returned {type(result).__name__}, not Response")
            self._reply(response.to_frame(id))

        ctx = Context(self, self._host, id)
        self._call(reg.handler, (args if isinstance(args, str) else "", ctx)[: reg.arity], finish)

    def _dispatch_tool(self, frame: Dict[str, Any]) -> None:
        id = str(frame.get("id", ""))
        name = frame.get("name", "")
        args = frame.get("args")
        if args is None:
            args = {}
        reg = next((t for t in self._tools if t.name == name), None)
        if reg is None:
            self._reply(ToolResult.error(f'no handler for tool "{name}"').to_frame(id))
            return

        def finish(result: Any, error: Optional[BaseException]) -> None:
            if error is not None:
                self._log_exception(f"tool {name}", error)
                tool_result = ToolResult.error(f"panic: {_panic(error)}")
            elif isinstance(result, ToolResult):
                tool_result = result
            elif isinstance(result, str):
                tool_result = ToolResult.text(result)
            elif result is None:
                tool_result = ToolResult()
            else:
                tool_result = ToolResult.error(f"tool handler returned {type(result).__name__}, not ToolResult")
            self._reply(tool_result.to_frame(id))

        ctx = Context(self, self._host, id)
        self._call(reg.handler, (args, ctx)[: reg.arity], finish)

    def _dispatch_intercept(self, frame: Dict[str, Any]) -> None:
        id = str(frame.get("id", ""))
        event = frame.get("event", "")
        handler: Optional[Callable[..., Any]]
        args: Tuple[Any, ...]
        if event == "tool_call":
            handler, args = self._tool_guard, (frame.get("tool_name", ""), frame.get("tool_args"))
        elif event == "turn_start":
            handler, args = self._turn_guard, (frame.get("step", 0),)
        elif event == "assistant_message":
            handler, args = self._message_guard, (frame.get("text", ""),)
        else:
            handler, args = None, ()
        if handler is None:
            self._reply({"type": "event_intercept_response", "id": id})
            return

        def finish(result: Any, error: Optional[BaseException]) -> None:
            reply: Dict[str, Any] = {"type": "event_intercept_response", "id": id}
            if error is not None:
                self._log_exception(f"{event} interceptor", error)
                reply.update(block=True, reason=f"intercept panic: {_panic(error)}")
            else:
                reply.update(_decision_fields(event, result))
            self._reply(reply)

        self._call(handler, args, finish)

    def _dispatch_event(self, frame: Event) -> None:
        name = frame.get("event", "")
        handler = self._events.get(name, self._all_events)
        if handler is None:
            return
        # Events run in order on the reader (as in the Go SDK); async ones are queued on the loop in order.
        try:
            if _is_async(handler):
                self._async.submit(handler(frame), self._event_done(name))
            else:
                handler(frame)
        except Exception as e:  # noqa: BLE001 - logged, as the Go SDK does
            self._log_exception(f"event {name} handler", e)

    def _event_done(self, name: str) -> Callable[[Any, Optional[BaseException]], None]:
        def done(_: Any, error: Optional[BaseException]) -> None:
            if error is not None:
                self._log_exception(f"event {name} handler", error)

        return done

    def _dispatch_panel(self, frame: Dict[str, Any]) -> None:
        panel_id = str(frame.get("panel_id", ""))
        is_key = frame.get("type") == "panel_key"
        with self._panel_lock:
            handler = (self._panel_keys if is_key else self._panel_closes).get(panel_id)
        if handler is None:
            return

        def job() -> None:
            try:
                result = handler(cast("PanelKey", frame)) if is_key else handler()
                if _is_awaitable(result):
                    self._async.run(result)
            except Exception as e:  # noqa: BLE001
                self._log_exception(f"panel {panel_id} callback", e)

        self._panels.submit(panel_id, job)

    def _log_exception(self, what: str, error: BaseException) -> None:
        import traceback

        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip()
        self.log(f"{what} failed: {detail}")


def _decision_fields(event: str, result: Any) -> Dict[str, Any]:
    """Normalises what an interceptor returned into reply fields."""
    if result is None or result is True:
        return {}
    if isinstance(result, (ToolCallDecision, TurnStartDecision, AssistantMessageDecision)):
        return result.fields()
    if result is False:
        return {"block": True}
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], bool):
        allowed, reason = cast("Tuple[bool, Any]", result)
        return {} if allowed else ToolCallDecision.deny(str(reason or "")).fields()
    if isinstance(result, str):
        if event == "turn_start":
            return TurnStartDecision.with_context(result).fields()
        if event == "assistant_message":
            return AssistantMessageDecision.replace(result).fields()
    return {}

