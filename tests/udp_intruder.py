"""Sends a node's udp port the datagrams an outsider could: bytes that are
no Tessera datagram, a header too short, and well-formed headers from node
1 to node 0 with a guessed token, each with data. The node must drop and
count every one (udp_rejected) and the job must carry on."""
import socket
import struct
import sys

REL_MAGIC, REL_DATA, REL_ACK = 0x55525354, 1, 3
port = int(sys.argv[1])


def header(token, kind, length):
    # rel_hdr: magic, src, dst, token, seq, ack, sack, kind, len, members
    return struct.pack("<IHHQIIQHHI", REL_MAGIC, 1, 0, token, 0, 0, 0, kind, length, 0)


datagrams = [b"x" * 100, struct.pack("<I", REL_MAGIC) + b"\0" * 10]
for token in (0, 1, 0xDEADBEEF):
    datagrams.append(header(token, REL_DATA, 32) + b"\0" * 32)
    datagrams.append(header(token, REL_ACK, 0))
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    for d in datagrams:
        s.sendto(d, ("127.0.0.1", port))
print(len(datagrams))
