"""What the tests' D-Bus fixtures (desktop/notifications.py,
unifiedpush/distributor.py) share."""
import sys
import time


def wait_for_owner(bus, name, seconds=10):
    """Returns once somebody owns name on bus; exits with the reason after seconds."""
    deadline = time.monotonic() + seconds
    while not bus.name_has_owner(name):
        if time.monotonic() > deadline:
            sys.exit(f"nobody owns {name} after {seconds} s")
        time.sleep(0.02)
