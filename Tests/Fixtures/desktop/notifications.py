#!/usr/bin/python3
"""Talks to the mock notification server (python-dbusmock's notification_daemon
template) on a private session bus, for the desktop plugin's tests.

    notifications.py ADDRESS wait [PID]            until org.freedesktop.Notifications is owned (by PID), 10 s at most
    notifications.py ADDRESS calls                 the Notify calls so far, as a JSON array of argument lists
    notifications.py ADDRESS emit NAME SIG ARG...  emits the server's signal NAME (SIG: u and s only)
    notifications.py ADDRESS forge NAME SIG ARG... [-- NAME SIG ARG...]...
                                                   another client's signals, as if from the server (or, for
                                                   NameOwnerChanged, the bus): each sent to everyone, and to
                                                   each connection by its name; SELF stands for the client's name
    notifications.py ADDRESS hang SECONDS          from now on, Notify answers only after SECONDS
    notifications.py ADDRESS slow SECONDS          from now on, Notify answers only after SECONDS, with ids
    notifications.py ADDRESS fail                  from now on, Notify answers with an error
"""
import json
import os
import sys

import dbus
import dbus.lowlevel

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bus_names import wait_for_owner  # noqa: E402  (Tests/Fixtures/bus_names.py)

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"

# A Notify that answers with the next id, the way the template numbers them.
NUMBERED = "self.next_id = getattr(self, 'next_id', 0) + 1; ret = self.next_id"


def arguments(signature, values):
    return [dbus.UInt32(int(v)) if kind == "u" else dbus.String(v) for kind, v in zip(signature, values)]


def forge(bus, signals):
    """Sends each signal (name, signature, values) from this connection, not
    the server's, to everyone listening and to each connection by its unique
    name, as an attacker on the bus would."""
    driver = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
    destinations = [None] + [n for n in driver.ListNames() if n.startswith(":") and n != bus.get_unique_name()]
    for name, signature, values in signals:
        values = [bus.get_unique_name() if v == "SELF" else v for v in values]
        path, interface = ("/org/freedesktop/DBus", "org.freedesktop.DBus") if name == "NameOwnerChanged" else (PATH, NAME)
        for destination in destinations:
            message = dbus.lowlevel.SignalMessage(path, interface, name)
            if destination:
                message.set_destination(destination)
            message.append(*arguments(signature, values), signature=signature)
            bus.send_message(message)
    bus.flush()


def main(address, command, *rest):
    bus = dbus.bus.BusConnection(address)
    if command == "wait":
        wait_for_owner(bus, NAME, pid=int(rest[0]) if rest else None)
        return
    if command == "forge":
        groups = [[]]
        for word in rest:
            if word == "--":
                groups.append([])
            else:
                groups[-1].append(word)
        forge(bus, [(name, signature, values) for name, signature, *values in groups])
        return
    mock = dbus.Interface(bus.get_object(NAME, PATH), "org.freedesktop.DBus.Mock")
    if command == "calls":
        # dbus-python's values are ints, strs, lists and dicts underneath.
        print(json.dumps([list(args) for _, method, args in mock.GetCalls() if method == "Notify"]))
    elif command == "emit":
        name, signature, *values = rest
        mock.EmitSignal(NAME, name, signature, arguments(signature, values))
    elif command == "hang":
        (seconds,) = rest
        mock.AddMethod(NAME, "Notify", "susssasa{sv}i", "u", f"import time; time.sleep({float(seconds)}); ret = 1")
    elif command == "slow":
        (seconds,) = rest
        mock.AddMethod(NAME, "Notify", "susssasa{sv}i", "u", f"import time; time.sleep({float(seconds)}); {NUMBERED}")
    elif command == "fail":
        mock.AddMethod(NAME, "Notify", "susssasa{sv}i", "u",
                       "raise dbus.exceptions.DBusException('the shell is locked', name='org.example.Error.Locked')")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
