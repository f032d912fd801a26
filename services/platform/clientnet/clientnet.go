// Package clientnet is the one rule by which a client is counted from its address, for every
// limit that counts clients: the BFF's rate limits, identity's sign-in and code throttles, and
// notifications' support-form limit. An IPv4 address is one client; an IPv6 client is its /64,
// which one subscriber usually holds whole: counting single IPv6 addresses would give a client
// 2^64 fresh allowances to rotate through.
package clientnet

import (
	"net/netip"
	"strings"
)

// Network is the network a client address ("203.0.113.7", "2001:db8::1", "[2001:db8::1]:443")
// is counted as: the IPv4 address (/32, an IPv4-mapped IPv6 address as its IPv4 address) or the
// IPv6 address's /64. ok is false when s is no address.
func Network(s string) (netip.Prefix, bool) {
	s = strings.TrimSpace(s)
	addr, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Prefix{}, false
		}
		addr = ap.Addr()
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return netip.PrefixFrom(addr, 32), true
	}
	p, err := addr.Prefix(64)
	return p, err == nil
}

// Key is Network as a text key: an IPv4 address as itself ("203.0.113.7"), an IPv6 client as
// its /64 ("2001:db8::/64"). Anything that is no address (empty, a name) is its own key.
func Key(raw string) string {
	p, ok := Network(raw)
	switch {
	case !ok:
		return raw
	case p.Addr().Is4():
		return p.Addr().String()
	default:
		return p.String()
	}
}
