"""`obscura serve` options seen from outside: HTTPS with --tls-cert/--tls-key, and the
refusal to serve plain HTTP beyond loopback without --insecure-lan."""

import http.client
import json
import os
import ssl
import subprocess
import time

from conftest import BANNER, OBSCURA_BIN


def start(workdir, *options):
    env = dict(os.environ, XDG_CONFIG_HOME=str(workdir / "config"))
    return subprocess.Popen([OBSCURA_BIN, "--vault", str(workdir / "vault"), "serve", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env, text=True)


def test_https_sets_secure_cookies_and_hsts(tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    process = start(tmp_path, "--port", "0", "--tls-cert", str(tmp_path / "cert.pem"), "--tls-key", str(tmp_path / "key.pem"))
    try:
        deadline = time.monotonic() + 90
        line = ""
        while BANNER not in line and time.monotonic() < deadline:
            line = process.stdout.readline()
        assert BANNER in line, process.stderr.read() if process.poll() is not None else "no banner"
        link = line.split(BANNER, 1)[1].strip()
        assert link.startswith("https://127.0.0.1:")
        url, _, fragment = link.partition("#token=")
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        context.check_hostname = False
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        connection.request("GET", "/api/session")
        response = connection.getresponse()
        response.read()
        assert response.status == 401  # no session without the access token
        connection.request("POST", "/api/session", body=json.dumps({"token": fragment}),
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 201
        cookie = response.getheader("Set-Cookie") or ""
        assert cookie.startswith("__Host-obscura_"), cookie
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie
        assert response.getheader("Strict-Transport-Security") == "max-age=31536000"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_plain_http_beyond_loopback_needs_insecure_lan(tmp_path):
    process = start(tmp_path, "--host", "0.0.0.0", "--port", "0")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 64
    assert "needs --tls-cert and --tls-key, or --insecure-lan" in err
    assert not (tmp_path / "vault").exists()  # refused before touching anything
