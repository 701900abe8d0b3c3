"""pushhost: the Python SDK for process plugins, protocol 1.

A process plugin is a program that pushhost starts and talks to in JSON
lines: calls on the program's standard input, one answer per call on its
standard output. This module is the program's side of that protocol
(docs/process-plugins.md). It needs Python 3.11's standard library only.

    import pushhost

    def data(message):
        return "suppress" if message["data"].get("spam") == "1" else None

    def background(message):
        pushhost.log("got", message["id"])

    pushhost.run(data=data, background=background)

- ``name``: the plugin's name (PUSHHOST_PLUGIN).
- ``state``: the plugin's state folder, the one folder it may write
  (PUSHHOST_STATE).
- ``settings``: the plugin's settings, a dict whose values are all strings
  (PUSHHOST_SETTINGS).
- ``log(*parts, level="info")``: one log line under the plugin's name.
- ``run(data=, background=, target=, mismatch=, token=, action=)``: answers
  calls until the host closes standard input, then ends the program with
  status 0. It never returns.

Outside the host (no PUSHHOST_* variables), ``name`` and ``state`` are empty
strings and ``settings`` is an empty dict.
"""

import json
import os
import sys

__all__ = ["PROTOCOL", "name", "state", "settings", "log", "run"]

PROTOCOL = 1

name = os.environ.get("PUSHHOST_PLUGIN", "")
state = os.environ.get("PUSHHOST_STATE", "")
settings = json.loads(os.environ.get("PUSHHOST_SETTINGS") or "{}")

LEVELS = ("trace", "debug", "info", "notice", "warning", "error", "critical")

_READY = b'{"pushhost":1}\n'
_DONE = '{"id":%d}\n'
_SUPPRESS = '{"id":%d,"verdict":"suppress"}\n'
_LOG_LIMIT = 2048


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def log(*parts, level="info"):
    """Writes one log line: the parts joined by spaces, as print joins them.

    Under the host, the line is a JSON record on standard error that names
    the plugin, which the host logs at ``level`` as the plugin's own line.
    Outside the host (no PUSHHOST_PLUGIN), it is plain text: ``LEVEL: TEXT``.
    """
    if level not in LEVELS:
        raise ValueError("level %r is none of %s" % (level, ", ".join(LEVELS)))
    text = " ".join(p if type(p) is str else str(p) for p in parts)
    if not name:
        _write_all(2, ("%s: %s\n" % (level, text)).encode("utf-8", "backslashreplace"))
        return
    # A record longer than the host takes whole (2,048 bytes) loses the end
    # of its text, so that it is still logged at its level.
    raw = text.encode("utf-8", "replace")
    text = raw.decode("utf-8")
    while True:
        line = json.dumps({"level": level, "source": name, "message": text}, ensure_ascii=False).encode()
        over = len(line) + 1 - _LOG_LIMIT
        if over <= 0:
            break
        raw = raw[:max(0, len(raw) - over - 3)]
        text = raw.decode("utf-8", "ignore") + "\u2026"
    _write_all(2, line + b"\n")


def _error(id, reason):
    # Cut, since a line may not be longer than the host takes, and with any
    # lone surrogate replaced, which would not make valid JSON text.
    reason = reason[:2000].encode("utf-8", "replace").decode("utf-8")
    return '{"id":%d,"error":%s}\n' % (id, json.dumps(reason))


def _reason(e):
    try:
        text = str(e)
    except Exception:
        text = ""
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _nothing(message):
    return None


