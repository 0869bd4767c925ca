"""How a client address is counted, by the sign-in throttle and the audit of strangers alike: an IPv4 address
(an IPv4-mapped IPv6 one too) as itself, an IPv6 address by its /64, since one host is given that many."""

from __future__ import annotations

import ipaddress


def counted(address: str) -> str:
    """``203.0.113.7`` for 203.0.113.7 and ::ffff:203.0.113.7, ``2001:db8:1:2::/64`` for any address of that
    /64; anything that is not an address (``unknown``, a host name) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))
