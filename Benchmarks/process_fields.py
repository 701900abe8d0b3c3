"""The Python side of Benchmarks/throughput's process rows: one function that
reads what a typical handler reads of a message (its target, data.title,
data.body and priority) and adds up their lengths, called two ways:

  python3 process_fields.py --alone OUT < records.ndjson
      reads the NDJSON itself, json.loads per line: the most Python can do;
  as a process plugin (background role, on the SDK of sdk/python), the host
      handing it each message, its out file the setting "out".

At the end it writes "messages N bytes B" to OUT.
"""
import atexit
import json
import os
import sys

seen = [0, 0]


def fields(target, title, body, priority):
    seen[0] += 1
    seen[1] += len(target or "") + len(title or "") + len(body or "") + len(priority or "")


def write(path):
    with open(path, "w") as out:
        out.write("messages %d bytes %d\n" % (seen[0], seen[1]))


if sys.argv[1:2] == ["--alone"]:
    for line in sys.stdin.buffer:
        record = json.loads(line)
        data = record.get("data", {})
        fields(data.get("rx_gcm_key_target"), data.get("title"), data.get("body"), record.get("priority"))
    write(sys.argv[2])
else:
    import pushhost  # the SDK, beside this file

    atexit.register(write, pushhost.settings["out"])

    def background(message):
        data = message["data"]
        fields(message.get("target"), data.get("title"), data.get("body"), message["priority"])

    pushhost.run(background=background)
