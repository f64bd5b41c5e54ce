"""The HTTPS recipes of the README ("From your phone", docs/PHONE.md §W5.3), tried as
written (issue 39 step S7): the lines are read from the README and run, in a network
namespace of their own whose loopback carries the recipe's LAN address, so that what
people read and what was tried cannot drift apart. PHONE.md gives the same lines, and a
test holds the two equal."""

import os
import pathlib
import re

from conftest import BANNER, REPO
from test_serve_options import in_network_namespace

PHONE = REPO / "docs" / "PHONE.md"
README = REPO / "README.md"


def recipe_a(document=README):
    """The shell block of recipe (A), as the document gives it."""
    text = document.read_text()
    marker = ("**(A) The server's own TLS, with a name-constrained CA**" if document == PHONE
              else "### From your phone: HTTPS on the home network")
    section = text.split(marker, 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "recipe (A) has no sh block"
    return block.group(1)


def test_the_name_constrained_ca_recipe_works_as_written_and_vouches_for_nothing_else(tmp_path: pathlib.Path):
    """Recipe (A): the CA carries a critical name constraint, the server's certificate it
    signs is trusted for the home name and the LAN address, and a certificate the same CA
    signs for a name outside the constraint (evil.example) is refused by OpenSSL and by
    curl, which enforce the constraint as a phone's browser is expected to."""
    lines = recipe_a().splitlines()
    serve = [line for line in lines if line.startswith("obscura serve")]
    assert serve == ["obscura serve --host 0.0.0.0 --port 8750 --tls-cert photos.pem --tls-key photos-key.pem"]
    # The recipe's own lines, but for where the CA key goes and the server's vault and output.
    recipe = "\n".join(lines).replace("/media/usb/obscura-ca.key", "usb/obscura-ca.key").replace(
        serve[0], f'"$0" --vault vault {serve[0][len("obscura "):]} --test-kdf-iterations 1000 > serve.out 2>&1 &')
    script = f"""
        set -e
        cd "{tmp_path}"
        mkdir usb
        ip link set lo up
        ip addr add 192.168.1.20/24 dev lo
        {recipe}
        server=$!
        for i in $(seq 1 900); do grep -q "{BANNER}" serve.out && break; sleep 0.1; done
        grep "{BANNER}" serve.out | sed -E 's/#.*//'
        test ! -e ca.key && echo "ca key moved"
        openssl x509 -noout -ext nameConstraints -in ca.pem
        openssl verify -CAfile ca.pem photos.pem
        curl -s --cacert ca.pem -o /dev/null -w "named %{{http_code}}\\n" \\
            --resolve photos.home.arpa:8750:192.168.1.20 https://photos.home.arpa:8750/
        curl -s --cacert ca.pem -o /dev/null -w "address %{{http_code}}\\n" https://192.168.1.20:8750/
        # A leaf the same CA signs for a name outside its constraint, served as the other.
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \\
            -keyout evil-key.pem -out evil.csr -subj "/CN=evil.example" 2>/dev/null
        printf '%s\\n' 'subjectAltName=DNS:evil.example' 'extendedKeyUsage=serverAuth' 'basicConstraints=critical,CA:FALSE' > evil.ext
        openssl x509 -req -in evil.csr -CA ca.pem -CAkey usb/obscura-ca.key -CAcreateserial -days 1 \\
            -extfile evil.ext -out evil.pem 2>/dev/null
        openssl verify -CAfile ca.pem evil.pem 2>&1 || echo "openssl refuses evil"
        openssl s_server -accept 8443 -cert evil.pem -key evil-key.pem -www -quiet > /dev/null 2>&1 &
        evil=$!
        sleep 1
        set +e
        curl -s --cacert ca.pem -o /dev/null --resolve evil.example:8443:192.168.1.20 https://evil.example:8443/
        echo "curl on evil exits $?"
        curl -s -k -o /dev/null -w "evil served %{{http_code}}\\n" --resolve evil.example:8443:192.168.1.20 https://evil.example:8443/
        kill $server $evil
        wait $server
    """
    out, served = in_network_namespace(tmp_path, script)
    assert f"{BANNER}https://photos.home.arpa:8750/" in out, out + served
    assert "ca key moved" in out, out
    constraint = out.split("X509v3 Name Constraints:", 1)[-1]
    assert out.count("X509v3 Name Constraints: critical") == 1, out
    assert "DNS:home.arpa" in constraint and "IP:192.168.0.0/255.255.0.0" in constraint, out
    assert "photos.pem: OK" in out and "named 200" in out and "address 200" in out, out + served
    assert "permitted subtree violation" in out and "openssl refuses evil" in out, out
    assert "curl on evil exits 60" in out, out  # 60: the peer's certificate cannot be authenticated
    assert "evil served 200" in out, out  # the evil server did answer: the refusal is the certificate's


def test_chromium_trusts_the_recipes_server_and_refuses_a_name_outside_the_constraint(tmp_path: pathlib.Path):
    """Recipe (A) in Chromium: the CA in the profile's NSS database (`certutil -A -t C,,`,
    as a browser on a computer trusts a CA it was given), names mapped to loopback. The
    drop page on the recipe's name is a secure context with WebCrypto, where it seals; a
    server showing a leaf for evil.example from the same CA gets Chromium's certificate
    error page."""
    import subprocess
    import time

    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    from conftest import OBSCURA_BIN
    from test_serve_options import banner_link

    make = "\n".join(line for line in recipe_a().splitlines()
                     if not line.startswith(("obscura serve", "mv ca.key")))
    subprocess.run(["sh", "-c", "set -e\n" + make + """
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout evil-key.pem -out evil.csr -subj /CN=evil.example
        printf '%s\\n' 'subjectAltName=DNS:evil.example' 'extendedKeyUsage=serverAuth' > evil.ext
        openssl x509 -req -in evil.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile evil.ext -out evil.pem
        """], cwd=tmp_path, check=True, capture_output=True)
    home = tmp_path / "home"
    nssdb = f"sql:{home}/.pki/nssdb"
    (home / ".pki" / "nssdb").mkdir(parents=True)
    subprocess.run(["certutil", "-d", nssdb, "-N", "--empty-password"], check=True, capture_output=True)
    subprocess.run(["certutil", "-d", nssdb, "-A", "-n", "Obscura home CA", "-t", "C,,", "-i", str(tmp_path / "ca.pem")],
                   check=True, capture_output=True)

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), OBSCURA_OUTER_KEY_FILE=str(tmp_path / "outer.key"),
               OBSCURA_DECOY_SECRET_FILE=str(tmp_path / "decoy.key"))
    server = subprocess.Popen([OBSCURA_BIN, "--vault", str(tmp_path / "vault"), "serve", "--port", "0",
                               "--test-kdf-iterations", "1000", "--tls-cert", str(tmp_path / "photos.pem"),
                               "--tls-key", str(tmp_path / "photos-key.pem")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    evil = subprocess.Popen(["openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", str(tmp_path / "evil.pem"),
                             "-key", str(tmp_path / "evil-key.pem"), "-www"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    driver = None
    try:
        port = int(banner_link(server, 90).partition("#")[0].rstrip("/").rsplit(":", 1)[1])
        evil_port = None
        deadline = time.monotonic() + 10
        while evil_port is None and time.monotonic() < deadline:
            line = evil.stdout.readline()
            found = re.search(r"ACCEPT .*:(\d+)", line)
            evil_port = int(found.group(1)) if found else None
        assert evil_port, "openssl s_server did not say its port"
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--host-resolver-rules=MAP photos.home.arpa 127.0.0.1, MAP evil.example 127.0.0.1"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver", env=dict(os.environ, HOME=str(home))),
                                  options=options)
        driver.get(f"https://photos.home.arpa:{port}/drop")
        assert driver.execute_script("return window.isSecureContext && !!(crypto && crypto.subtle)") is True
        assert driver.execute_script("return location.host") == f"photos.home.arpa:{port}"
        driver.get(f"https://evil.example:{evil_port}/")
        page = driver.page_source
        assert "ERR_CERT" in page, page[:2000]
    finally:
        if driver:
            driver.quit()
        for process in (server, evil):
            process.terminate()
            process.wait(timeout=30)


def recipe_b(document=README):
    """Recipe (B)'s Caddyfile and its `obscura serve` line, as the document gives them."""
    marker = "**(B) Caddy in front of a loopback server" if document == PHONE else "Or Caddy in front of a loopback server"
    section = document.read_text().split(marker, 1)[1]
    blocks = re.findall(r"```(?:sh)?\n(.*?)```", section, re.S)
    return blocks[0], blocks[1].strip()


def test_the_readme_and_the_design_give_the_same_recipes():
    assert recipe_a(README) == recipe_a(PHONE)
    assert recipe_b(README) == recipe_b(PHONE)


def test_caddy_in_front_of_a_loopback_server_works_as_written(tmp_path: pathlib.Path):
    """Recipe (B): Debian's Caddy (2.6.2, unpacked by scripts/setup) on port 443 with the
    leaf of recipe (A), proxying to `obscura serve --origin https://photos.home.arpa` on
    loopback, in a network namespace. Caddy passes the client's Host through, so the page,
    the session and a state-changing POST work through it; the server's own port answers
    only to the origin's Host (a proxy that rewrote Host would get 421)."""
    caddy = REPO / ".build" / "test-tools" / "caddy" / "usr" / "bin" / "caddy"
    assert caddy.exists(), "scripts/setup unpacks Caddy into .build/test-tools"
    caddyfile, serve = recipe_b()
    assert serve == "obscura serve --origin https://photos.home.arpa"
    assert "tls /etc/caddy/photos.pem /etc/caddy/photos-key.pem" in caddyfile and "reverse_proxy 127.0.0.1:8750" in caddyfile
    # The global options the test needs (no admin socket, no trust store to change); the
    # site block as written, its files here.
    (tmp_path / "Caddyfile").write_text("{\n\tadmin off\n\tskip_install_trust\n}\n"
                                        + caddyfile.replace("/etc/caddy/", f"{tmp_path}/"))
    make = "\n".join(line for line in recipe_a().splitlines() if not line.startswith(("obscura serve", "mv ca.key")))
    script = f"""
        set -e
        cd "{tmp_path}"
        ip link set lo up
        ip addr add 192.168.1.20/24 dev lo
        {make}
        HOME="{tmp_path}" XDG_DATA_HOME="{tmp_path}/caddy-data" XDG_CONFIG_HOME="{tmp_path}/caddy-config" \\
            "{caddy}" run --config Caddyfile --adapter caddyfile > caddy.out 2>&1 &
        proxy=$!
        "$0" --vault vault {serve[len("obscura "):]} --test-kdf-iterations 1000 > serve.out 2>&1 &
        server=$!
        for i in $(seq 1 900); do grep -q "{BANNER}" serve.out && break; sleep 0.1; done
        grep "{BANNER}" serve.out | sed -E 's/#.*//'
        token=$(grep "{BANNER}" serve.out | sed -E 's/.*#token=//')
        for i in $(seq 1 100); do curl -s -o /dev/null --cacert ca.pem --resolve photos.home.arpa:443:192.168.1.20 https://photos.home.arpa/ && break; sleep 0.1; done
        at="--cacert ca.pem --resolve photos.home.arpa:443:192.168.1.20 -c jar -b jar"
        curl -s $at -o /dev/null -w "page %{{http_code}}\\n" https://photos.home.arpa/
        curl -s $at -o session.json -w "session %{{http_code}}\\n" -X POST -H "Origin: https://photos.home.arpa" \\
            -H "Content-Type: application/json" -d "{{\\"token\\":\\"$token\\"}}" https://photos.home.arpa/api/session
        csrf=$(curl -s $at https://photos.home.arpa/api/session | sed -E 's/.*"csrf":"([^"]*)".*/\\1/')
        curl -s $at -o /dev/null -w "lock %{{http_code}}\\n" -X POST -H "Origin: https://photos.home.arpa" \\
            -H "X-CSRF-Token: $csrf" https://photos.home.arpa/api/lock
        curl -s -o /dev/null -w "rewritten host %{{http_code}}\\n" -H "Host: 127.0.0.1:8750" http://127.0.0.1:8750/
        kill $server $proxy
        wait $server || true
    """
    out, served = in_network_namespace(tmp_path, script)
    caddy_log = (tmp_path / "caddy.out").read_text() if (tmp_path / "caddy.out").exists() else ""
    assert f"{BANNER}https://photos.home.arpa/" in out, out + served + caddy_log
    for expected in ("page 200", "session 201", "lock 204", "rewritten host 421"):
        assert expected in out, out + served + caddy_log
