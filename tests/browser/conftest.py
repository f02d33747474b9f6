"""A real Chromium driving a real `wrangler serve` (own process, real store, real redis-server).

One browser for the whole test session (starting Chromium is the slow part); every test opens the
URLs it needs and waits for the screen to say its data is drawn (``<body data-ready>``). Screenshots
go to ``tests/browser/artifacts/`` (git-ignored), with ``layout-timing.json``.

Chromium runs headless with the flags that keep it off the network (background networking,
component updates, sync, first-run tasks): on a machine without internet they would otherwise
make it wait. Chromium and ChromeDriver come from Debian (`chromium`, `chromium-driver`), which
``scripts/bootstrap.sh`` installs when missing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.browser.scenario import Scenario, record
from tests.conftest import ROOT, RedisProcess, free_port

ARTIFACTS = Path(__file__).parent / "artifacts"
TOKEN = "browser-test-token-0123456789"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")
WAIT_SECONDS = 20.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.browser)


def chromium_binaries() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.fail("Chromium and ChromeDriver are needed: run scripts/bootstrap.sh "
                    "(it installs Debian's chromium and chromium-driver with apt)")
    return browser, driver


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@dataclass
class Server:
    """A `wrangler serve` process on a free port."""

    base: str
    process: subprocess.Popen[str]
    log: Path

    def url(self, path: str) -> str:
        return self.base + path


def _start_server(store: Path, redis: RedisProcess, directory: Path, *extra: str) -> Server:
    port = free_port()
    log = directory / f"serve-{port}.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--store",
             str(store), "--redis", redis.url, "--cache-prefix", f"ui{port}", "--no-access-log", *extra],
            cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=stderr, text=True,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"wrangler serve exited: {log.read_text()}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return Server(base, process, log)
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    process.kill()
    pytest.fail(f"wrangler serve did not answer: {log.read_text()}")


def _stop(server: Server) -> None:
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return record(tmp_path_factory.mktemp("ui-store") / "lineage.db")


@pytest.fixture(scope="session")
def server(scenario: Scenario, redis_server: RedisProcess,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = _start_server(scenario.store_path, redis_server, tmp_path_factory.mktemp("ui-server"))
    yield running
    _stop(running)


@pytest.fixture(scope="session")
def auth_server(scenario: Scenario, redis_server: RedisProcess,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("ui-auth")
    tokens = directory / "tokens.json"
    tokens.write_text(json.dumps({"hr": [TOKEN]}))
    running = _start_server(scenario.store_path, redis_server, directory, "--auth", str(tokens))
    yield running
    _stop(running)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = chromium_binaries()
    os.environ.setdefault("SE_AVOID_STATS", "true")
    profile = tempfile.mkdtemp(prefix="wl-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1440,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[Page]:
    """The browser on a fresh tab state (no stored namespace or token), failing on any script error."""
    browser.get(server.url("/static/app.css"))  # an origin page to clear the storage of
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    browser.get_log("browser")
    yield Page(browser, server)
    # answers the screens expect (a 400 for a recipe that does not parse, a 404 for a run that does not exist)
    # are logged as "Failed to load resource"; script errors are not
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
              and "Failed to load resource" not in entry["message"]]
    assert not errors, errors


class Page:
    """A few verbs over WebDriver, in the words of the screens."""

    def __init__(self, driver: Any, server: Server) -> None:
        self.driver = driver
        self.server = server

    def open(self, path: str, screen: str | None = None) -> None:
        self.driver.get(self.server.url(path))
        self.wait_ready(screen)

    def wait(self, condition: Callable[[Any], Any], message: str = "", timeout: float = WAIT_SECONDS) -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(condition, message)

    def wait_ready(self, screen: str | None = None) -> None:
        """Until the screen has drawn its data and (graphs) every answer it asked for has arrived."""
        script = ("const b = document.body.dataset;"
                  "return b.ready === 'true' && b.settled !== 'false' ? b.screen : null")
        self.wait(lambda d: (found := d.execute_script(script)) and (screen is None or found == screen),
                  f"screen {screen} never got ready")

    def css(self, selector: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector: str = "main") -> str:
        return str(self.css(selector).text)

    def link(self, text: str, within: str = "main") -> Any:
        from selenium.webdriver.common.by import By

        return self.css(within).find_element(By.LINK_TEXT, text)

    def nodes(self) -> list[dict[str, Any]]:
        """The graph's nodes as drawn: label, classes, and whether they are dimmed by a trace."""
        return list(self.driver.execute_script("""
            return [...document.querySelectorAll('svg.graph .node')].map((g) => ({
              id: g.dataset.id, label: g.querySelector('.label').textContent,
              sub: g.querySelector('.sub') ? g.querySelector('.sub').textContent : '',
              classes: g.getAttribute('class'),
              more: [...g.querySelectorAll('.more')].map((m) => m.getAttribute('class')),
              dimmed: getComputedStyle(g).opacity < 0.5}));"""))

    def labels(self) -> set[str]:
        return {node["label"] for node in self.nodes()}

    def node(self, label: str, kind: str | None = None) -> Any:
        from selenium.webdriver.common.by import By

        for element in self.driver.find_elements(By.CSS_SELECTOR, "svg.graph .node"):
            if element.find_element(By.CSS_SELECTOR, ".label").text == label and (
                    kind is None or kind in element.get_attribute("class").split()):
                return element
        raise AssertionError(f"no node {label!r} ({kind or 'any kind'}) in {sorted(self.labels())}")

    def path(self) -> str:
        return str(self.driver.execute_script("return location.pathname + location.search"))

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        target = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(target))
        return target
