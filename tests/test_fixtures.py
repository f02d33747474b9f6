"""The shared fixtures really are a Spark session and a redis-server: later suites rely on both."""

from __future__ import annotations

import socket

import pytest


@pytest.mark.spark
def test_spark_session_is_local_and_quiet(spark) -> None:
    assert spark.sparkContext.master == "local[1]"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.range(5).selectExpr("sum(id) AS total").collect()[0]["total"] == 10


@pytest.mark.redis
def test_redis_server_answers_and_stops(fresh_redis) -> None:
    with socket.create_connection(("127.0.0.1", fresh_redis.port), timeout=1) as sock:
        sock.sendall(b"SET k v\r\nGET k\r\n")
        reply = b""
        while b"$1\r\nv\r\n" not in reply:
            reply += sock.recv(64)
    assert reply.startswith(b"+OK")
    fresh_redis.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", fresh_redis.port), timeout=0.5)
