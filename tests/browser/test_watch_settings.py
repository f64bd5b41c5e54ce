"""The settings' "Watch a folder on this computer" (issue 39 step S6; docs/PHONE.md §W2.11):
the texts it shows run `obscura watch` for this vault as they are (the code file line and
the command are run here, and the watcher seals a photo into the inbox), they follow the
folder typed, and the README's unit and agent are what the page's `watchTexts()` makes
for the README's example."""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from conftest import OBSCURA_BIN, chromium, serving
from test_gallery import create_first_vault, el, shown, text, wait

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "Tests/Fixtures/gradient.jpg"


def readme_block(language, first_line):
    """The README's fenced block in `language` whose text contains `first_line`."""
    readme = (ROOT / "README.md").read_text()
    for block in re.findall(r"```" + language + r"\n(.*?)```", readme, re.S):
        if first_line in block:
            return block.rstrip("\n")
    raise AssertionError(f"no {language} block with {first_line!r} in the README")


def test_the_watch_texts_run_as_shown_and_follow_the_folder(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with serving(tmp_path, extra_env={"HOME": str(home)}) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        el(driver, "#settings-button").click()
        wait(driver, lambda: shown(driver, "#settings-dialog"), 5, "the settings dialog")
        wait(driver, lambda: shown(driver, "#watch-command"), 10,
             lambda: f"the watch section; error: {text(driver, '#drop-code-error')!r}")
        code = text(driver, "#drop-code")
        vault = os.path.realpath(tmp_path / "vault")
        code_file = f"{home}/.config/obscura/watch.code"
        binary = os.path.realpath(OBSCURA_BIN)
        assert text(driver, "#watch-command") == f"{binary} --vault {vault} watch --code-file {code_file} {home}/Sync/Camera"
        assert code in text(driver, "#watch-code-line")
        assert code not in text(driver, "#watch-command") and code not in text(driver, "#watch-systemd")
        # Linux first: the server's own service manager.
        order = driver.execute_script(
            "return [...document.getElementById('watch-services').children].map((e) => e.id)")
        assert order == ["watch-systemd-block", "watch-launchd-block"]

        # A folder with a space and a quote is quoted for the shell and for systemd.
        folder = el(driver, "#watch-folder")
        folder.clear()
        folder.send_keys("~/Phone's Camera")
        wait(driver, lambda: "Phone" in text(driver, "#watch-command"), 5, "the command follows the folder")
        assert text(driver, "#watch-command").endswith(f"'{home}/Phone'\\''s Camera'")
        assert f'"{home}/Phone\'s Camera"' in text(driver, "#watch-systemd")
        code_line, command = text(driver, "#watch-code-line"), text(driver, "#watch-command")

        # The texts as shown: the code file is made the owner's only, and the watcher,
        # beside the running gallery, seals a photo that arrives in the folder.
        env = dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(home / "state"))
        made = subprocess.run(["sh", "-c", code_line], env=env, capture_output=True, text=True, timeout=20)
        assert made.returncode == 0, made.stderr
        assert os.stat(code_file).st_mode & 0o777 == 0o600
        assert Path(code_file).read_text().strip() == code
        source = home / "Phone's Camera"
        source.mkdir()
        watcher = subprocess.Popen(["sh", "-c", "exec " + command + " --settle 1 --poll 0.2"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(1)
            (source / "IMG_1.jpg").write_bytes(FIXTURE.read_bytes())
            inbox = Path(vault) / "inbox"
            deadline = time.time() + 20
            while time.time() < deadline and not any(p.name.endswith(".data.enc") for p in inbox.iterdir()):
                time.sleep(0.2)
            assert any(p.name.endswith(".data.enc") for p in inbox.iterdir()), "the watcher sealed the photo"
        finally:
            watcher.send_signal(signal.SIGTERM)
            _, err = watcher.communicate(timeout=20)
        assert watcher.returncode == 0, err
        assert "sealed 1" in err, err

        # Closing the dialog forgets the code and the texts.
        el(driver, "#settings-dialog [data-close]").click()
        wait(driver, lambda: text(driver, "#watch-code-line") == "", 5, "the texts forgotten on close")


def test_the_readme_unit_and_agent_are_the_pages_texts(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        driver.get(server.link)
        wait(driver, lambda: driver.execute_script("return document.readyState") == "complete", 10, "the page")
        texts = driver.execute_async_script(
            "const done = arguments[0];"
            "import('/app/watch.js').then(({ watchTexts }) => done(watchTexts("
            "{ vaultPath: '/home/me/.local/share/obscura', platform: 'linux', binary: '/usr/local/bin/obscura',"
            "  home: '/home/me' }, 'DROPS-XXXX', '~/Sync/Camera'))).catch((e) => done(String(e)));")
    assert isinstance(texts, dict), texts
    assert readme_block("ini", "obscura-watch.service") == texts["systemd"]
    assert readme_block("xml", "org.obscura.watch") == texts["launchd"]
