"""Issue 18 in the browser: the settings dialog's Backup section. `obscura backup init`
sets up a local restic repository beside a running gallery; a change is backed up the
set time after it, "Back up now" makes another snapshot, a failure shows in the page
(and on the settings button) until a backup succeeds again, and the last snapshot taken
by the gallery restores to a vault that opens with the same password. One vault of its
own, at desktop size."""

import json
import os
import subprocess

import pytest

from conftest import FIXTURES, OBSCURA_BIN, chromium, serving, shoot
from test_gallery import PASSWORD, close_uploads, create_first_vault, el, item_count, shown, text, wait

AFTER = "2s"  # the wait after a change; the page offers minutes, the command line any


def obscura(folder, *args, stdin=""):
    env = dict(os.environ, XDG_CONFIG_HOME=str(folder / "config"), XDG_CACHE_HOME=str(folder / "cache"),
               OBSCURA_OUTER_KEY_FILE=str(folder / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(folder / "decoy.key"))
    return subprocess.run([OBSCURA_BIN, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


def snapshots(folder):
    out = obscura(folder, "--vault", str(folder / "vault"), "backup", "list", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A page unlocked on a new vault whose directory backs up to FOLDER/repo."""
    folder = tmp_path_factory.mktemp("backup")
    with serving(folder, auto_lock_unit_seconds=60) as server, chromium(folder) as page:
        create_first_vault(page, server.link)
        setup = obscura(folder, "--vault", str(folder / "vault"), "backup", "init", str(folder / "repo"),
                        "--after", AFTER, "--backup-password-file", str(folder / "backup-password"))
        assert setup.returncode == 0, setup.stderr
        page.folder = folder
        page.server = server
        yield page


def open_settings(page):
    if not shown(page, "#settings-dialog"):
        el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#backup-set"), 10, "the backup section")


def close_settings(page):
    page.execute_script("document.getElementById('settings-dialog').close()")


def test_a_change_is_backed_up_after_the_wait(page):
    el(page, "#file-input").send_keys(str(FIXTURES / "gradient.jpg"))
    wait(page, lambda: item_count(page) == 1, 30, "the photo imported")
    close_uploads(page)
    open_settings(page)
    assert str(page.folder / "repo") in text(page, "#backup-repository")
    wait(page, lambda: "done" in text(page, "#backup-last"), 60, "a finished backup in the page")
    taken = snapshots(page.folder)
    assert taken, "the page says done, but the repository holds no snapshot"
    assert taken[-1]["short_id"] in text(page, "#backup-last")
    shoot(page, "settings-backup")
    close_settings(page)


def test_back_up_now_makes_a_new_snapshot(page):
    before = len(snapshots(page.folder))
    open_settings(page)
    wait(page, lambda: el(page, "#backup-now").is_enabled(), 60, "no backup running")
    el(page, "#backup-now").click()
    wait(page, lambda: len(snapshots(page.folder)) == before + 1, 60, "a snapshot made on request")
    newest = snapshots(page.folder)[-1]["short_id"]
    wait(page, lambda: newest in text(page, "#backup-last"), 10, "the new snapshot in the page")
    assert page.find_element("id", "settings-button").get_attribute("data-backup") is None
    close_settings(page)


def test_a_failed_backup_shows_until_one_succeeds(page):
    repo, away = page.folder / "repo", page.folder / "repo-away"
    open_settings(page)
    wait(page, lambda: el(page, "#backup-now").is_enabled(), 60, "no backup running")
    repo.rename(away)
    try:
        el(page, "#backup-now").click()
        wait(page, lambda: "failed" in text(page, "#backup-last"), 60, "the failure in the page")
        assert "no restic repository" in text(page, "#backup-last")
        assert page.find_element("id", "settings-button").get_attribute("data-backup") == "failed"
        shoot(page, "settings-backup-failed")
    finally:
        away.rename(repo)
    wait(page, lambda: el(page, "#backup-now").is_enabled(), 60, "no backup running")
    el(page, "#backup-now").click()
    wait(page, lambda: "done" in text(page, "#backup-last"), 60, "a backup that succeeds again")
    assert page.find_element("id", "settings-button").get_attribute("data-backup") is None
    close_settings(page)


def test_the_delay_is_saved_from_the_page(page):
    open_settings(page)
    el(page, "#backup-options input[value='600']").click()
    wait(page, lambda: "Saved" in text(page, "#backup-after-status"), 10, "the delay saved")
    out = obscura(page.folder, "--vault", str(page.folder / "vault"), "backup", "status")
    assert "10 minutes after the last change" in out.stdout, out.stdout + out.stderr
    close_settings(page)


def test_the_gallerys_backup_restores_to_a_vault_that_opens(page):
    restored = page.folder / "restored"
    password = (page.folder / "backup-password").read_text().strip()
    out = obscura(page.folder, "backup", "restore", "latest", "--repo", str(page.folder / "repo"),
                  "--to", str(restored), "--password-stdin", stdin=password + "\n")
    assert out.returncode == 0, out.stderr
    listing = obscura(page.folder, "--vault", str(restored), "ls", "--json", "--password-stdin", stdin=PASSWORD + "\n")
    assert listing.returncode == 0, listing.stderr
    assert [item["name"] for item in json.loads(listing.stdout)] == ["gradient.jpg"]
    check = obscura(page.folder, "--vault", str(restored), "verify", "--password-stdin", stdin=PASSWORD + "\n")
    assert check.returncode == 0, check.stdout + check.stderr
