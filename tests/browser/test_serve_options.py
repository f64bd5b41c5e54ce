"""`obscura serve` options seen from outside: HTTPS with --tls-cert/--tls-key, and the
refusal to serve plain HTTP beyond loopback without --insecure-lan."""

import http.client
import json
import os
import re
import shutil
import ssl
import subprocess
import tempfile
import time

from conftest import BANNER, OBSCURA_BIN


def start(workdir, *options):
    env = dict(os.environ, XDG_CONFIG_HOME=str(workdir / "config"),
               OBSCURA_OUTER_KEY_FILE=str(workdir / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(workdir / "decoy.key"))
    return subprocess.Popen([OBSCURA_BIN, "--vault", str(workdir / "vault"), "serve", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env, text=True)


def banner_link(process, seconds):
    """The link `obscura serve` prints once it listens (its access token included)."""
    deadline = time.monotonic() + seconds
    line = ""
    while BANNER not in line and time.monotonic() < deadline:
        line = process.stdout.readline()
    assert BANNER in line, process.stderr.read() if process.poll() is not None else "no banner"
    return line.split(BANNER, 1)[1].strip()


def in_network_namespace(tmp_path, script):
    """Runs `script` (sh, with the obscura binary as $0) in a network namespace of its
    own, where nothing reaches the real network; its output and the server's."""
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        import pytest
        pytest.skip("unshare --net is not permitted here (needs root or user namespaces)")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"),
               OBSCURA_OUTER_KEY_FILE=str(tmp_path / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(tmp_path / "decoy.key"))
    result = subprocess.run(["unshare", "--net", "sh", "-c", script, OBSCURA_BIN], capture_output=True, text=True,
                            env=env, timeout=180)
    served = tmp_path / "serve.out"
    return result.stdout + result.stderr, served.read_text() if served.exists() else ""


def test_an_ipv4_only_machine_is_served_on_127_0_0_1_with_ipv6_loopback_held(tmp_path):
    """On a machine with an IPv4 address and no IPv6 one beyond loopback, glibc's resolver
    refuses "::1" (AI_ADDRCONFIG), and the server's sockets are bound through it: `serve`
    stopped at start there. Now it serves 127.0.0.1 and holds [::1]:PORT, bound and not
    listening (docs/API.md "Loopback"): a connection there is refused at once, and no
    other socket can bind it. In a network namespace whose loopback carries an IPv4 LAN
    address, which makes the resolver behave as on such a machine."""
    script = f"""
        ip link set lo up
        ip addr add 192.168.1.20/24 dev lo
        "$0" --vault "{tmp_path}/vault" serve --test-kdf-iterations 1000 > "{tmp_path}/serve.out" 2>&1 &
        server=$!
        for i in $(seq 1 900); do grep -q "{BANNER}" "{tmp_path}/serve.out" && break; sleep 0.1; done
        port=$(grep "{BANNER}" "{tmp_path}/serve.out" | sed -E 's/.*:([0-9]+)\\/.*/\\1/')
        grep "{BANNER}" "{tmp_path}/serve.out" | sed -E 's/#.*//'
        curl -s -o /dev/null -w "v4 %{{http_code}}\\n" "http://127.0.0.1:$port/"
        curl -s -o /dev/null "http://[::1]:$port/"; echo "v6 curl exits $?"
        python3 -c "import socket, sys; s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('::1', int(sys.argv[1]))); s.listen(); print('squatter listens')" $port 2>&1 | tail -1
        kill $server; wait $server || true
    """
    out, served = in_network_namespace(tmp_path, script)
    assert f"{BANNER}http://localhost:" in out, out + served
    assert "v4 200" in out, out + served
    assert "v6 curl exits 7" in out, out  # 7: could not connect (refused)
    assert "squatter listens" not in out and "Address already in use" in out, out


def test_https_sets_secure_cookies_and_hsts(tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    process = start(tmp_path, "--port", "0", "--tls-cert", str(tmp_path / "cert.pem"), "--tls-key", str(tmp_path / "key.pem"))
    try:
        link = banner_link(process, 90)
        assert link.startswith("https://localhost:")  # loopback links name localhost (passkeys need a host name)
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


def test_video_upload_by_an_unprivileged_server(tmp_path):
    """The server runs undumpable (no ptrace, no core): its /proc entries are closed to
    other users' processes, its own ffprobe and poster tool included. A video upload
    must still get its duration, size and poster when the server is not root."""
    home = tempfile.mkdtemp(prefix="obscura-nobody-", dir="/tmp")
    try:
        os.chmod(home, 0o777)
        clip = os.path.join(home, "clip.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=10",
                        "-pix_fmt", "yuv420p", "-y", clip], check=True)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
        # A copy the unprivileged user can reach wherever the checkout lives, with the
        # web files SwiftPM puts beside the binary.
        binary = os.path.join(home, "bin", "obscura")
        os.makedirs(os.path.dirname(binary), mode=0o755)
        shutil.copy2(OBSCURA_BIN, binary)
        resources = os.path.join(os.path.dirname(OBSCURA_BIN), "Obscura_ObscuraServer.resources")
        shutil.copytree(resources, os.path.join(home, "bin", "Obscura_ObscuraServer.resources"))
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(home, "config"), HOME=home,
                   OBSCURA_OUTER_KEY_FILE=os.path.join(home, "outer.key"),
                   OBSCURA_DECOY_SECRET_FILE=os.path.join(home, "decoy.key"))
        env.pop("OBSCURA_WEB_ROOT", None)
        process = subprocess.Popen(drop + [binary, "--vault", os.path.join(home, "vault"), "serve", "--port", "0"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   env=env, text=True)
        try:
            url, _, token = banner_link(process, 120).partition("#token=")
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            host = f"127.0.0.1:{port}"
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            cookie, csrf = "", ""

            def call(method, path, body, content_type="application/json"):
                nonlocal cookie
                headers = {"Host": host, "Origin": f"http://{host}", "Content-Type": content_type,
                           "X-CSRF-Token": csrf, "Cookie": cookie}
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                set_cookie = response.getheader("Set-Cookie")
                if set_cookie:
                    cookie = set_cookie.split(";", 1)[0]
                return response.status, json.loads(data) if data else None

            status, session = call("POST", "/api/session", json.dumps({"token": token}))
            assert status == 201
            csrf = session["csrf"]
            assert call("POST", "/api/vaults", json.dumps({"password": "nobody's vault", "allowWeak": "true"}))[0] == 201
            with open(clip, "rb") as f:
                status, answer = call("POST", "/api/upload?name=clip.mp4", f.read(), "application/octet-stream")
            assert status == 201, answer
            item = answer["item"]
            assert item["kind"] == "video"
            assert item["duration"] is not None and item["width"] == 320, item
            assert item["hasThumbnail"] is True, item
        finally:
            process.terminate()
            process.wait(timeout=10)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_wildcard_bind_serves_the_machines_own_address_only(tmp_path):
    """`serve --host 0.0.0.0` (issue 40 point 6) used to refuse every client but one that
    said `Host: 0.0.0.0:PORT`. Run in a network namespace of its own (nothing reaches the
    real network), where the machine has 10.77.0.1: a client that connects to it gets the
    app; one that names another host is refused (421)."""
    script = f"""
        set -e
        ip link set lo up
        ip addr add 10.77.0.1/8 dev lo
        "$0" --vault "{tmp_path}/vault" serve --host 0.0.0.0 --port 0 --insecure-lan --test-kdf-iterations 1000 \\
            > "{tmp_path}/serve.out" 2>&1 &
        server=$!
        for i in $(seq 1 900); do grep -q "{BANNER}" "{tmp_path}/serve.out" && break; sleep 0.1; done
        port=$(grep "{BANNER}" "{tmp_path}/serve.out" | sed -E 's/.*:([0-9]+)\\/.*/\\1/')
        curl -s -o /dev/null -w "own %{{http_code}}\\n" "http://10.77.0.1:$port/"
        curl -s -o /dev/null -w "loopback %{{http_code}}\\n" "http://127.0.0.1:$port/"
        curl -s -o /dev/null -w "foreign %{{http_code}}\\n" -H "Host: evil.example:$port" "http://10.77.0.1:$port/"
        kill $server; wait $server || true
    """
    out, served = in_network_namespace(tmp_path, script)
    assert "own 200" in out and "loopback 200" in out and "foreign 421" in out, out + served


def test_a_wildcard_tls_bind_answers_to_its_certificates_names_and_new_addresses(tmp_path):
    """docs/PHONE.md §W5.2: under TLS the server answers to the names its certificate
    vouches for (a name in the router's DNS, not the host name), its launch link names the
    certificate's name instead of 0.0.0.0, and an address the machine gains after start is
    answered once the names are read again (at most every 10 s). Foreign names stay
    refused. In a network namespace of its own, as above."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=Photos", "-addext", "subjectAltName=DNS:photos.home.arpa,IP:10.77.0.1",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    script = f"""
        set -e
        ip link set lo up
        ip addr add 10.77.0.1/8 dev lo
        "$0" --vault "{tmp_path}/vault" serve --host 0.0.0.0 --port 0 --test-kdf-iterations 1000 \\
            --tls-cert "{tmp_path}/cert.pem" --tls-key "{tmp_path}/key.pem" > "{tmp_path}/serve.out" 2>&1 &
        server=$!
        for i in $(seq 1 900); do grep -q "{BANNER}" "{tmp_path}/serve.out" && break; sleep 0.1; done
        port=$(grep "{BANNER}" "{tmp_path}/serve.out" | sed -E 's/.*:([0-9]+)\\/.*/\\1/')
        grep "{BANNER}" "{tmp_path}/serve.out" | sed -E 's/#.*//'
        grep "^Also at: " "{tmp_path}/serve.out"
        ca="--cacert {tmp_path}/cert.pem"
        curl -s $ca -o /dev/null -w "named %{{http_code}}\\n" --resolve "photos.home.arpa:$port:10.77.0.1" "https://photos.home.arpa:$port/"
        curl -s $ca -o /dev/null -w "address %{{http_code}}\\n" "https://10.77.0.1:$port/"
        curl -s $ca -o /dev/null -w "foreign %{{http_code}}\\n" --resolve "evil.example:$port:10.77.0.1" "https://evil.example:$port/" -k
        ip addr add 10.77.0.2/8 dev lo
        curl -s -k -o /dev/null -w "new-early %{{http_code}}\\n" "https://10.77.0.2:$port/"
        sleep 11
        curl -s -k -o /dev/null -w "new-later %{{http_code}}\\n" "https://10.77.0.2:$port/"
        kill $server; wait $server || true
    """
    out, served = in_network_namespace(tmp_path, script)
    assert f"{BANNER}https://photos.home.arpa:" in out, out + served
    # The certificate's other name, on a line of its own, without the token (§W5.2).
    also = [line for line in out.splitlines() if line.startswith("Also at: ")]
    assert len(also) == 1 and re.search(r"https://10\.77\.0\.1:\d+/ ", also[0]) and "token" not in also[0].split("(")[0], out
    for expected in ("named 200", "address 200", "foreign 421", "new-early 421", "new-later 200"):
        assert expected in out, out + served
