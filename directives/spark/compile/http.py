"""`invoke-http`: POST each row's columns as JSON to a service, per partition with a bounded pool of calls.

Wrangler calls the service once per row and sets every key of the JSON object it answers as a column. Here a
pandas UDF takes a partition's rows a batch at a time and sends them through a thread pool of at most
`spark.wrangler.http.poolSize` calls at once (default 8), each with a timeout (`spark.wrangler.http.timeout`
seconds, default 30) and retried (`spark.wrangler.http.retries`, default 2, with exponential back-off) when the
connection fails or the service answers 429 or 5xx. A row whose call still fails, or whose answer is not a JSON
object, goes to the error output with the reason, as Wrangler sends it to its error port.

The answers decide which columns exist, so the called frame is checkpointed (`localCheckpoint`) as soon as it
is compiled: the service is called once per row, not once to learn the columns and again for the output.
Only active rows are sent (a row already in error, or filtered, is not).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.catalog.external import InvokeHttp
from directives.spark.compile.decoded import _merge_orders
from directives.spark.compile.variant_schema import VariantType, parse_variant_schema, variant_path, variant_value
from directives.spark.compilers import compiles, python_udf
from directives.spark.runtime.frame import Frame, RunContext

python_udf(InvokeHttp, "Spark cannot call an HTTP service; a pandas UDF calls it per partition with a bounded pool")

_ANSWER = "__wr_http"
ANSWER_TYPE = T.StructType([T.StructField("body", T.StringType()), T.StructField("keys", T.ArrayType(T.StringType())),
                            T.StructField("error", T.StringType())])
RETRYABLE = frozenset({429, 500, 502, 503, 504})


class _PostRedirects(urllib.request.HTTPRedirectHandler):
    """Apache HttpClient's DefaultRedirectStrategy for a POST: only 303 See Other is followed (as a GET); a 301,
    302, 307 or 308 answer is the answer (status >= 300: the row fails), where urllib would re-send as GET."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        return super().redirect_request(req, fp, code, msg, headers, newurl) if code == 303 else None


_OPENER = urllib.request.build_opener(_PostRedirects())


def call_service(url: str, body: str, headers: dict[str, str], timeout: float, retries: int,
                 backoff: float = 0.2) -> tuple[str | None, list[str] | None, str | None]:
    """One POST, retried on connection failures and 429/5xx: the answer object as JSON and its keys, or why not."""
    request_headers = {"Content-type": "application/json; charset=UTF-8", **headers}
    error = ""
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        request = urllib.request.Request(url, data=body.encode("utf-8"), headers=request_headers, method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as response:
                status, text = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as failure:
            error = f"status code: {failure.code}, reason phrase: {failure.reason}"
            if failure.code in RETRYABLE:
                continue
            return None, None, error
        except (urllib.error.URLError, OSError) as failure:  # refused, reset, timed out: worth another try
            error = str(getattr(failure, "reason", failure))
            continue
        if status >= 300:  # a redirect urllib did not follow
            return None, None, f"status code: {status}"
        if not text:
            return None, None, "Response contains no content"
        try:
            answer = json.loads(text)
        except ValueError as failure:
            return None, None, f"The response is not JSON: {failure}"
        if not isinstance(answer, dict):
            return None, None, "The response is not a JSON object."
        return json.dumps(answer), list(answer), None
    return None, None, f"{error} (after {retries + 1} attempts)"


def _caller(url: str, headers: dict[str, str], pool: int, timeout: float, retries: int) -> Any:
    """The pandas UDF (series of batches in, one frame of answers out per batch). pandas is imported here, not
    with the module: the external family's other directives should not pay for it."""
    import pandas as pd

    def call(batches: Any) -> Any:
        with ThreadPoolExecutor(max_workers=pool) as executor:
            for active, bodies in batches:
                work = [executor.submit(call_service, url, body, headers, timeout, retries) if on else None
                        for on, body in zip(active, bodies, strict=True)]
                answers = [(None, None, None) if job is None else job.result() for job in work]
                yield pd.DataFrame(answers, columns=["body", "keys", "error"])

    # PySpark tells an iterator-of-batches UDF from its type hints: give them as objects (this module's
    # annotations are strings, and pandas is not among its globals)
    call.__annotations__ = {"batches": Iterator[tuple[pd.Series, pd.Series]], "return": Iterator[pd.DataFrame]}
    return F.pandas_udf(call, ANSWER_TYPE)  # type: ignore[call-overload]


def _conf(spark: SparkSession, key: str, default: str) -> str:
    return str(spark.conf.get(f"spark.wrangler.http.{key}", default))


@compiles(InvokeHttp)
def invoke_http(d: InvokeHttp, frame: Frame, ctx: RunContext) -> Frame:
    spark = ctx.spark if isinstance(ctx.spark, SparkSession) else SparkSession.getActiveSession()
    assert spark is not None
    pool, timeout = int(_conf(spark, "poolSize", "8")), float(_conf(spark, "timeout", "30"))
    retries = int(_conf(spark, "retries", "2"))
    present = [(name, frame.find(name.strip())) for name in d.column]
    fields = [frame.col(actual).alias(name.strip()) for name, actual in present if actual is not None]
    body = F.to_json(F.struct(*fields)) if fields else F.lit("{}")  # nulls left out, as Gson leaves them out
    caller = _caller(str(d.url), d.headers, max(pool, 1), timeout, max(retries, 0))
    called = frame.df.select("*", caller(frame.active, body).alias(_ANSWER)).localCheckpoint(eager=True)
    ctx.udf_directives.append(d.name)
    frame = frame.with_df(called)
    answer = F.col(_ANSWER)
    found = called.filter(answer["error"].isNull() & answer["body"].isNotNull()).agg(
        F.collect_set(answer["keys"]).alias("orders"),
        F.schema_of_variant_agg(F.parse_json(answer["body"])).alias("shape")).collect()[0]
    shape = parse_variant_schema(found["shape"]) if found["shape"] and found["shape"] != "VOID" else None
    types = dict(shape.fields) if shape is not None else {}
    variant = F.try_parse_json(answer["body"])
    step = frame.step(d)
    for key in _merge_orders(found["orders"] or []):
        kind = types.get(key, VariantType("VOID"))
        value = variant_value(variant, variant_path((key,)), kind)
        if kind.kind in ("BIGINT", "DECIMAL"):  # Gson reads every JSON number as a Double
            value = value.cast("double")
        step.set(key, value)
    step.fail_when(answer["error"].isNotNull(), F.concat(F.lit("invoke-http: "), answer["error"]))
    return step.build()
