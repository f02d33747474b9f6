"""The quiet start of a local driver: errors-only logging from the JVM's first line, without taking the user's
own driver options away. (That the CLI's stderr really is free of Spark's chatter is checked end to end in
tests/cli/test_run_cli.py.)"""

from __future__ import annotations

from directives.spark.runtime.session import QUIET_LOGGING, _quiet_start


def test_the_quiet_log_configuration_ships_with_the_package() -> None:
    text = QUIET_LOGGING.read_text()
    assert "rootLogger.level = error" in text
    assert "org.apache.spark.api.python.PythonGatewayServer" in text  # else Spark announces a WARN level


def test_quiet_logging_is_added_to_the_driver_options() -> None:
    settings: dict[str, str] = {}
    _quiet_start(settings)
    assert settings == {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={QUIET_LOGGING.as_uri()}"}


def test_other_driver_options_are_kept() -> None:
    settings = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}
    _quiet_start(settings)
    options = settings["spark.driver.extraJavaOptions"].split()
    assert options == ["-XX:TieredStopAtLevel=1", f"-Dlog4j2.configurationFile={QUIET_LOGGING.as_uri()}"]


def test_a_log_configuration_of_the_users_own_wins() -> None:
    settings = {"spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile=file:/etc/spark/log4j2.properties"}
    _quiet_start(settings)
    assert settings == {"spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile=file:/etc/spark/log4j2.properties"}
