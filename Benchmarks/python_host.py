#!/usr/bin/env python3
"""The host a user might write in five minutes instead of pushhost: read
NDJSON, json.loads each line, read what a typical plugin reads (the target,
data.title, data.body and priority, adding up their lengths as the fields
plugins do), and call a plugin's data and background handlers through
ctypes. Used by Benchmarks/throughput.

Usage: python_host.py DATA.so BACKGROUND.so < input.ndjson
"""
import ctypes
import json
import sys

HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
DATA_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class Plugin(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
        ("name", ctypes.c_char_p), ("version", ctypes.c_char_p), ("description", ctypes.c_char_p),
        ("targets", ctypes.c_void_p), ("create", ctypes.c_void_p), ("destroy", ctypes.c_void_p),
        ("on_data", DATA_HANDLER), ("on_background", HANDLER),
    ]


def load(path):
    library = ctypes.CDLL(path)
    library.ph_plugin_entry.restype = ctypes.POINTER(Plugin)
    return library.ph_plugin_entry().contents


def main():
    data, background = load(sys.argv[1]), load(sys.argv[2])
    total = 0
    for line in sys.stdin:
        message = json.loads(line)
        fields = message.get("data", {})
        for value in (fields.get("rx_gcm_key_target"), fields.get("title"), fields.get("body"), message.get("priority")):
            total += len(value) if isinstance(value, str) else 0
        if data.on_data(None, None) == 0:
            background.on_background(None, None)
    print("bytes %d" % total)


if __name__ == "__main__":
    main()
