#!/usr/bin/env python3
"""A learning Ethernet switch for the multi-VM rig (tests/vm/run-vms.sh).

One unix socket per segment, DIR/SEG.sock; qemu plugs a NIC in with
  -netdev stream,id=N,server=off,addr.type=unix,addr.path=DIR/SEG.sock
(qemu 7.2's stream framing: a 4-byte big-endian length, then the frame).
Every connection to a segment's socket is one port of that segment's
switch, so several VMs share one socket.  qemu does not reconnect: start
the switch first; DIR/vswitch.ready appears once every socket listens.
Frames go to the port their destination MAC was learnt on, else to every
other port of the segment; a port whose queue passes 4 MiB drops frames
(as a switch drops), so a VM that stops reading holds up nobody.
On SIGTERM or at the end of its lifetime it prints, for every port it ever
had, frames in and out, the queue's peak and the drops; and as it happens,
why a port closed.
Usage: vswitch.py DIR SEG... [--lifetime S]   (default 1800 s, then exit)
"""
import os
import selectors
import signal
import socket
import struct
import sys
import time

QUEUE_MAX = 4 << 20
FRAME_MAX = 65536 + 4


class Port:
    def __init__(self, sock, seg):
        self.sock, self.seg = sock, seg
        self.inbuf, self.out = b"", bytearray()
        self.mac, self.dropped, self.peak, self.rx, self.tx = None, 0, 0, 0, 0

    def name(self):
        """The segment and the MAC learnt on this port ("?" before any)."""
        mac = ":".join("%02x" % b for b in self.mac) if self.mac else "?"
        return "%s port %s" % (self.seg, mac)


def main(argv):
    lifetime = 1800.0
    if "--lifetime" in argv:
        i = argv.index("--lifetime")
        lifetime = float(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) < 2:
        sys.exit("usage: vswitch.py DIR SEG... [--lifetime S]")
    d, segs = argv[0], argv[1:]
    sel = selectors.DefaultSelector()
    macs = {s: {} for s in segs}  # segment -> mac -> Port
    ports = {s: [] for s in segs}
    seen = []  # every port ever connected, for the closing statistics
    for s in segs:
        path = os.path.join(d, s + ".sock")
        if os.path.exists(path):
            os.unlink(path)
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(path)
        ls.listen(16)
        ls.setblocking(False)
        sel.register(ls, selectors.EVENT_READ, ("listen", s))
    with open(os.path.join(d, "vswitch.ready"), "w") as f:
        f.write("%d\n" % os.getpid())
    end = time.monotonic() + lifetime
    stats = {"frames": 0, "dropped": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    t0 = time.monotonic()

    def drop(p, why):
        print("vswitch: %.1f s: %s closed: %s" % (time.monotonic() - t0, p.name(), why),
              file=sys.stderr, flush=True)
        sel.unregister(p.sock)
        p.sock.close()
        ports[p.seg].remove(p)
        for m in [m for m, q in macs[p.seg].items() if q is p]:
            del macs[p.seg][m]

    def send(p, frame):
        if len(p.out) > QUEUE_MAX:
            stats["dropped"] += 1
            p.dropped += 1
            return
        p.tx += 1
        was_empty = not p.out
        p.out += struct.pack(">I", len(frame)) + frame
        p.peak = max(p.peak, len(p.out))
        if was_empty:
            sel.modify(p.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, ("port", p))

    def forward(p, frame):
        stats["frames"] += 1
        p.rx += 1
        if len(frame) < 14:
            return
        dst, src = frame[0:6], frame[6:12]
        if not src[0] & 1:
            macs[p.seg][src] = p
            p.mac = p.mac or src
        to = macs[p.seg].get(dst) if not dst[0] & 1 else None
        if to is p:
            return
        for q in [to] if to else [q for q in ports[p.seg] if q is not p]:
            send(q, frame)

    while time.monotonic() < end and not stop:
        for key, ev in sel.select(timeout=1.0):
            kind, obj = key.data
            if kind == "listen":
                c, _ = key.fileobj.accept()
                c.setblocking(False)
                p = Port(c, obj)
                ports[obj].append(p)
                seen.append(p)
                sel.register(c, selectors.EVENT_READ, ("port", p))
                continue
            p = obj
            if ev & selectors.EVENT_WRITE and p.out:
                try:
                    n = p.sock.send(p.out)
                    del p.out[:n]
                except BlockingIOError:
                    pass
                except OSError as e:
                    drop(p, "send: %s" % e)
                    continue
                if not p.out:
                    sel.modify(p.sock, selectors.EVENT_READ, ("port", p))
            if ev & selectors.EVENT_READ:
                try:
                    data = p.sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError as e:
                    drop(p, "recv: %s" % e)
                    continue
                if not data:
                    drop(p, "end of stream")
                    continue
                buf = p.inbuf + data
                while len(buf) >= 4:
                    n = struct.unpack(">I", buf[:4])[0]
                    if n > FRAME_MAX:
                        buf = b""
                        drop(p, "frame of %d bytes" % n)
                        break
                    if len(buf) < 4 + n:
                        break
                    forward(p, buf[4:4 + n])
                    buf = buf[4 + n:]
                p.inbuf = buf
    print("vswitch: %d frames, %d dropped" % (stats["frames"], stats["dropped"]), file=sys.stderr)
    for p in seen:
        print("vswitch: %s: %d frames in, %d out, queue peak %d bytes, %d dropped"
              % (p.name(), p.rx, p.tx, p.peak, p.dropped), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
