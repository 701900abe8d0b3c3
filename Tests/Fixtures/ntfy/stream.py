#!/usr/bin/python3
"""An ntfy server on loopback for the ntfy tests, standard library only.
Prints its port, then serves until killed, as ntfy serves
`GET /TOPIC/json`: HTTP/1.1, chunked, one JSON object a line, each line
flushed as it goes, the stream opening with an `open` line; then, unlike
ntfy, it ends the stream and closes the connection.

    /alerts/json   open, keepalive, a message with every field, a base64
                   message, a base64 message that is not base64, a
                   poll_request, a message of priority 1 with a PDF attached
    /quiet/json    open, keepalive, poll_request, one plain message
    anything else: 404
"""
import base64
import http.server
import json
import time

T = 1700000000


def line(id, event, topic, **fields):
    return dict(id=id, time=T, event=event, topic=topic, **fields)


STREAMS = {
    "/alerts/json": [
        line("o1", "open", "alerts"),
        line("k1", "keepalive", "alerts"),
        line("m1", "message", "alerts", title="Door", message="Back entrance open", priority=4,
             tags=["door", "warning"], click="https://x/door",
             actions=[{"action": "view", "label": "Open camera", "url": "https://x/cam"}],
             attachment={"name": "cam.jpg", "type": "image/jpeg", "size": 1234, "url": "https://x/cam.jpg"},
             rx_gcm_key_target="door"),
        line("m2", "message", "alerts", title="Café", priority=2, encoding="base64",
             message=base64.b64encode("Closes at 5, \"for real\"".encode()).decode()),
        line("m3", "message", "alerts", title="Broken", message="not base64!", encoding="base64"),
        line("p1", "poll_request", "alerts", message="New message"),
        line("m4", "message", "alerts", title="Report", message="Attached", priority=1,
             attachment={"name": "r.pdf", "type": "application/pdf", "url": "https://x/r.pdf"}),
    ],
    "/quiet/json": [
        line("o1", "open", "quiet"),
        line("k1", "keepalive", "quiet"),
        line("p1", "poll_request", "quiet"),
        line("q1", "message", "quiet", message="All calm"),
    ],
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        lines = STREAMS.get(self.path)
        if lines is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        for record in lines:
            chunk = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
            time.sleep(0.01)
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
