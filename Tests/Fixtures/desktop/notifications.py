#!/usr/bin/python3
"""Talks to the mock notification server (python-dbusmock's notification_daemon
template) on a private session bus, for the desktop plugin's tests.

    notifications.py ADDRESS wait                  until org.freedesktop.Notifications is owned (10 s at most)
    notifications.py ADDRESS calls                 the Notify calls so far, as a JSON array of argument lists
    notifications.py ADDRESS emit NAME SIG ARG...  emits the server's signal NAME (SIG: u and s only)
    notifications.py ADDRESS hang SECONDS          from now on, Notify answers only after SECONDS
"""
import json
import os
import sys

import dbus

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bus_names import wait_for_owner  # noqa: E402  (Tests/Fixtures/bus_names.py)

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def main(address, command, *rest):
    bus = dbus.bus.BusConnection(address)
    if command == "wait":
        wait_for_owner(bus, NAME)
        return
    mock = dbus.Interface(bus.get_object(NAME, PATH), "org.freedesktop.DBus.Mock")
    if command == "calls":
        # dbus-python's values are ints, strs, lists and dicts underneath.
        print(json.dumps([list(args) for _, method, args in mock.GetCalls() if method == "Notify"]))
    elif command == "emit":
        name, signature, *values = rest
        args = [dbus.UInt32(int(v)) if kind == "u" else dbus.String(v) for kind, v in zip(signature, values)]
        mock.EmitSignal(NAME, name, signature, args)
    elif command == "hang":
        (seconds,) = rest
        mock.AddMethod(NAME, "Notify", "susssasa{sv}i", "u", f"import time; time.sleep({float(seconds)}); ret = 1")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
