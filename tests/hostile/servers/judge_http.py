"""A chat-completions endpoint on 127.0.0.1 that attacks the judge calling it.

    python judge_http.py MODE      (prints its port on the first line)

- ``drip``     sends its headers, then one byte of body every half second, for ever
- ``huge``     sends 100 MB of body as fast as the client reads it
- ``deep``     answers a completion whose content is 100,000 ``[``
"""

import json
import socket
import sys
import threading
import time

MODE = sys.argv[1]


def answer(conn):
    conn.settimeout(30)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += conn.recv(65536)
    if MODE == "drip":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        while True:
            conn.sendall(b" ")
            time.sleep(0.5)
    if MODE == "huge":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b" " * 65536
        for _ in range(100 * 16):
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.sendall(b"0\r\n\r\n")
    if MODE == "deep":
        content = "[" * 100_000
        payload = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": content}}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(payload), payload))


def serve(conn):
    try:
        answer(conn)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    print(server.getsockname()[1], flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
