#!/usr/bin/python3
"""A web server for the desktop plugin's image tests. Prints its port, then
serves until killed:

    images.py [ADDRESS [PORT]]   (default 127.0.0.1, a free port)

    /small.png        a PNG of 2,000 bytes
    /big.png          a PNG of 300,000 bytes
    /page.png         HTML, whatever its name says
    /slow.png         a small PNG, after 3 seconds
    /redirect?to=URL  302 to URL
    /requests         the paths asked for so far, one a line (not counted)
    anything else: 404
"""
import http.server
import sys
import threading
import time
import urllib.parse

PNG = b"\x89PNG\r\n\x1a\n"
asked = []
asked_lock = threading.Lock()


def body(path):
    if path == "/small.png":
        return PNG + b"s" * (2000 - len(PNG))
    if path == "/big.png":
        return PNG + b"b" * (300000 - len(PNG))
    if path == "/page.png":
        return b"<!doctype html><title>not an image</title>"
    if path == "/slow.png":
        time.sleep(3)
        return PNG + b"slow"
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/requests":
            with asked_lock:
                self.answer(200, "".join(p + "\n" for p in asked).encode(), "text/plain")
            return
        with asked_lock:
            asked.append(self.path)
        if url.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", urllib.parse.parse_qs(url.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = body(url.path)
        if data is None:
            self.send_error(404)
            return
        self.answer(200, data, "image/png")

    def answer(self, status, data, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
server = http.server.ThreadingHTTPServer((address, port), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
