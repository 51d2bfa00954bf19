"""One judge endpoint: an OpenAI-compatible chat-completions client.

Through the ``openai`` package (its own retries off) over an HTTP client
with one deadline for each whole answer and a cap on its bytes
(``mcpdelta/judge/http.py``), with tenacity around it: 429, 5xx, timeouts
and connection failures are retried with
exponential backoff, and a ``Retry-After`` / ``retry-after-ms`` header
sets the wait instead. Any other 4xx is final. A request the endpoint
rejects for an optional parameter (``response_format``, ``max_tokens``,
``temperature``) is sent again once without it, and the judge remembers.
"""

import threading

from mcpdelta.judge.prompt import RESPONSE_FORMAT
from mcpdelta.retry_after import retry_after

ATTEMPTS = 4                # one call and three retries
BACKOFF_S = 0.25            # first backoff; doubles each retry
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 30.0    # a server asking for longer is not waited for
NO_KEY = "no-key"           # sent to local servers configured without api_key_env


class JudgeCallError(Exception):
    """A call that failed for good; the message becomes a judge_error note."""


class Ticket:
    """What one question may cost, between the budget and the client.

    ``estimate`` is the bound for one attempt. An attempt that timed out may
    still have been billed, so it counts as ``uncertain`` and a retry after
    it needs ``extend()`` (one more estimate reserved) to go ahead."""

    __slots__ = ("estimate", "reserved", "uncertain", "_reserve")

    def __init__(self, estimate: int, reserve=None):
        self.estimate = estimate
        self.reserved = 0
        self.uncertain = 0
        self._reserve = reserve

    def extend(self) -> bool:
        if self._reserve is None or self._reserve(self.estimate):
            self.reserved += self.estimate
            return True
        return False


class Reply:
    __slots__ = ("content", "tokens")

    def __init__(self, content, tokens):
        self.content = content
        self.tokens = tokens   # total tokens the endpoint reported, or None


def retry_after_seconds(response) -> float | None:
    """The wait a 429 / 503 asks for, from ``retry-after-ms`` or ``Retry-After``
    (seconds or an HTTP date)."""
    if response is None:
        return None
    headers = response.headers
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    return retry_after(headers.get("retry-after"))


def _too_large(exc) -> bool:
    from mcpdelta.judge.http import AnswerTooLarge

    return isinstance(exc.__cause__, AnswerTooLarge) or isinstance(exc, AnswerTooLarge)


def _transient(exc) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):   # includes APITimeoutError
        return not _too_large(exc)                   # the same endpoint would answer as much again
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code == 429 or exc.status_code >= 500:
            wait = retry_after_seconds(exc.response)
            return wait is None or wait <= RETRY_AFTER_MAX_S
    return False


def _wait(retry_state) -> float:
    exc = retry_state.outcome.exception()
    asked = retry_after_seconds(getattr(exc, "response", None))
    if asked is not None:
        return asked
    return min(BACKOFF_MAX_S, BACKOFF_S * 2 ** (retry_state.attempt_number - 1))


def describe(exc) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if _too_large(exc):
        return str(exc.__cause__ or exc)
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect: {exc.__cause__ or exc}"
    if isinstance(exc, openai.APIStatusError):
        message = getattr(exc, "message", "") or ""
        return f"HTTP {exc.status_code}: {message}"
    return f"{type(exc).__name__}: {exc}"


