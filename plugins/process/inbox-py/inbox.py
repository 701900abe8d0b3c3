#!/usr/bin/env python3
# inbox-py: a process plugin in Python, with the data and background roles.
# The data handler suppresses spam (data "spam": "1"); the background handler
# writes one line per message to a file in the plugin's state folder.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "../../../sdk/python"))
if os.environ.get("PUSHHOST_SDK_PYTHON"):
    sys.path.insert(0, os.environ["PUSHHOST_SDK_PYTHON"])
import pushhost  # noqa: E402

inbox = os.path.join(pushhost.state, pushhost.settings.get("file", "inbox.log"))


def data(message):
    return "suppress" if message["data"].get("spam") == "1" else "continue"


def background(message):
    shown = message.get("notification", {})
    line = [message["id"], message.get("target", ""), shown.get("title", ""),
            shown.get("body", ""), message["priority"]]
    with open(inbox, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, ensure_ascii=False) + "\n")
    pushhost.log("inbox:", message["id"], repr(shown.get("title", "")))


pushhost.run(data=data, background=background)
