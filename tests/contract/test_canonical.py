"""RFC 8785 canonical form, checked against the RFC's own vectors.

Vectors are from RFC 8785 itself: Appendix B (number serialisation, by
IEEE-754 bit pattern), section 3.2.2 (the transformation example: numbers,
escaping, literals), section 3.2.3 (property sorting by UTF-16 code units,
with a non-BMP key) and section 3.2.4 (the UTF-8 bytes of 3.2.2's output).
``rfc8785`` 0.1.4 passes all of them; it refuses integers beyond 2^53, which
``jcs`` therefore turns into doubles as JSON.stringify does (tested below).
"""

import json
import math
import shutil
import struct
import subprocess

import pytest
import rfc8785
from hypothesis import given, settings, strategies as st

from mcpdelta import contract as C
from mcpdelta.contract import CanonicalError, jcs

APPENDIX_B = [
    ("0000000000000000", "0"),                         # zero
    ("8000000000000000", "0"),                         # minus zero
    ("0000000000000001", "5e-324"),                    # min pos number
    ("8000000000000001", "-5e-324"),                   # min neg number
    ("7fefffffffffffff", "1.7976931348623157e+308"),   # max pos number
    ("ffefffffffffffff", "-1.7976931348623157e+308"),  # max neg number
    ("4340000000000000", "9007199254740992"),          # max pos int
    ("c340000000000000", "-9007199254740992"),         # max neg int
    ("4430000000000000", "295147905179352830000"),     # ~2**68
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),        # round to even
]


def _double(hexbits):
    return struct.unpack(">d", bytes.fromhex(hexbits))[0]


@pytest.mark.parametrize("hexbits,expected", APPENDIX_B, ids=[h for h, _ in APPENDIX_B])
def test_appendix_b_numbers(hexbits, expected):
    assert jcs(_double(hexbits)) == expected.encode()


@pytest.mark.parametrize("hexbits", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_appendix_b_nan_and_infinity_are_refused(hexbits):
    with pytest.raises(CanonicalError):
        jcs(_double(hexbits))


@pytest.mark.parametrize("text,expected", [
    ("1e21", "1e+21"),
    ("1E21", "1e+21"),
    ("1e-7", "1e-7"),
    ("-0", "0"),
    ("-0.0", "0"),
    ("5e-324", "5e-324"),
    ("9007199254740993", "9007199254740992"),   # 2^53+1 as given: the nearest double is 2^53
    ("9007199254740992", "9007199254740992"),
    ("9007199254740991", "9007199254740991"),   # the largest integer rfc8785 accepts itself
    ("9223372036854775807", "9223372036854776000"),    # int64 max, as JSON.stringify prints it
    ("-9223372036854775808", "-9223372036854776000"),
    ("18446744073709551615", "18446744073709552000"),  # uint64 max
    ("1.0", "1"),
    ("0.000001", "0.000001"),
])
def test_numbers_as_json_text(text, expected):
    """Numbers as they arrive in a manifest: parsed by Python's json, where
    integers stay ints however large."""
    assert jcs(json.loads(text)) == expected.encode()
    assert jcs([json.loads(text)]) == f"[{expected}]".encode()


SECTION_3_2_2_INPUT = r'''{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}'''
SECTION_3_2_2_OUTPUT = (r'{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
                        r'"string":"€$\u000f\nA' + "'" + r'B\"\\\\\"/"}')
SECTION_3_2_4_BYTES = """
7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d
"""


def test_section_3_2_2_transformation_and_escaping():
    assert jcs(json.loads(SECTION_3_2_2_INPUT)).decode() == SECTION_3_2_2_OUTPUT


def test_section_3_2_4_utf8_bytes():
    assert jcs(json.loads(SECTION_3_2_2_INPUT)) == bytes.fromhex(SECTION_3_2_4_BYTES)


SECTION_3_2_3_INPUT = r'''{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}'''
SECTION_3_2_3_ORDER = ["Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis",
                       "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"]


def test_section_3_2_3_utf16_key_order_with_a_non_bmp_key():
    out = jcs(json.loads(SECTION_3_2_3_INPUT)).decode()
    assert list(json.loads(out).values()) == SECTION_3_2_3_ORDER
    # code point order would put the emoji (U+1F600) after the Hebrew letter (U+FB33)
    assert out.index("\U0001F600") < out.index("\ufb33")
    assert out.startswith('{"\\r":"Carriage Return","1":"One","\u0080":"Control"')


def test_lone_surrogate_is_refused():
    with pytest.raises(CanonicalError):
        jcs({"k": "\ud800"})
    with pytest.raises(CanonicalError):
        jcs({"k": ["x", 0.5, "\udc00"]})  # the library path too


def test_number_beyond_double_range_is_refused():
    with pytest.raises(CanonicalError):
        jcs({"maximum": 10**400})


# --- the fast path is held to the library, byte for byte ---------------------------

_keys = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6)
_scalars = (st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.integers(-(2**80), 2**80)
            | st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
            | st.floats(allow_nan=False, allow_infinity=False))
_json = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(_keys, kids, max_size=4), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_json)
def test_jcs_equals_rfc8785_on_doubles(value):
    """The library, given integers past 2^53 as the doubles JSON makes them."""
    assert jcs(value) == rfc8785.dumps(C._as_doubles(value))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "\ue000", "\uffff", "\U0001F600", "\U00010000", "z"]),
                       st.integers(0, 9), min_size=2))
def test_keys_around_the_surrogate_range_sort_by_utf16(value):
    out = json.loads(jcs(value))
    assert list(out) == sorted(value, key=lambda k: k.encode("utf-16-be"))


@pytest.mark.parametrize("number", [
    1e-4, 0.00009999999999999999, 0.5, 1.5, 123456789012345.67, 4503599627370495.5, 1e16, 1e16 + 2,
    9.999999999999998e15, 1.0, -0.0, 2.0**53, 2.0**53 + 2, 1e20, 1e21, 1e22, 5e-324, 1e-7,
    2**53, 2**53 + 1, 10**21 - 1, 10**21, 999999999999999999999, -(10**20) - 1, 2**70, 10**308, 10**309,
])
def test_both_paths_agree_at_the_fast_path_boundaries(number):
    """Where ``_fast`` hands over to the library, and just inside."""
    for value in (number, -number, [number], {"k": number, "z": "x"}):
        try:
            expected = rfc8785.dumps(C._as_doubles(value))
        except (rfc8785.CanonicalizationError, OverflowError):
            with pytest.raises(CanonicalError):
                jcs(value)
            continue
        assert jcs(value) == expected


# --- an independent oracle: JSON.stringify in Node, where available ------------------

@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_numbers_match_json_stringify():
    values = [_double(h) for h, _ in APPENDIX_B] + [1e21, 1e-7, 5e-324, 0.1, 1 / 3, 123456789.125]
    bigints = [2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, 10**30 + 7]
    import random
    rng = random.Random(8785)
    while len(values) < 3000:
        x = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
        if math.isfinite(x):
            values.append(x)
    text = json.dumps(values + bigints)  # repr round-trips every double exactly
    node = subprocess.run(["node", "-e", "let s='';process.stdin.on('data',d=>s+=d)"
                           ".on('end',()=>process.stdout.write(JSON.stringify(JSON.parse(s))))"],
                          input=text, capture_output=True, text=True, timeout=60, check=True)
    assert jcs(json.loads(text)).decode() == node.stdout