class JudgeClient:
    """Thread-safe: one per judge, shared by its worker threads."""

    def __init__(self, spec, api_key: str | None, attempts: int = ATTEMPTS):
        self.spec = spec
        self.attempts = attempts
        self._api_key = api_key
        self._openai = None  # made on the first call: a run served from cache makes none
        self._lock = threading.Lock()
        self.structured = True          # send response_format until the endpoint refuses it
        self.cap_param = "max_tokens"   # or max_completion_tokens, if the endpoint asks
        self.send_temperature = spec.temperature is not None
        self.requests = 0               # HTTP attempts made, retries included

    def _client(self):
        with self._lock:
            if self._openai is None:
                import openai

                from mcpdelta.judge.http import bounded_client

                self._openai = openai.OpenAI(api_key=self._api_key or NO_KEY,
                                             base_url=self.spec.base_url,
                                             timeout=self.spec.timeout_s, max_retries=0,
                                             http_client=bounded_client(self.spec.timeout_s))
            return self._openai

    def scrub(self, text):
        """``text`` without this judge's key: endpoints often quote the bearer
        key in a 401, and nothing an endpoint says is stored unscrubbed."""
        from mcpdelta.redact import redact

        return redact(text, [self._api_key] if self._api_key else [])

    @property
    def opts(self):
        return self.structured, self.cap_param, self.send_temperature

    def _params(self, messages):
        params = {"model": self.spec.model, "messages": messages,
                  self.cap_param: self.spec.max_tokens}
        if self.structured:
            params["response_format"] = RESPONSE_FORMAT
        if self.send_temperature:
            params["temperature"] = self.spec.temperature
        return params

    def _adapt(self, exc, sent) -> bool:
        """After a 400/422 to a request sent with options ``sent``: drop or swap
        the optional parameter the endpoint refused. True if the call is worth
        one more try (also when another thread has already adapted)."""
        text = (describe(exc) + " " + str(getattr(exc, "body", "") or "")).lower()
        with self._lock:
            if sent != self.opts:
                return True
            if self.cap_param == "max_tokens" and "max_tokens" in text and "max_completion_tokens" in text:
                self.cap_param = "max_completion_tokens"
                return True
            if self.send_temperature and "temperature" in text:
                self.send_temperature = False
                return True
            if self.structured:            # the usual refusal; also any unexplained 400
                self.structured = False
                return True
        return False

    def _send(self, messages, sent, ticket):
        import openai
        from tenacity import Retrying, retry_if_exception, stop_after_attempt

        def attempt():
            with self._lock:
                self.requests += 1
                sent[:] = [self.opts]
                params = self._params(messages)
            try:
                return self._client().chat.completions.create(**params)
            except openai.APITimeoutError:
                ticket.uncertain += 1     # the endpoint may have billed it
                raise

        def worth_retrying(exc):
            if not _transient(exc):
                return False
            if isinstance(exc, openai.APITimeoutError):
                return ticket.extend()    # only with budget for one more attempt
            return True

        retrying = Retrying(retry=retry_if_exception(worth_retrying), wait=_wait,
                            stop=stop_after_attempt(self.attempts), reraise=True)
        return retrying(attempt)

    def ask(self, messages, ticket: Ticket | None = None) -> Reply:
        """One answer for one prompt, or :class:`JudgeCallError`. ``ticket``
        records attempts that may have been billed without an answer."""
        import openai

        ticket = ticket or Ticket(0)
        for _ in range(4):   # at most three parameter adaptations
            sent = []
            try:
                response = self._send(messages, sent, ticket)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if self._adapt(exc, sent[0] if sent else None):
                    continue
                raise JudgeCallError(self.scrub(describe(exc))) from None
            except openai.APIError as exc:
                raise JudgeCallError(self.scrub(describe(exc))) from None
            except Exception as exc:   # a broken answer body, say; never a crash
                raise JudgeCallError(self.scrub(describe(exc))) from None
            reply = _reply(response)
            if isinstance(reply.content, str):
                reply.content = self.scrub(reply.content)
            return reply
        raise JudgeCallError("the endpoint refused every form of the request")


def _reply(response) -> Reply:
    try:
        choice = response.choices[0]
        content = choice.message.content
    except (AttributeError, IndexError, TypeError):
        raise JudgeCallError("the answer has no choices") from None
    usage = getattr(response, "usage", None)
    tokens = getattr(usage, "total_tokens", None) if usage is not None else None
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        prompt = getattr(usage, "prompt_tokens", None) if usage is not None else None
        completion = getattr(usage, "completion_tokens", None) if usage is not None else None
        tokens = prompt + completion if isinstance(prompt, int) and isinstance(completion, int) else None
    return Reply(content, tokens)
