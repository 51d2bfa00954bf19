"""A failed S3 call as one line naming what went wrong, never a secret:
read by the object-store lake (``objectstore``) and its lease (``lease``).
"""

from mcpdelta.errors import InputError

_REFUSED = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken",
            "ExpiredToken", "TokenRefreshRequired", "InvalidClientTokenId", "AuthorizationHeaderMalformed",
            "403"}
# pyarrow's spelling of the same errors, in its messages ("AWS Error ACCESS_DENIED ...")
_ARROW = {"ACCESS_DENIED": "AccessDenied", "SIGNATURE_DOES_NOT_MATCH": "SignatureDoesNotMatch",
          "INVALID_ACCESS_KEY_ID": "InvalidAccessKeyId", "NO_SUCH_BUCKET": "NoSuchBucket",
          "NETWORK_CONNECTION": "unreachable", "UNKNOWN (HTTP status 403)": "403"}


def describe_error(exc, code=None) -> str:
    """What went wrong, in words (no URL, key or header of the request)."""
    import botocore.exceptions as E

    if code is None and isinstance(exc, E.ClientError):
        code = exc.response.get("Error", {}).get("Code") or str(
            exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
    if code in _REFUSED:
        return f"the AWS credentials were refused ({code})"
    if code in ("NoSuchBucket", "404") and code is not None:
        return "no such bucket" if code == "NoSuchBucket" else "not found"
    if code == "unreachable" or isinstance(exc, (E.EndpointConnectionError, E.ConnectTimeoutError,
                                                 E.ReadTimeoutError, E.ConnectionClosedError)):
        return "cannot reach the S3 endpoint (is AWS_ENDPOINT_URL right, and the server up?)"
    if isinstance(exc, E.ProfileNotFound):
        return f"no AWS profile named {exc.kwargs.get('profile')!r}"
    if isinstance(exc, (E.NoCredentialsError, E.PartialCredentialsError)):
        return "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)"
    if code:
        message = exc.response.get("Error", {}).get("Message") if isinstance(exc, E.ClientError) else ""
        return f"S3 answered {code}" + (f": {message}" if message else "")
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def failure(where: str, exc, s3=None) -> InputError:
    """The ``InputError`` for a failed S3 call (boto3's or pyarrow's),
    with any secret the settings hold masked out of it."""
    if isinstance(exc, InputError):
        return exc
    code = None
    if isinstance(exc, OSError) and "AWS Error" in str(exc):
        text = str(exc)
        code = next((v for k, v in _ARROW.items() if f"AWS Error {k}" in text), None)
        if code is None:
            code = "error: " + text.split("AWS Error", 1)[1].split(":")[0].strip()[:80]
    problem = describe_error(exc, code)
    for secret in (s3.secrets if s3 else ()):
        problem = problem.replace(secret, "***")
    return InputError(where, problem)


def client_errors() -> tuple:
    """The exceptions a boto3 call raises when it fails (botocore is
    imported when a call is first made, not with the lake)."""
    import botocore.exceptions as E

    return (E.BotoCoreError, E.ClientError)


def status(exc) -> int:
    """The HTTP status of a failed boto3 call (0: none came back)."""
    try:
        return int(exc.response["ResponseMetadata"]["HTTPStatusCode"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0