def _take_stdout():
    # Standard output carries the answers. From here on, whatever else is
    # written to it (print, a child process, a C library) goes to standard
    # error instead, where the host logs it, and cannot break an answer.
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def run(*, data=None, background=None, target=None, mismatch=None, token=None, action=None):
    """Answers the host's calls until it closes standard input, then exits 0.

    Each handler is optional; a call for a handler not given gets an error
    answer. ``data(message)`` returns the verdict: None, True or "continue"
    to continue, False or "suppress" to suppress. ``background``,
    ``target`` and ``mismatch`` take the message, ``token`` takes
    ``(token, previous)`` and ``action`` takes ``(action, input, message)``;
    ``previous`` and ``input`` are None when absent. Their return values are
    ignored. A handler that raises fails its call, with the exception's type
    and text as the reason. A program with ``target`` and no ``mismatch``
    answers mismatch calls as done, doing nothing.

    From here on, standard output carries the answers only: print and
    anything else written to it goes to standard error, which the host logs.
    """
    given = {"data": data, "background": background, "target": target,
             "mismatch": mismatch, "token": token, "action": action}
    for role, fn in given.items():
        if fn is not None and not callable(fn):
            raise TypeError("run: %s= is not callable" % role)
    if target is not None and mismatch is None:
        mismatch = _nothing

    # The calls whose handler takes the message and whose result is ignored.
    plain = {call: fn for call, fn in (("background", background),
                                       ("target", target),
                                       ("mismatch", mismatch)) if fn is not None}

    loads = json.loads
    scan = getattr(json.decoder.JSONDecoder(), "scan_once", None) or (lambda s, i: (loads(s), len(s)))
    done = _DONE
    suppress = _SUPPRESS
    error = _error
    reason = _reason

    def handle(lines):
        out = []
        add = out.append
        for line in lines:
            if not line:
                continue
            try:
                # The scanner alone, without json.loads's checks around it;
                # a line it does not take whole goes to json.loads.
                try:
                    call, end = scan(line, 0)
                    if end != len(line):
                        raise ValueError
                except Exception:
                    call = loads(line)
                id = call["id"]
                kind = call["call"]
                if type(id) is not int:
                    raise ValueError("its id is not an integer")
            except Exception as e:
                log("a line from the host that is not a call (%s): %.200s" % (reason(e), line),
                    level="error")
                continue
            try:
                fn = plain.get(kind)
                if fn is not None:
                    fn(call["message"])
                    add(done % id)
                elif kind == "data":
                    if data is None:
                        add(error(id, "no data handler in this program"))
                        continue
                    verdict = data(call["message"])
                    if verdict is None or verdict is True or verdict == "continue":
                        add(done % id)
                    elif verdict is False or verdict == "suppress":
                        add(suppress % id)
                    else:
                        add(error(id, "the data handler returned %.100r, which is no verdict "
                                      "(None, True, \"continue\", False, \"suppress\")" % (verdict,)))
                elif kind == "token":
                    if token is None:
                        add(error(id, "no token handler in this program"))
                        continue
                    token(call["token"], call.get("previous"))
                    add(done % id)
                elif kind == "action":
                    if action is None:
                        add(error(id, "no action handler in this program"))
                        continue
                    action(call["action"], call.get("input"), call["message"])
                    add(done % id)
                elif kind in given:
                    add(error(id, "no %s handler in this program" % kind))
                else:
                    add(error(id, "unknown call %.100r" % (kind,)))
            except Exception as e:
                add(error(id, reason(e)))
        return out

    out = _take_stdout()
    _write_all(out, _READY)
    read = os.read
    pieces = []  # the start of a line that no read has ended yet
    try:
        while True:
            chunk = read(0, 1 << 16)
            if not chunk:
                break
            cut = chunk.rfind(b"\n")
            if cut < 0:
                pieces.append(chunk)
                continue
            if pieces:
                pieces.append(chunk[:cut])
                head = b"".join(pieces)
                pieces = []
            else:
                head = chunk[:cut]
            if cut + 1 < len(chunk):
                pieces.append(chunk[cut + 1:])
            answers = handle(head.decode("utf-8", "replace").split("\n"))
            if answers:
                _write_all(out, "".join(answers).encode())
        # The end of input: a last line without its newline is a line too.
        last = b"".join(pieces).strip()
        if last:
            answers = handle([last.decode("utf-8", "replace")])
            if answers:
                _write_all(out, "".join(answers).encode())
    except BrokenPipeError:
        # The host no longer reads the answers: nothing left to do.
        pass
    sys.exit(0)
