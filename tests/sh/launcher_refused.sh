#!/usr/bin/env bash
# A gate that refuses a node's hello (too many newcomers waiting to speak,
# or this one late because the host is overloaded, boot/gate.h) closes the
# connection unanswered: the node connects again and repeats its hello
# rather than stop the job. Played against a stand-in for tsrun, which
# refuses the first registration and takes the second; then against one
# that refuses and is gone, which the node must report at once; then
# against one whose queue is full, so the kernel drops the node's SYN and
# a blocking connect(2) would retry for minutes: the node must stop at
# TSR_CONNECT_TIMEOUT.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 is missing"

# The stand-in: refuses the first hello by closing; with "gone" it also
# closes its port, otherwise it takes the second hello, sends a table of
# this one node and reads until the node's BOOT_FIN (boot/boot_proto.h).
# With "full" it fills its listen queue first and never accepts.
cat >"$LOG/tsrun.py" <<'PY'
import os, socket, struct, subprocess, sys, time
mode, prog = sys.argv[1], sys.argv[2:]
HELLO = struct.Struct("<IIIiIHH32s")
MAGIC, TABLE, FIN = 0x31525354, 2, 3
lsock = socket.socket()
lsock.bind(("127.0.0.1", 0))
lsock.listen(0 if mode == "full" else 4)
lsock.settimeout(10)
env = dict(os.environ, TSR_BOOT="127.0.0.1:%d" % lsock.getsockname()[1], TSR_SECRET="ab" * 16,
           TSR_NODE="0", TSR_NODES="1", TSR_TRANSPORT="tcp", TSR_VERBOSE="1")
if mode == "full":
    env["TSR_CONNECT_TIMEOUT"] = "2"
    fill = [socket.socket() for _ in range(3)]
    for f in fill:
        f.setblocking(False)
        f.connect_ex(lsock.getsockname())
    time.sleep(0.2)
    sys.exit(subprocess.run(prog, env=env, timeout=15).returncode)
node = subprocess.Popen(prog, env=env)
def hello(c):
    b = b""
    while len(b) < HELLO.size:
        more = c.recv(HELLO.size - len(b))
        if not more:
            sys.exit("stand-in: the hello was cut short")
        b += more
    return HELLO.unpack(b)
c, _ = lsock.accept()
hello(c)
c.close()
print("stand-in: refused the first hello", flush=True)
if mode == "gone":
    lsock.close()
else:
    c, _ = lsock.accept()
    magic, kind, n, pid, addr, port, pad, secret = hello(c)
    if magic != MAGIC or n != 0 or secret != b"ab" * 16:
        sys.exit("stand-in: a malformed second hello")
    c.sendall(struct.pack("<IIII", MAGIC, TABLE, 1, 0) + struct.pack("<IHH", addr, port, 0))
    notes = b""
    while True:
        more = c.recv(4096)
        if not more:
            break
        notes += more
    if FIN not in [struct.unpack_from("<I", notes, k + 4)[0] for k in range(0, len(notes), 128)]:
        sys.exit("stand-in: no BOOT_FIN from the node")
    print("stand-in: took the second hello", flush=True)
sys.exit(node.wait())
PY

expect_ok "a refused registration is made again, and the job runs" \
    "connecting again" python3 "$LOG/tsrun.py" again $B/tests/mp/startup
grep -q "^startup 1 PASS" "$LOG/out" && grep -q "took the second hello" "$LOG/out" &&
    ok "the node ran once its second hello was taken" || bad "the node's run" "$LOG/out"

start=$(date +%s)
expect_fail "a refusal from a port that is gone stops the node" \
    "did not send the node table" python3 "$LOG/tsrun.py" gone $B/tests/mp/startup
[ $(($(date +%s) - start)) -le 5 ] && ok "it stops at once, not after TSR_CONNECT_TIMEOUT" ||
    bad "it took $(($(date +%s) - start)) s to stop" "$LOG/out"

start=$(date +%s)
expect_fail "a port whose queue is full stops the node" \
    "cannot reach tsrun.*timed out" python3 "$LOG/tsrun.py" full $B/tests/mp/startup
[ $(($(date +%s) - start)) -le 6 ] && ok "it stops at TSR_CONNECT_TIMEOUT (2 s), not minutes later" ||
    bad "it took $(($(date +%s) - start)) s to stop" "$LOG/out"
finish
