#!/usr/bin/python3
"""A small ntfy server for the ntfy plugin's tests, standard library only.

    ntfy_server.py [--port PORT] [--keepalive SECONDS]

Prints its port on the first line of standard output, then serves on
127.0.0.1 until it is killed.

GET /TOPIC/json[?since=X] streams the topic as ntfy does: HTTP/1.1, chunked,
one JSON object a line, each line its own chunk, flushed as it goes; an
`open` line first, then the kept messages `since` asks for, then new
messages as they are published, and a `keepalive` line whenever nothing was
sent for --keepalive seconds (default 0.5). Like ntfy, `since` is absent
(no kept message), `all`, a Unix time (messages whose time is not before
it), or a message id (the messages kept after it; an id it does not know
means all of them). open and keepalive lines have ids of their own, which
ntfy never keeps, and so neither does this server.

The tests steer it with POST requests whose body is a JSON object (an
answer is a JSON object too):

    /_publish  {"topic", "id"?, "title"?, "message"?}: keeps a message and
               sends it to the topic's streams; answers the message.
    /_raw      {"topic", "line"}, {"topic", "hex"} or {"topic", "size"}: sends
               one line (its text, the bytes of its hex, or `size` bytes of
               "x") to the topic's streams, never kept.
    /_flood    {"topic", "size"}: sends `size` bytes of "x" without a
               newline, in 64 KiB chunks, then a newline.
    /_trickle  {"topic", "id"?, "title"?}: keeps a message and sends its
               line one byte a chunk, 2 ms apart.
    /_drop     {"topic", "partial"?: bool}: ends the topic's streams at
               once, without the last chunk; with partial, after half of
               the line of a message it publishes (and keeps) first.
    /_stall    {"topic"}: the topic's streams send nothing more, and stay open.
    /_end      {"topic"}: ends the topic's streams properly (the last chunk).
    /_fail     {"count", "status", "location"?}: the next `count` stream
               requests are answered `status` (with a Location for a redirect).

GET /_requests answers every stream request so far, in order:
[{"topic", "since", "status"}], `since` null when absent; GET
/_subscribers?topic=T the number of open streams of T.
"""
import argparse
import http.server
import json
import queue
import random
import socket
import string
import threading
import time
import urllib.parse

lock = threading.Lock()
kept = {}          # topic -> [message]
streams = {}       # topic -> set of queues
requests = []      # every stream request
failures = []      # [(status, location)], the next ones first
keepalive = 0.5


def new_id():
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(12))


def encode(record):
    return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def since_filter(topic, since):
    messages = kept.get(topic, [])
    if since is None:
        return []
    if since == "all":
        return list(messages)
    if since.isdigit():
        return [m for m in messages if m["time"] >= int(since)]
    for index, message in enumerate(messages):
        if message["id"] == since:
            return messages[index + 1:]
    return list(messages)


def broadcast(topic, item):
    with lock:
        targets = list(streams.get(topic, ()))
    for target in targets:
        target.put(item)
    return len(targets)


def publish(body):
    topic = body["topic"]
    message = {"id": body.get("id") or new_id(), "time": int(time.time()), "event": "message", "topic": topic}
    for key in ("title", "message"):
        if key in body:
            message[key] = body[key]
    message.setdefault("message", "hello")
    with lock:
        kept.setdefault(topic, []).append(message)
    return message


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        path = self.path
        if path == "/_publish":
            message = publish(body)
            broadcast(body["topic"], ("line", encode(message)))
            self.answer(200, message)
        elif path == "/_raw":
            if "line" in body:
                line = body["line"].encode()
            elif "hex" in body:
                line = bytes.fromhex(body["hex"])
            else:
                line = b"x" * body["size"]
            self.answer(200, {"streams": broadcast(body["topic"], ("line", line + b"\n"))})
        elif path == "/_flood":
            self.answer(200, {"streams": broadcast(body["topic"], ("flood", body["size"]))})
        elif path == "/_trickle":
            message = publish(body)
            self.answer(200, dict(message, streams=broadcast(body["topic"], ("trickle", encode(message)))))
        elif path == "/_drop":
            partial = None
            if body.get("partial"):
                partial = publish(body)
            line = encode(partial) if partial else None
            self.answer(200, {"streams": broadcast(body["topic"], ("drop", line)), "message": partial})
        elif path == "/_stall":
            self.answer(200, {"streams": broadcast(body["topic"], ("stall", None))})
        elif path == "/_end":
            self.answer(200, {"streams": broadcast(body["topic"], ("end", None))})
        elif path == "/_fail":
            with lock:
                failures.extend([(body["status"], body.get("location"))] * body["count"])
            self.answer(200, {})
        else:
            self.answer(404, {"error": "no such control"})

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_requests":
            with lock:
                self.answer(200, list(requests))
            return
        if url.path == "/_subscribers":
            topic = urllib.parse.parse_qs(url.query).get("topic", [""])[0]
            with lock:
                self.answer(200, {"count": len(streams.get(topic, ()))})
            return
        parts = url.path.split("/")
        if len(parts) != 3 or parts[2] != "json":
            self.answer(404, {"error": "not found"})
            return
        topic = parts[1]
        since = urllib.parse.parse_qs(url.query).get("since", [None])[0]
        with lock:
            failure = failures.pop(0) if failures else None
            requests.append({"topic": topic, "since": since, "status": failure[0] if failure else 200})
        if failure:
            status, location = failure
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "5")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"oops\n")
            self.close_connection = True
            return
        self.stream(topic, since)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def stream(self, topic, since):
        inbox = queue.Queue()
        with lock:
            backlog = since_filter(topic, since)
            streams.setdefault(topic, set()).add(inbox)
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.chunk(encode({"id": new_id(), "time": int(time.time()), "event": "open", "topic": topic}))
            for message in backlog:
                self.chunk(encode(message))
            while True:
                try:
                    kind, value = inbox.get(timeout=keepalive)
                except queue.Empty:
                    self.chunk(encode({"id": new_id(), "time": int(time.time()), "event": "keepalive", "topic": topic}))
                    continue
                if kind == "line":
                    self.chunk(value)
                elif kind == "flood":
                    left = value
                    while left > 0:
                        size = min(left, 65536)
                        self.chunk(b"x" * size)
                        left -= size
                    self.chunk(b"\n")
                elif kind == "trickle":
                    for byte in value:
                        self.chunk(bytes([byte]))
                        time.sleep(0.002)
                elif kind == "drop":
                    if value:
                        self.chunk(value[: len(value) // 2])
                    self.abort()
                    return
                elif kind == "stall":
                    while True:
                        time.sleep(3600)
                elif kind == "end":
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
        except (BrokenPipeError, ConnectionResetError, OSError):
            return
        finally:
            with lock:
                streams.get(topic, set()).discard(inbox)

    def abort(self):
        try:
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def log_message(self, *args):
        pass


def main():
    global keepalive
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--keepalive", type=float, default=0.5)
    args = parser.parse_args()
    keepalive = args.keepalive
    http.server.ThreadingHTTPServer.daemon_threads = True
    http.server.ThreadingHTTPServer.allow_reuse_address = True
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
