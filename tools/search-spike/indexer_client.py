"""A client of `obscura-indexer` (docs/SEARCH.md §S3.4.3) for the measurements: starts the
worker exactly as the product does (posix_spawn, four environment variables, the socket
on descriptor 3, /dev/null on 0-2) and speaks its frames. Measurement code only: the
product's client is ObscuraIndexing.IndexerProcess."""
import os
import socket
import struct

ENVIRONMENT = {"OMP_THREAD_LIMIT": "1", "OMP_WAIT_POLICY": "PASSIVE", "MALLOC_ARENA_MAX": "2", "LC_ALL": "C"}
HELLO, DIAG, LOAD, LOADED, ITEM, RESULT = 1, 2, 3, 4, 5, 6


class Indexer:
    def __init__(self, binary, role="index"):
        self.sock, theirs = socket.socketpair()
        self.pid = os.posix_spawn(binary, [binary, "--role", role, "--parent", str(os.getpid())], ENVIRONMENT,
                                  file_actions=[(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                                                (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                                                (os.POSIX_SPAWN_DUP2, 1, 2),
                                                (os.POSIX_SPAWN_DUP2, theirs.fileno(), 3)])
        theirs.close()
        kind, _ = self._receive()
        assert kind == HELLO, "no hello"
        self.next_id = 1

    def _exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("the indexer ended")
            data += chunk
        return data

    def _receive(self):
        length, kind = struct.unpack(">IB", self._exact(5))
        return kind, self._exact(length - 1)

    def _send(self, kind, payload):
        self.sock.sendall(struct.pack(">IB", len(payload) + 1, kind) + payload)

    def load(self, languages="eng", confidence=50):
        self._send(LOAD, bytes([confidence, len(languages)]) + languages.encode())
        kind, payload = self._receive()
        assert kind == LOADED and payload[0] == 0, "load failed"
        return payload[1:].decode()

    def read(self, data, mime="image/png"):
        """(status, confidence, text) of one picture."""
        request = self.next_id
        self.next_id += 1
        self._send(ITEM, struct.pack(">IBB", request, 1, len(mime)) + mime.encode() + data)
        kind, payload = self._receive()
        assert kind == RESULT
        ident, status, confidence, count = struct.unpack(">IBfH", payload[:11])
        assert ident == request
        return status, confidence, payload[11:11 + count].decode("utf-8")

    def diag(self):
        self._send(DIAG, b"")
        kind, payload = self._receive()
        assert kind == DIAG
        return dict(line.split("=", 1) for line in payload.decode().splitlines() if "=" in line)

    def cpu_ms(self):
        """User and system CPU of the worker so far."""
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def close(self):
        self.sock.close()
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
