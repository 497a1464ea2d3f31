# A serial port for tests: a pty pair whose master side is joined to a unix socket (a fake host's agent), the slave's path printed on stdout.
# Python's pty module is used because Node has no openpty(); the slave starts in the kernel's default cooked mode, as a real serial port does.
import os
import pty
import select
import socket
import sys

master, slave = pty.openpty()  # the slave fd stays open here, so the master never reads EIO between guest opens
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
print(os.ttyname(slave), flush=True)
while True:
    ready, _, _ = select.select([master, conn, sys.stdin], [], [])
    if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1):
        break  # the test closed our stdin: done
    if master in ready:
        data = os.read(master, 65536)
        if data:
            conn.sendall(data)
    if conn in ready:
        data = conn.recv(65536)
        if not data:
            break
        os.write(master, data)
