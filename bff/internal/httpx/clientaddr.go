package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddress finds the browser's address for throttling. X-Forwarded-For is believed only
// as far as it was written by proxies we trust: walking from the right, the first address that
// is not a trusted proxy is the client. A browser that forges the header only adds entries on
// the left, which are never reached, so it cannot reset its own throttle.
type ClientAddress struct {
	TrustedProxies []netip.Prefix
}

func (c ClientAddress) trusted(a netip.Addr) bool {
	for _, p := range c.TrustedProxies {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// Of returns the client address given the TCP peer and the request headers.
func (c ClientAddress) Of(peer string, h http.Header) string {
	host, _, err := net.SplitHostPort(peer)
	if err != nil {
		host = peer
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !c.trusted(addr) {
		return host
	}
	hops := strings.Split(strings.Join(h.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return addr.String()
		}
		if !c.trusted(hop) {
			return hop.String()
		}
		addr = hop
	}
	return addr.String()
}
