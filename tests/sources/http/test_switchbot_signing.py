"""The SwitchBot v1.1 request signature and headers that the client and the simulator share."""

from __future__ import annotations

import re
import uuid

from concierge.sources.http.switchbot import CONTENT_TYPE, headers, sign


def test_sign_is_base64_hmac_sha256_of_token_t_nonce():
    # printf %s 'tok1700000000000abc' | openssl dgst -sha256 -hmac sec -binary | base64
    assert sign("tok", "sec", "1700000000000", "abc") == "EbpDdMwP/0yzP+eoJF/QvsF/QYkSSstGBlOa51/DHzU="


def test_the_nonce_and_the_secret_change_the_signature():
    base = sign("tok", "sec", "1700000000000", "abc")
    assert sign("tok", "sec", "1700000000000", "abd") != base
    assert sign("tok", "sed", "1700000000000", "abc") != base


def test_headers_are_lower_case_with_millisecond_time_and_a_fresh_uuid_nonce():
    first = headers("tok", "sec", now=1_700_000_000.123)
    assert set(first) == {"authorization", "t", "nonce", "sign", "content-type"}
    assert first["authorization"] == "tok"
    assert first["t"] == "1700000000123"
    assert first["content-type"] == CONTENT_TYPE == "application/json; charset=utf8"
    uuid.UUID(first["nonce"])
    assert first["sign"] == sign("tok", "sec", first["t"], first["nonce"])
    assert headers("tok", "sec")["nonce"] != headers("tok", "sec")["nonce"]


def test_headers_default_to_the_clock_and_take_a_given_nonce():
    given = headers("tok", "sec", nonce="n-1")
    assert re.fullmatch(r"\d{13}", given["t"])
    assert given["nonce"] == "n-1"
    assert given["sign"] == sign("tok", "sec", given["t"], "n-1")
