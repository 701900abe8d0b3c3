#!/usr/bin/python3
"""A fake UnifiedPush distributor for the unifiedpush plugin's tests, on a
private session bus: python-dbusmock serving org.unifiedpush.Distributor2 at
/org/unifiedpush/Distributor under the name org.unifiedpush.Distributor.fake,
with Register added here, and the pushes a push server would relay,
encrypted here with `cryptography` (RFC 8291, aes128gcm).

    distributor.py ADDRESS serve                 runs the mock (until killed)
    distributor.py ADDRESS wait                  until the fake distributor is on the bus
    distributor.py ADDRESS accept                Register succeeds, then NewEndpoint is called back
    distributor.py ADDRESS refuse REASON         Register fails with REASON
    distributor.py ADDRESS registrations         the Register calls so far, as JSON
    distributor.py ADDRESS push APP TOKEN KEYS TEXT [ID [VERSION [nowait]]]
                                                 encrypts TEXT to the keys file KEYS and calls Message
                                                 (VERSION 2, the default, or 1); with nowait, sends
                                                 the call and does not wait for its answer
    distributor.py ADDRESS stream APP TOKEN KEYS COUNT ANSWERS
                                                 sends COUNT pushes ({"message_id":"s-N"}, N from 0), one
                                                 after another, each once the last was answered; appends
                                                 "s-N taken" or "s-N refused ERROR" to the file ANSWERS
    distributor.py ADDRESS raw APP TOKEN HEX     calls Message with these bytes as they are
    distributor.py ADDRESS unregister APP TOKEN  calls Unregistered
"""
import base64
import json
import os
import sys

import dbus

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bus_names import wait_for_owner  # noqa: E402  (Tests/Fixtures/bus_names.py)
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

NAME = "org.unifiedpush.Distributor.fake"
PATH = "/org/unifiedpush/Distributor"
CONNECTOR = "/org/unifiedpush/Connector"

# Register's code, run inside the mock: answers at once, and calls the
# connector back without waiting (it is busy waiting for this answer).
ACCEPT = """
service = str(args[0]['service'])
token = str(args[0]['token'])
dbus.SessionBus().get_object(service, '/org/unifiedpush/Connector', introspect=False).NewEndpoint(
    dbus.Dictionary({'token': token, 'endpoint': 'https://push.example.net/up/' + token[:8]}, signature='sv'),
    dbus_interface='org.unifiedpush.Connector2', ignore_reply=True)
ret = {'success': 'REGISTRATION_SUCCEEDED'}
"""


def unbase64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encrypt(plaintext, receiver_public, auth):
    sender = ec.generate_private_key(ec.SECP256R1())
    sender_public = sender.public_key().public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.UncompressedPoint)
    receiver = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver_public)
    secret = sender.exchange(ec.ECDH(), receiver)
    ikm = HKDF(hashes.SHA256(), 32, auth, b"WebPush: info\0" + receiver_public + sender_public).derive(secret)
    salt = os.urandom(16)
    cek = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\0").derive(ikm)
    nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\0").derive(ikm)
    record = AESGCM(cek).encrypt(nonce, plaintext + b"\x02", None)
    return salt + (4096).to_bytes(4, "big") + bytes([len(sender_public)]) + sender_public + record


def connector(bus, app):
    return bus.get_object(app, CONNECTOR, introspect=False)


def message(bus, app, token, body, ident, version, wait=True):
    payload = dbus.Array(body, signature="y")
    if version == "1":
        connector(bus, app).Message(token, payload, ident, dbus_interface="org.unifiedpush.Connector1",
                                    ignore_reply=not wait)
    else:
        arguments = dbus.Dictionary({"token": token, "message": payload, "id": ident}, signature="sv")
        connector(bus, app).Message(arguments, dbus_interface="org.unifiedpush.Connector2", ignore_reply=not wait)
    bus.flush()


def main(address, command, *rest):
    if command == "serve":
        os.execv(sys.executable, [sys.executable, "-m", "dbusmock", "--session", NAME, PATH,
                                  "org.unifiedpush.Distributor2"])
    bus = dbus.bus.BusConnection(address)
    if command == "wait":
        wait_for_owner(bus, NAME)
        return
    mock = dbus.Interface(bus.get_object(NAME, PATH), "org.freedesktop.DBus.Mock")
    if command == "accept":
        mock.AddMethod("org.unifiedpush.Distributor2", "Register", "a{sv}", "a{sv}", ACCEPT)
    elif command == "refuse":
        (reason,) = rest
        mock.AddMethod("org.unifiedpush.Distributor2", "Register", "a{sv}", "a{sv}",
                       f"ret = {{'success': 'REGISTRATION_FAILED', 'reason': {reason!r}}}")
    elif command == "registrations":
        print(json.dumps([dict(args[0]) for _, method, args in mock.GetCalls() if method == "Register"]))
    elif command == "push":
        app, token, keys_file, text, *more = rest
        keys = dict(line.split(" ", 1) for line in open(keys_file).read().splitlines())
        body = encrypt(text.encode(), unbase64(keys["public"]), unbase64(keys["auth"]))
        message(bus, app, token, body, more[0] if more else "", more[1] if len(more) > 1 else "2",
                wait=more[2:] != ["nowait"])
    elif command == "stream":
        app, token, keys_file, count, answers = rest
        keys = dict(line.split(" ", 1) for line in open(keys_file).read().splitlines())
        with open(answers, "a") as out:
            for n in range(int(count)):
                text = json.dumps({"message_id": f"s-{n}", "data": {}})
                body = encrypt(text.encode(), unbase64(keys["public"]), unbase64(keys["auth"]))
                try:
                    message(bus, app, token, body, f"d-s-{n}", "2")
                    out.write(f"s-{n} taken\n")
                except dbus.exceptions.DBusException as error:
                    out.write(f"s-{n} refused {error.get_dbus_name()}\n")
                out.flush()
    elif command == "raw":
        app, token, hex_bytes = rest
        message(bus, app, token, bytes.fromhex(hex_bytes), "raw", "2")
    elif command == "unregister":
        app, token = rest
        arguments = dbus.Dictionary({"token": token}, signature="sv")
        connector(bus, app).Unregistered(arguments, dbus_interface="org.unifiedpush.Connector2")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
