"""Retry-After as the crawler and the judges read it."""

import email.utils
import time

from mcpdelta.retry_after import retry_after


def test_delta_seconds_and_dates():
    assert retry_after("3") == 3.0
    assert retry_after(" 0.5 ") == 0.5
    assert retry_after("-4") == 0.0
    in_ten = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8.0 <= retry_after(in_ten) <= 10.0
    assert retry_after(email.utils.formatdate(time.time() - 60, usegmt=True)) == 0.0


def test_absent_or_unreadable_is_none():
    assert retry_after(None) is None
    assert retry_after("") is None
    assert retry_after("soon") is None
