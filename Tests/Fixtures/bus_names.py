"""What the tests' D-Bus fixtures (desktop/notifications.py,
unifiedpush/distributor.py) share."""
import sys
import time


def wait_for_owner(bus, name, seconds=10, pid=None):
    """Returns once somebody owns name on bus (the process pid, when given:
    a server that takes a name over from another); exits with the reason
    after seconds."""
    deadline = time.monotonic() + seconds
    while not owned_by(bus, name, pid):
        if time.monotonic() > deadline:
            sys.exit(f"{'nobody' if pid is None else f'process {pid} no longer'} owns {name} after {seconds} s")
        time.sleep(0.02)


def owned_by(bus, name, pid):
    """Whether name has an owner, and it is the process pid when given."""
    if not bus.name_has_owner(name):
        return False
    if pid is None:
        return True
    import dbus
    daemon = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
    try:
        return int(daemon.GetConnectionUnixProcessID(bus.get_name_owner(name))) == pid
    except dbus.exceptions.DBusException:
        return False  # it changed hands meanwhile
