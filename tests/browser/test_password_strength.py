"""Issue 19 item 6 in the browser: creating a vault shows the password's estimated
strength as it is typed (a meter and a line of text); a weak password needs the
"Use this weak password anyway" tick before the vault is made, a strong one does not.
One directory of its own, at desktop size."""

import time

import pytest

from conftest import chromium, serving, shoot
from test_gallery import UNLOCK_WAIT, el, shown, text, type_into, wait

WEAK = "password1"
STRONG = "glacier ribbon tundra vortex mango"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strength")
    # The production KDF: the strength shown is judged against the directory's.
    with serving(folder, auto_lock_unit_seconds=60, production_kdf=True) as server, chromium(folder) as page:
        page.get(server.link)
        wait(page, lambda: shown(page, "#create-confirm"), 15, "the create form")
        page.server = server
        yield page


def strength_text(page):
    return page.execute_script("return document.querySelector('.strength-text')?.textContent ?? ''")


def confirm_box(page):
    return page.execute_script(
        "const c = document.querySelector('.strength-confirm');"
        "return c ? {shown: !c.hidden && !c.closest('[hidden]'), checked: c.querySelector('input').checked,"
        " focused: document.activeElement === c.querySelector('input')} : null")


def test_a_weak_password_shows_the_warning_and_needs_the_tick(page):
    type_into(page, "#unlock-password", WEAK)
    wait(page, lambda: "very weak" in strength_text(page), 10, lambda: f"the estimate: {strength_text(page)!r}")
    assert "a common password" in strength_text(page)
    assert "One GPU would need" in strength_text(page)
    assert "10^" not in strength_text(page), "a power of ten means nothing to most people"
    assert page.execute_script("return document.querySelector('.strength meter').value") == 0.4  # a sliver
    assert confirm_box(page)["shown"]
    type_into(page, "#create-confirm", WEAK)
    shoot(page, "strength-weak")
    el(page, "#unlock-submit").click()
    wait(page, lambda: "weak" in text(page, "#unlock-error"), 10, "the refusal")
    assert not shown(page, "#app-view")
    assert confirm_box(page)["focused"]
    # The server refuses it too without the tick.
    status = page.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/app/api.js').then(api => api.post('/api/vaults', {password: arguments[0]}))"
        ".then(() => done(201), (e) => done(e.status));", WEAK)
    assert status == 422
    el(page, ".strength-confirm input").click()
    el(page, "#unlock-submit").click()
    wait(page, lambda: shown(page, "#app-view"), UNLOCK_WAIT, "the gallery of the weak-password vault")


def test_a_strong_password_needs_no_tick(page):
    el(page, "#lock-button").click()
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault", 10, "the unlock form")
    el(page, "#create-toggle").click()
    wait(page, lambda: shown(page, "#create-confirm"), 5, "the create form")
    # Issue 40, point 20: the refusal of a weak password must not stay under a strong one.
    type_into(page, "#unlock-password", WEAK)
    type_into(page, "#create-confirm", WEAK)
    wait(page, lambda: "very weak" in strength_text(page), 10, "the weak estimate")
    el(page, "#unlock-submit").click()
    wait(page, lambda: "weak" in text(page, "#unlock-error") and shown(page, "#unlock-error"), 10, "the refusal")
    type_into(page, "#unlock-password", STRONG)
    wait(page, lambda: "Strength: very strong" in strength_text(page) or "Strength: strong" in strength_text(page), 10,
         lambda: f"the estimate: {strength_text(page)!r}")
    assert not confirm_box(page)["shown"]
    wait(page, lambda: not shown(page, "#unlock-error"), 5, lambda: "the refusal gone, not: " + text(page, "#unlock-error"))
    type_into(page, "#create-confirm", STRONG)
    shoot(page, "strength-strong")
    el(page, "#unlock-submit").click()
    wait(page, lambda: shown(page, "#app-view"), UNLOCK_WAIT, "the gallery of the strong-password vault")


def test_unlocking_shows_no_meter(page):
    el(page, "#lock-button").click()
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault", 10, "the unlock form")
    type_into(page, "#unlock-password", WEAK)
    time.sleep(0.8)  # past the 300 ms debounce
    assert not page.execute_script("const s = document.querySelector('.strength'); return s && !s.hidden")
