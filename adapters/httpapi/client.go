package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// clientAddr is the address throttling and logs use: the connection's
// peer, or, only when that peer is a configured trusted proxy, the
// right-most address of X-Forwarded-For that is not itself trusted. A
// client cannot choose its own address by sending the header.
func (s *Server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !s.trusted(peer) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return host // a garbled chain: trust only what we saw
		}
		if !s.trusted(a) {
			return a.Unmap().String()
		}
	}
	return host
}

func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// tokenRef names a token in logs without revealing it: its jti when known,
// else the first 12 hex digits of its SHA-256.
func tokenRef(tok, jti string) string {
	if jti != "" {
		return "jti:" + jti
	}
	return domain.HashRef(tok)
}

// placeKey is the key a client address holds token-body places by: the
// address, or an IPv6 address's /48, a site's prefix, which one host may
// hold whole (the twentieth session's reviews: one host with a /64 took
// every place, a place an address; then one with a /48, a first place a
// /64). Partners at one site share its places.
func placeKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Unmap().Is6() {
		return addr
	}
	return netip.PrefixFrom(a, 48).Masked().String()
}
