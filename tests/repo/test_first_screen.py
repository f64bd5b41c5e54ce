"""What a new user meets first (issue 40, point 21): the README leads with what to do
(the toolchain, the build's time, the printed link, where the keys went) before the
threat model, and `scripts/run` installs only what the app needs."""

import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
TEST_ONLY = {"chromium", "chromium-driver", "openssh-server", "gnome-keyring", "imagemagick", "vim", "neovim", "age"}


def packages(*options):
    listed = subprocess.run([str(REPO / "scripts" / "setup"), "--list", *options],
                            check=True, capture_output=True, text=True).stdout.split()
    assert listed, "no package listed"
    return listed


def test_the_first_screen_says_what_to_do_before_what_it_protects():
    readme = (REPO / "README.md").read_text()
    start = readme[:readme.index("\n## ", readme.index("## Start here") + 1)]
    assert start.index("scripts/run") < start.index("What it protects")
    for needed in ("https://www.swift.org/install/", "The first build takes", "#token=",
                   "~/.config/obscura/outer.key", "obscura keys export outer"):
        assert needed in start, needed


def test_the_app_needs_none_of_the_tests_packages():
    app, everything = packages("--app"), packages()
    assert set(app) < set(everything)
    assert not TEST_ONLY & set(app), TEST_ONLY & set(app)
    assert TEST_ONLY <= set(everything)
    run = (REPO / "scripts" / "run").read_text()
    assert "scripts/setup --app" in run
