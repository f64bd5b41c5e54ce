"""Security headers and the Host check, seen by a plain HTTP client."""

import http.client
import urllib.parse


def fetch(server, path, host=None):
    parts = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Host": host} if host else {}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def test_index_carries_the_security_headers(server):
    response, body = fetch(server, "/")
    assert response.status == 200
    assert b'<script type="module" src="/app/main.js">' in body
    csp = response.getheader("Content-Security-Policy") or ""
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"):
        assert directive in csp, (directive, csp)
    assert "unsafe-inline" not in csp
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Referrer-Policy") == "no-referrer"
    assert "no-store" in (response.getheader("Cache-Control") or "")


def test_scripts_are_served_as_javascript(server):
    for path in ("/app/main.js", "/app/api.js"):
        response, _ = fetch(server, path)
        assert response.status == 200, path
        assert "javascript" in (response.getheader("Content-Type") or ""), response.getheader("Content-Type")
    response, _ = fetch(server, "/app/app.css")
    assert "text/css" in (response.getheader("Content-Type") or "")


def test_foreign_host_is_refused(server):
    response, _ = fetch(server, "/", host="evil.example:80")
    assert response.status == 421
