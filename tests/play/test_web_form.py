"""The create form in headless Chromium plays the game chosen: it sends only what the person
changed, so a dominoes variant keeps its own scoring, layout and target, and every choice reads
in words (no env ids, no reward shaping)."""

from __future__ import annotations

import json

import pytest

from tests.play.test_web_browser import browser, server, sync_api  # noqa: F401 - the module's fixtures

#: variant -> what the table's first line says of it, and its target (RULES: the Fives family)
VARIANTS = {
    "muggins": ("fives, line", 200),
    "all_fives": ("fives, one spinner", 200),
    "sniff": ("fives, one spinner", 200),
    "five_up": ("per_five, every double a spinner", 61),
    "all_threes": ("threes, line", 200),
    "primes": ("primes, line", 200),
    "fives_1863": ("per_five, line", 31),
    "fives_and_threes": ("fives_and_threes, line", 61),
}


def _create_by_form(page, base: str, game: str, choices: dict[str, str]) -> tuple[dict, str]:
    """Fill the form (``choices``: option -> the option's value as the form holds it) and create;
    returns the body it posted and the first seat link."""
    sent = []
    page.on("request", lambda r: sent.append(r.post_data) if r.url.endswith("/api/tables") else None)
    page.goto(base + "/")
    page.select_option("#game", game)
    for name, value in choices.items():
        page.select_option(f'[data-option="{name}"]', value)
    page.click("#create-btn")
    link = page.locator(".seat-link").first
    link.wait_for()
    return json.loads(sent[-1]), link.get_attribute("href")


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_dominoes_variant_made_in_the_form_plays_its_own_rules(server, browser, variant):  # noqa: F811
    rules, target = VARIANTS[variant]
    page = browser.new_page()
    try:
        body, link = _create_by_form(page, server, "muggins_dominoes_v0", {"variant": json.dumps(variant)})
        assert body["options"] == ({} if variant == "muggins" else {"variant": variant})
        assert body["seats"] == ["human", "heuristic"]
        page.goto(server + link)
        page.wait_for_function("typeof state !== 'undefined' && state !== null")
        first = page.evaluate("state.text").splitlines()[0]
        assert f"({variant}: {rules}, double-6, 2 players)" in first
        assert page.evaluate("state.view.target") == target
        assert page.evaluate("state.options") == body["options"]
    finally:
        page.close()


def test_the_form_speaks_words_and_sends_only_changes(server, browser):  # noqa: F811
    page = browser.new_page()
    try:
        page.goto(server + "/")
        # the games arrive from /api/games after the page loads; reading them sooner reads none
        page.wait_for_function("document.querySelectorAll('#game option').length > 0")
        titles = page.locator("#game option").all_inner_texts()
        assert "Cribbage with muggins counting" in titles and not any(t.endswith("_v0") for t in titles)
        page.select_option("#game", "cribbage_v0")
        labels = page.locator("#options label").all_inner_texts()
        assert any(t.startswith("Game to") for t in labels) and not any("reward" in t.lower() for t in labels)
        assert not any("_" in t.split("\n")[0] for t in labels)
        page.select_option("#game", "muggins_dominoes_v0")
        page.select_option('[data-option="variant"]', json.dumps("five_up"))
        auto = page.locator('[data-option="scoring"] option[value="auto"]').inner_text()
        assert auto == "automatic (per five)"  # what the variant makes of it, in words
        body, _ = _create_by_form(page, server, "cribbage_v0", {"target": "61"})
        assert body["options"] == {"target": 61}
    finally:
        page.close()
