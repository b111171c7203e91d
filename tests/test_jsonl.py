"""lib.jsonl: fast JSON lines that read back what the standard library wrote."""
from __future__ import annotations

import json
import math

import pytest

from lib import jsonl


def test_a_line_is_compact_utf8_with_a_newline_and_reads_back():
    rec = {"b": 1, "a": [1.5, None, True], "name": "Zaldívar", "t": (1, 2)}
    line = jsonl.dumps(rec, sort_keys=True)
    assert line == '{"a":[1.5,null,true],"b":1,"name":"Zaldívar","t":[1,2]}\n'.encode()
    assert jsonl.loads(line) == json.loads(json.dumps(rec)) == jsonl.loads(line.decode())


def test_default_and_non_string_keys_as_the_standard_library():
    class Odd:
        def __str__(self):
            return "odd"

    assert jsonl.loads(jsonl.dumps({"x": Odd(), 3: "k"}, default=str)) == {"x": "odd", "3": "k"}
    with pytest.raises(TypeError):
        jsonl.dumps({"x": Odd()})                       # no default: refused, as json.dumps does


def test_old_lines_with_nan_still_read_and_new_ones_write_null():
    old = json.dumps({"v": float("nan"), "w": float("inf")})      # what json.dumps wrote before
    got = jsonl.loads(old)
    assert math.isnan(got["v"]) and got["w"] == math.inf
    assert jsonl.loads(jsonl.dumps({"v": float("nan")})) == {"v": None}


def test_a_bad_line_raises_value_error():
    for bad in (b'{"a": 1', b"not json", b""):
        with pytest.raises(ValueError):
            jsonl.loads(bad)
