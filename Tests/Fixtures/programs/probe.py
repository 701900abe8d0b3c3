"""A process plugin for the host's tests, speaking the protocol without the SDK.

Each call is noted in calls.log in its state folder ("CALL ID", or "token T P",
"action A I ID"); what it answers is driven by the message's data:
  verdict: continue | suppress | error   (a data call's answer)
  act: kill | hang | garbage | stranger | twice | verdict | endless | read | connect | late
  path, port: what read and connect try; delay_ms: how long late waits.
With the setting "reverse", it answers each chunk of calls in reverse order.
"""
import json, os, signal, socket, sys, time

state = os.environ["PUSHHOST_STATE"]
settings = json.loads(os.environ["PUSHHOST_SETTINGS"])
log = open(os.path.join(state, "calls.log"), "a", buffering=1)
if settings.get("first_line"):
    sys.stdout.write(settings["first_line"] + "\n")
else:
    sys.stdout.write('{"pushhost":1}\n')
sys.stdout.flush()
print("started with", os.environ["PUSHHOST_PLUGIN"], "in", os.getcwd(), file=sys.stderr, flush=True)


def attempt(data):
    try:
        if data.get("act") == "read":
            with open(data["path"]) as f:
                f.read()
        else:
            socket.create_connection(("127.0.0.1", int(data["port"])), timeout=2).close()
        return None
    except OSError as e:
        return "%s: %s" % (data.get("act"), e.strerror)


def handle(call):
    kind, id = call["call"], call["id"]
    if kind == "token":
        log.write("token %s %s\n" % (call["token"], call.get("previous", "-")))
        return {"id": id}
    message = call["message"]
    data = message.get("data", {})
    if kind == "action":
        log.write("action %s %s %s\n" % (call["action"], call.get("input", "-"), message["id"]))
    else:
        log.write("%s %s\n" % (kind, message["id"]))
    act = data.get("act")
    if act == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if act == "hang":
        time.sleep(3600)
    if act == "garbage":
        return "this is no answer"
    if act == "stranger":
        return {"id": id + 1000}
    if act == "twice":
        return [{"id": id}, {"id": id}]
    if act == "verdict":
        return {"id": id, "verdict": "suppress"}
    if act == "endless":
        os.write(1, b"x" * 70000)
        time.sleep(3600)
    if act == "late":
        time.sleep(int(data.get("delay_ms", "0")) / 1000)
    if act in ("read", "connect"):
        problem = attempt(data)
        return {"id": id, "error": problem} if problem else {"id": id}
    if kind == "data":
        verdict = data.get("verdict", "continue")
        if verdict == "error":
            return {"id": id, "error": "no verdict for " + message["id"]}
        return {"id": id, "verdict": verdict}
    return {"id": id}


pending = b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    pending += chunk
    *lines, pending = pending.split(b"\n")
    answers = []
    for line in lines:
        answer = handle(json.loads(line))
        answers += answer if isinstance(answer, list) else [answer]
    if settings.get("reverse") == "true":
        answers.reverse()
    out = "".join(a + "\n" if isinstance(a, str) else json.dumps(a) + "\n" for a in answers)
    os.write(1, out.encode())
log.write("end\n")
