"""Knocks on a node's peer port the way an outsider would: once with a
well-formed hello carrying the wrong job secret, once with nothing at all.
The node must refuse both and the job must carry on."""
import socket
import struct
import sys
import time

BOOT_MAGIC, MESH_HELLO = 0x31525354, 5
port = int(sys.argv[1])

hello = struct.pack("<IIIiIHH32s", BOOT_MAGIC, MESH_HELLO, 1, 0, 0, 0, 0, b"0" * 32)
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall(hello)
    time.sleep(0.3)
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    time.sleep(0.3)
print("intruder done")
