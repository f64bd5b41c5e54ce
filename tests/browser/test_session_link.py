"""Coming back without the printed link (issue 40, point 12): a bookmark, a reopened
browser, a server restarted since. The page says what happened and how to get in, and a
right password is never called wrong when the server refused the request for want of a
session before any password was tried."""

from conftest import chromium, serving
from test_gallery import PASSWORD, UNLOCK_WAIT, create_first_vault, shown, submit_unlock, text, unlock, wait


def test_a_tab_without_its_link_is_told_how_to_get_in(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        # The session is gone, as when the browser was closed or the server restarted.
        driver.delete_all_cookies()
        driver.get(server.url + "/")
        wait(driver, lambda: shown(driver, "#unlock-notice"), 15, "the unlock page's notice")
        notice = text(driver, "#unlock-notice")
        assert "obscura serve" in notice and "#token=" in notice and "start it again" in notice, notice
        assert not notice.startswith("no session"), "the server's raw message is no explanation"

        submit_unlock(driver, PASSWORD)
        wait(driver, lambda: shown(driver, "#unlock-error"), UNLOCK_WAIT, "an answer to the unlock")
        error = text(driver, "#unlock-error")
        assert "Wrong password" not in error, "the right password was called wrong: " + error
        assert "#token=" in error, error
        assert not shown(driver, "#app-view")

        # A link from an earlier start of the server: its token is refused, and said so.
        driver.get(server.url + "/#token=" + "0" * 64)
        wait(driver, lambda: "earlier start" in text(driver, "#unlock-notice"), 15,
             lambda: "a stale link explained, not: " + text(driver, "#unlock-notice"))

        # The printed link still lets the right password in.
        driver.get(server.link)
        wait(driver, lambda: shown(driver, "#unlock-password") and not shown(driver, "#unlock-notice"), 15,
             lambda: "the unlock page without a notice, not: " + text(driver, "#unlock-notice"))
        unlock(driver, PASSWORD)
