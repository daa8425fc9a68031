package app

import (
	"log/slog"
	"net/netip"
)

// broadProxyBits are the prefix lengths below which a trusted-proxy range
// is broad: more than a /16 of IPv4 or a /48 of IPv6 is a network of
// hosts, not a set of proxies.
const broadProxyBits4, broadProxyBits6 = 16, 48

// warnBroadProxies logs a warning for each http.trusted_proxies range
// broader than a set of proxies: every address in it may set
// X-Forwarded-For and so choose the address the login throttle counts.
// It is safe only when nothing else in the range can reach the service
// (a NetworkPolicy, a firewall); the warning says so at every start.
func warnBroadProxies(log *slog.Logger, trusted []netip.Prefix) {
	for _, p := range trusted {
		limit := broadProxyBits6
		if p.Addr().Is4() {
			limit = broadProxyBits4
		}
		if p.Bits() < limit {
			log.Warn("http.trusted_proxies holds a broad range: any host in it can choose the address the login throttle counts; list only the proxies, or let nothing else in the range reach this port",
				"range", p.String())
		}
	}
}
