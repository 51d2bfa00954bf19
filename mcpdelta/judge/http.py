"""The HTTP under a judge: one deadline for the whole answer, a cap on its bytes.

An HTTP client's timeouts bound each operation (connect, one read), so an
endpoint that sends its headers and then one byte every two seconds
outlives any of them, and one that answers 100 MB is read whole. A judge is
an endpoint someone else runs; each request it makes goes through here:

- a deadline for the whole exchange (connect, TLS, headers, body): a timer
  started with the request shuts the connection's socket down when it
  passes, whatever the connection is waiting for, and the request ends as
  the client's own timeout (``openai.APITimeoutError``);
- at most ``max_bytes`` of answer read: past it the request ends as
  ``AnswerTooLarge``, never retried.

The socket is found through the HTTP core's documented ``trace`` request
extension (``connection.connect_tcp.complete``); connections are not kept
alive, so every request has its own socket, and so its own deadline.
"""

import socket
import sys
import threading

MAX_ANSWER_BYTES = 1024 * 1024   # a judge's answer is a short JSON object


class AnswerTooLarge(Exception):
    """The endpoint's answer went past the byte cap."""


def bounded_client(seconds: float, max_bytes: int = MAX_ANSWER_BYTES):
    """The HTTP client for ``openai.OpenAI(http_client=...)``: every request
    through ``seconds`` of deadline and ``max_bytes`` of answer."""
    import openai

    client_class = openai.DefaultHttpxClient
    # the HTTP package this openai is built on (httpx, or a fork of it): its own types
    http = sys.modules[next(c for c in client_class.__mro__[1:] if c.__name__ == "Client").__module__.split(".")[0]]
    inner = http.HTTPTransport(limits=http.Limits(max_keepalive_connections=0))
    return client_class(transport=_transport(http, inner, seconds, max_bytes), timeout=http.Timeout(seconds))


class _Deadline:
    """A timer that shuts the request's socket down when the time is up."""

    def __init__(self, seconds: float):
        self.fired = False
        self._sockets = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with self._lock:
                    self._sockets.append(sock)
                    late = self.fired
                if late:
                    _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()


def _shut(sock) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _transport(http, inner, seconds: float, max_bytes: int):
    """A transport class of ``http``'s own kind, made here because the HTTP
    package is only known once openai is imported."""

    class BoundedStream(http.SyncByteStream):
        def __init__(self, stream, deadline, request):
            self._stream, self._deadline, self._request = stream, deadline, request

        def __iter__(self):
            read = 0
            try:
                for chunk in self._stream:
                    read += len(chunk)
                    if read > max_bytes:
                        raise AnswerTooLarge(f"the answer is larger than the {max_bytes}-byte limit")
                    if self._deadline.fired:
                        raise http.ReadTimeout("deadline", request=self._request)
                    yield chunk
            except AnswerTooLarge:
                raise
            except Exception:
                if self._deadline.fired:
                    raise http.ReadTimeout(f"no whole answer within {seconds:g} s", request=self._request) from None
                raise

        def close(self):
            self._deadline.cancel()
            self._stream.close()

    class BoundedTransport(http.BaseTransport):
        def handle_request(self, request):
            deadline = _Deadline(seconds)
            outer = request.extensions.get("trace")

            def trace(event, info):
                deadline.trace(event, info)
                if outer is not None:
                    outer(event, info)

            request.extensions = {**request.extensions, "trace": trace,
                                  "timeout": dict.fromkeys(("connect", "read", "write", "pool"), seconds)}
            try:
                response = inner.handle_request(request)
            except Exception:
                deadline.cancel()
                if deadline.fired:
                    raise http.ReadTimeout(f"no whole answer within {seconds:g} s", request=request) from None
                raise
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > max_bytes:
                deadline.cancel()
                response.close()
                raise AnswerTooLarge(f"the answer is larger than the {max_bytes}-byte limit ({length} bytes)")
            response.stream = BoundedStream(response.stream, deadline, request)
            return response

        def close(self):
            inner.close()

    return BoundedTransport()
