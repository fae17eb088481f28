"""Run commands in a network namespace where every network attempt is caught, and report the attempts.

Started by ``tests/e2e/test_no_network.py`` as ``unshare --user --map-root-user --net python
offline_sandbox.py COMMANDS.json``; only the standard library is used (no ``ip``, no ``strace``).

In a fresh network namespace the only interface is ``lo``, down, and a ``connect()`` or DNS query
fails at once with "network unreachable" without leaving a trace. So the namespace is made to
*catch* instead: ``lo`` goes up and every IPv4 and IPv6 address is routed to it as a local address
(the "AnyIP" route, ``ip route add local 0.0.0.0/0 dev lo``, sent here over rtnetlink). Any packet a
command sends — a DNS query to whatever ``/etc/resolv.conf`` names, a TCP connection to any host —
then crosses ``lo``, where a packet socket records it; nothing listens, so the sender gets a refusal
at once and nothing leaves the machine.

Prints one JSON object: ``{"commands": [{"argv", "returncode", "stdout", "stderr"}], "packets":
[{"family", "protocol", "destination", "port", "dns_name"}]}``. Exit status 3 when the sandbox
cannot be set up.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
from ipaddress import ip_address

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
RTM_NEWROUTE, NLMSG_ERROR = 24, 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 0x1, 0x4, 0x200, 0x400
RT_TABLE_LOCAL, RTPROT_STATIC, RT_SCOPE_HOST, RTN_LOCAL, RTA_OIF = 255, 4, 254, 2, 4
ETH_P_ALL, PACKET_OUTGOING = 0x0003, 4


def loopback_up() -> None:
    """Bring ``lo`` up (what ``ip link set lo up`` does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh22x", b"lo", 0)
        flags = struct.unpack("16sh22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | IFF_UP))


def route_everything_to_loopback(family: int) -> None:
    """``ip route add local 0.0.0.0/0 dev lo`` (or ``::/0``): every address of ``family`` is local."""
    header = struct.pack("=BBBBBBBBI", family, 0, 0, 0, RT_TABLE_LOCAL, RTPROT_STATIC, RT_SCOPE_HOST, RTN_LOCAL, 0)
    attribute = struct.pack("=HHI", 8, RTA_OIF, socket.if_nametoindex("lo"))
    body = header + attribute
    message = struct.pack("=IHHII", 16 + len(body), RTM_NEWROUTE,
                          NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 1, 0) + body
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as sock:
        sock.sendto(message, (0, 0))
        reply = sock.recv(4096)
    kind = struct.unpack_from("=H", reply, 4)[0]
    error = struct.unpack_from("=i", reply, 16)[0] if kind == NLMSG_ERROR else 0
    if error:
        raise OSError(-error, f"adding the catch-all route for family {family}: {os.strerror(-error)}")


def _dns_name(payload: bytes) -> str | None:
    """The first question's name of a DNS query (UDP payload), or None when it does not parse."""
    labels, offset = [], 12
    try:
        while payload[offset]:
            length = payload[offset]
            labels.append(payload[offset + 1 : offset + 1 + length].decode("ascii", "replace"))
            offset += 1 + length
    except IndexError:
        return None
    return ".".join(labels)


def describe(frame: bytes) -> dict:
    """Family, protocol, destination, port (and DNS name) of an IP packet seen on ``lo``."""
    ethertype = struct.unpack_from("!H", frame, 12)[0]
    packet = frame[14:]
    if ethertype == 0x0800:
        header = (packet[0] & 0x0F) * 4
        protocol, destination, family = packet[9], ip_address(packet[16:20]), "ipv4"
    elif ethertype == 0x86DD:
        header, protocol, destination, family = 40, packet[6], ip_address(packet[24:40]), "ipv6"
    else:
        return {"family": hex(ethertype), "protocol": None, "destination": None, "port": None, "dns_name": None}
    port = struct.unpack_from("!H", packet, header + 2)[0] if protocol in (6, 17) else None
    name = _dns_name(packet[header + 8 :]) if protocol == 17 and port == 53 else None
    names = {6: "tcp", 17: "udp", 1: "icmp", 58: "icmpv6"}
    return {"family": family, "protocol": names.get(protocol, str(protocol)), "destination": str(destination),
            "port": port, "dns_name": name}


class Catcher:
    """Records every packet sent on ``lo`` while it runs (a packet socket, as ``tcpdump -i lo`` opens)."""

    def __init__(self) -> None:
        self.packets: list[dict] = []
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._sock.bind(("lo", 0))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self._sock], [], [], 0.2)
            if ready:
                frame, address = self._sock.recvfrom(65535)
                packet = describe(frame)
                # Each looped-back packet is also seen arriving; the kernel's "port unreachable"
                # answers are replies to an attempt already recorded.
                if address[2] == PACKET_OUTGOING and packet["protocol"] not in ("icmp", "icmpv6"):
                    self.packets.append(packet)

    def stop(self) -> list[dict]:
        """Stop listening (after draining what is queued) and return the packets seen."""
        self._stop.set()
        self._thread.join()
        self._sock.close()
        return self.packets


def main(commands_file: str) -> int:
    with open(commands_file, encoding="utf-8") as handle:
        commands: list[list[str]] = json.load(handle)
    try:
        loopback_up()
        route_everything_to_loopback(socket.AF_INET)
        route_everything_to_loopback(socket.AF_INET6)
        catcher = Catcher()
    except OSError as error:
        print(f"cannot set up the network sandbox: {error}", file=sys.stderr)
        return 3
    results = []
    try:
        for argv in commands:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
            results.append({"argv": argv, "returncode": done.returncode, "stdout": done.stdout,
                            "stderr": done.stderr})
    finally:
        packets = catcher.stop()
    print(json.dumps({"commands": results, "packets": packets}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
