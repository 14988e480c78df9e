"""A stand-in for ``gnubg -t -q`` in the external-player tests: it reads commands on
stdin, and on ``external HOST:PORT`` listens there and answers each board line as the
environment variable FAKE_GNUBG_MODE says: ``illegal`` (a move that is not legal),
``garbage`` (not a move), ``crash`` (exits without answering), ``silent`` (never
answers), ``exit`` (exits at startup). With FAKE_GNUBG_PIDFILE set, it writes its
PID to that file first."""

import os
import socket
import sys
import time

mode = os.environ.get("FAKE_GNUBG_MODE", "illegal")
if os.environ.get("FAKE_GNUBG_PIDFILE"):  # where a test reads this process's PID
    with open(os.environ["FAKE_GNUBG_PIDFILE"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["FAKE_GNUBG_PIDFILE"] + ".tmp", os.environ["FAKE_GNUBG_PIDFILE"])
if mode == "exit":
    print("fake gnubg: cannot start")
    sys.exit(3)
for line in sys.stdin:
    if line.startswith("external "):
        host, port = line.split()[1].rsplit(":", 1)
        server = socket.create_server((host, int(port)))
        conn, _ = server.accept()
        data = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                sys.exit(0)
            data += chunk
            if b"\n" not in data:
                continue
            if mode == "crash":
                os._exit(5)
            if mode == "silent":
                time.sleep(60)
            conn.sendall(b"24/1 13/off\n" if mode == "illegal" else b"hello there\n")
            data = b""
