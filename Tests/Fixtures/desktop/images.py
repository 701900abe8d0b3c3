#!/usr/bin/python3
"""A web server on loopback for the desktop plugin's image tests. Prints its
port, then serves until killed:

    /small.png   a PNG of 2,000 bytes
    /big.png     a PNG of 300,000 bytes
    /page.png    HTML, whatever its name says
    /slow.png    a small PNG, after 3 seconds
    anything else: 404
"""
import http.server
import sys
import time

PNG = b"\x89PNG\r\n\x1a\n"


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
        data = body(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
