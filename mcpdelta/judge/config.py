"""Judge entries from the ``judges:`` list of the config file.

```yaml
judges:
  - endpoint: "https://api.openai.com/v1"  # base URL; .../chat/completions accepted too
    api_key_env: OPENAI_API_KEY             # the NAME of a variable, never the key
    model: gpt-5-mini
    timeout: 5s                             # per attempt: 500ms, 5s, 2m or seconds
    budget_tokens: 100000                   # per run; never overspent
    temperature: 0                          # optional
    max_tokens: 1024                        # optional cap on one answer
    name: mini                              # optional; default model@host
```

``api_key_env`` may be left out for a local server that wants no key.
Every mistake raises ``InputError`` naming ``file:line`` of the entry.
"""

import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from mcpdelta.errors import InputError

ALLOWED_KEYS = ("endpoint", "api_key_env", "model", "timeout", "budget_tokens",
                "temperature", "max_tokens", "name")
# Keys that would hold key material: always refused, with the fix in the message.
SECRET_KEYS = {"api_key", "apikey", "key", "token", "secret", "password", "authorization",
               "bearer", "access_token", "openai_api_key", "auth", "headers", "credentials"}
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_BUDGET_TOKENS = 100_000
DEFAULT_MAX_TOKENS = 1024
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")
_KEY_LIKE = re.compile(r"^(sk-|sk_|gsk_|xai-|Bearer\s)|^[A-Za-z0-9_\-]{32,}$")


@dataclass(frozen=True)
class JudgeSpec:
    name: str
    base_url: str            # normalised: never ends in /chat/completions or /
    model: str
    api_key_env: str | None
    timeout_s: float
    budget_tokens: int
    max_tokens: int
    temperature: float | None
    where: str               # file:line of the entry, for messages


def parse_timeout(value, where: str) -> float:
    """``5s``, ``500ms``, ``2m`` or a bare number of seconds; > 0."""
    if isinstance(value, bool):
        raise InputError(where, f"judge timeout must be a duration such as 5s or 500ms, got {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value))
        if not match:
            raise InputError(where, f"judge timeout must be a duration such as 5s or 500ms, got {value!r}")
        number, unit = float(match.group(1)), match.group(2) or "s"
        seconds = number / 1000 if unit == "ms" else number * 60 if unit == "m" else number
    if not seconds > 0:
        raise InputError(where, f"judge timeout must be more than zero, got {value!r}")
    return seconds


def normalise_endpoint(value, where: str) -> str:
    """A base URL; ``.../chat/completions`` is cut back to its base."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(where, "judge endpoint must be a URL such as https://api.openai.com/v1")
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(where, f"judge endpoint must be an http(s) URL, got {value!r}")
    if parts.username or parts.password:
        raise InputError(where, "judge endpoint must not carry credentials; name an environment "
                                "variable with api_key_env instead")
    if re.search(r"(^|&)(api[-_]?key|key|token)=", parts.query, re.I):
        raise InputError(where, "judge endpoint must not carry a key in its query; name an "
                                "environment variable with api_key_env instead")
    path = parts.path.rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _positive_int(value, where, what) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(where, f"judge {what} must be a positive whole number, got {value!r}")
    return value


def parse_entry(entry, where: str) -> JudgeSpec:
    if not isinstance(entry, dict):
        raise InputError(where, "each judge must be a mapping with endpoint, api_key_env, model, ...")
    for key in entry:
        folded = str(key).lower().replace("-", "_")
        if folded in SECRET_KEYS or (folded.endswith(("_key", "_token", "_secret")) and folded != "api_key_env"):
            raise InputError(where, f"judge key {key!r}: never write a key in the config file; put it "
                                    "in an environment variable and name that variable with api_key_env")
        if key not in ALLOWED_KEYS:
            raise InputError(where, f"unknown judge field {key!r} (expected {', '.join(ALLOWED_KEYS)})")
    if "endpoint" not in entry:
        raise InputError(where, "judge has no endpoint (an OpenAI-compatible base URL)")
    base_url = normalise_endpoint(entry["endpoint"], where)
    model = entry.get("model")
    if model is None:
        raise InputError(where, "judge has no model")
    if not isinstance(model, str) or not model.strip():
        raise InputError(where, f"judge model must be a name such as gpt-5-mini, got {model!r}")
    env = entry.get("api_key_env")
    if env is not None:
        if not isinstance(env, str) or _KEY_LIKE.match(env) and not env.isupper():
            raise InputError(where, "api_key_env names an environment variable (such as "
                                    "OPENAI_API_KEY), not the key itself")
        if not _ENV_NAME.match(env):
            raise InputError(where, f"api_key_env must be an environment variable name, got {env!r}")
    timeout = parse_timeout(entry.get("timeout", DEFAULT_TIMEOUT_S), where)
    budget = _positive_int(entry.get("budget_tokens", DEFAULT_BUDGET_TOKENS), where, "budget_tokens")
    max_tokens = _positive_int(entry.get("max_tokens", DEFAULT_MAX_TOKENS), where, "max_tokens")
    temperature = entry.get("temperature")
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
                or not 0 <= temperature <= 2:
            raise InputError(where, f"judge temperature must be a number from 0 to 2, got {temperature!r}")
        temperature = float(temperature)
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InputError(where, f"judge name must be a non-empty string, got {name!r}")
    if name is None:
        name = f"{model.strip()}@{urlsplit(base_url).netloc}"
    return JudgeSpec(name=name.strip(), base_url=base_url, model=model.strip(), api_key_env=env,
                     timeout_s=timeout, budget_tokens=budget, max_tokens=max_tokens,
                     temperature=temperature, where=where)


def parse_judges(entries) -> list[JudgeSpec]:
    """``config.judges`` (``[(entry, "file:line"), ...]``) to specs, in order."""
    specs, seen = [], {}
    for entry, where in entries:
        spec = parse_entry(entry, where)
        if spec.name == "jury":
            raise InputError(where, "judge name 'jury' is reserved for the combined note")
        if spec.name in seen:
            raise InputError(where, f"judge {spec.name!r} is configured twice (first at {seen[spec.name]}); "
                                    "give one a distinct name")
        seen[spec.name] = where
        specs.append(spec)
    return specs


def read_key(spec: JudgeSpec, environ) -> str | None:
    """The bearer key from the environment; a missing variable is a usage error."""
    if spec.api_key_env is None:
        return None
    value = environ.get(spec.api_key_env)
    if not value:
        raise InputError(spec.where, f"environment variable {spec.api_key_env} (api_key_env of judge "
                                     f"{spec.name!r}) is not set")
    return value
