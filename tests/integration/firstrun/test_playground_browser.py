"""The playground page in a real headless Chromium, driven by Playwright."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.conftest import REPO, free_port, stop_process, wait_for_port

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("SCRUBBER_ARTIFACTS", REPO / "artifacts"))
SAMPLE = (
    "Hi, this is Dana Whitfield. My SSN is 524-59-3318, the last four of my card are 4242.\n"
    "Mail dana.whitfield@example.com or call (415) 555-0142."
)


@pytest.fixture(scope="module")
def admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    cfg = tmp_path_factory.mktemp("playground") / "scrubber.yaml"
    cfg.write_text(f"admin:\n  listen: 127.0.0.1:{port}\n  playground: true\n")
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "scrubber"), "run", "--config", str(cfg), "--admin-only"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc, timeout=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc, grace=10)


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 900})
        finally:
            browser.close()


def marked(page: Page) -> list[tuple[str, str]]:
    return [
        (m.get_attribute("data-entity") or "", m.inner_text())
        for m in page.locator("#highlighted mark").all()
    ]


def test_paste_and_move_the_dial(admin_url: str, page: Page) -> None:
    page.goto(f"{admin_url}/playground")
    # The first answer builds the level-7 engine (rules compiled): seconds, minutes on a busy machine.
    page.wait_for_selector("body[data-state=ready]", timeout=180_000)
    page.fill("#input", SAMPLE)
    page.wait_for_function("document.querySelector('#highlighted').textContent.includes('Dana')")
    page.wait_for_selector("#highlighted mark[data-entity=EMAIL_ADDRESS]")
    at7 = dict(marked(page))
    assert at7["US_SSN"] == "524-59-3318"
    assert at7["EMAIL_ADDRESS"] == "dana.whitfield@example.com"
    assert at7["PHONE_NUMBER"] == "(415) 555-0142"
    assert at7["CREDIT_CARD"] == "4242"
    assert "524-59-3318" not in page.inner_text("#scrubbed")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "playground-level7.png"), full_page=True)

    # Move the dial down with the keyboard, as a person would: level 7 -> 2.
    page.focus("#level")
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.querySelector('#level-value').textContent === '2'")
    page.wait_for_function("!document.querySelector('#highlighted mark[data-entity=EMAIL_ADDRESS]')")
    at2 = {entity for entity, _ in marked(page)}
    assert at2 == {"US_SSN", "CREDIT_CARD"}
    assert "dana.whitfield@example.com" in page.inner_text("#scrubbed")
    off = page.locator("#dial-entities li.off").all_inner_texts()
    assert "level 3: EMAIL_ADDRESS" in off and "level 2: US_SSN" not in off
    page.screenshot(path=str(ARTIFACTS / "playground-level2.png"), full_page=True)


def test_operator_mask_keeps_last_digits(admin_url: str, page: Page) -> None:
    page.goto(f"{admin_url}/playground")
    page.wait_for_selector("body[data-state=ready]")
    page.fill("#input", "SSN 524-59-3318")
    page.select_option("#operator", "mask")
    page.wait_for_function("document.querySelector('#scrubbed').textContent === 'SSN ***-**-3318'")
