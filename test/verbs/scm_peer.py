#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scm_peer.py - a socket-CM peer that is not one (test/verbs/scm.bats).

  scm_peer.py listen ADDR MODE SECS
      listens on ADDR at a free port of 10000-19999 (a qualifier's port,
      below the ephemeral ones), prints "listening PORT", accepts one
      connection and then, by MODE:
        silent   reads what comes and never answers
        close    closes it at once
        garbage  waits for the first bytes, answers 48 bytes of junk
      and stays at most SECS seconds.
  scm_peer.py connect ADDR PORT MODE SECS
      connects to a listener of libdaplscm and, by MODE:
        garbage  sends an HTTP request; prints "closed" once the listener
                 closed the connection (within SECS), else "open"
        half     sends the first 20 bytes of a valid REQ header, prints
                 "sent", then holds the connection until killed or SECS
"""
import socket
import sys
import time


def listen(addr, mode, secs):
    import random
    s = socket.socket()
    while True:
        try:
            s.bind((addr, random.randrange(10000, 20000)))
            break
        except OSError:
            pass
    s.listen(8)
    print("listening", s.getsockname()[1], flush=True)
    s.settimeout(secs)
    c, _ = s.accept()
    c.settimeout(secs)
    if mode == "close":
        c.close()
    elif mode == "garbage":
        c.recv(4096)
        c.sendall(b"\xde\xad\xbe\xef" * 12)
    end = time.time() + secs
    while time.time() < end:
        try:
            if not c.recv(4096):
                break
        except OSError:
            break
    return 0


def connect(addr, port, mode, secs):
    c = socket.create_connection((addr, port), timeout=secs)
    if mode == "garbage":
        c.sendall(b"GET / HTTP/1.0\r\n\r\n")
        try:
            closed = c.recv(4096) == b""
        except ConnectionResetError:
            closed = True
        except socket.timeout:
            closed = False
        print("closed" if closed else "open", flush=True)
        return 0
    # half: magic, version 1, REQ, status 0, then 12 of the rest
    c.sendall(b"DSCM\x00\x01\x01\x00" + b"\x00" * 12)
    print("sent", flush=True)
    time.sleep(secs)
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "listen":
        return listen(argv[2], argv[3], int(argv[4]))
    if len(argv) == 6 and argv[1] == "connect":
        return connect(argv[2], int(argv[3]), argv[4], int(argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
