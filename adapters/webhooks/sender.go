// Package webhooks is the outbound side of contract §11: the sender that
// POSTs deliveries to partners' servers, which are somebody else's
// servers (bounded time, connections and bytes read; no redirects; only
// public addresses dialled for a host not allowed otherwise). The
// delivery workers' metrics are adapters/metrics' (Deliveries).
package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// MaxAnswerBytes is the most of a receiver's answer that is read (contract
// §11: 64 KiB); the connection is closed on the rest.
const MaxAnswerBytes = 64 << 10

// maxAnswerHeaderBytes bounds the answer's header block likewise.
const maxAnswerHeaderBytes = 64 << 10

// Options are the sender's settings (webhooks.*).
type Options struct {
	Timeout time.Duration // webhooks.timeout: one attempt, from dial to the answer read; above 0
	// InsecureHosts are webhooks.allow_insecure_hosts: hosts that may use
	// http and private or loopback addresses (domain.InsecureHostAddr).
	InsecureHosts []string
	// MaxConnsPerHost bounds the connections to one host (above 0): the
	// workers in all (the composition root's), so that a host shared by
	// several partners' receivers is no queue between them.
	MaxConnsPerHost int
	UserAgent       string // "" is "disbursementd-webhooks"
	// RootCAs replaces the system's roots. For tests only (a test
	// receiver's CA): the composition root never sets it.
	RootCAs *x509.CertPool
}

// Sender is the ports.WebhookSender over net/http.
type Sender struct {
	client    *http.Client
	transport *http.Transport
	rules     domain.WebhookURLRules
	timeout   time.Duration
	userAgent string
}

var _ ports.WebhookSender = (*Sender)(nil)

// NewSender returns a sender with its own transport: no proxy from the
// environment, TLS 1.2 or later, at most o.MaxConnsPerHost connections
// to a host, redirects never followed, and every address dialled checked
// (domain.PublicAddr, or domain.InsecureHostAddr for a host allowed
// insecure).
func NewSender(o Options) (*Sender, error) {
	if o.Timeout <= 0 || o.MaxConnsPerHost < 1 {
		return nil, fmt.Errorf("webhooks: a timeout (%s) and a bound of connections per host (%d) above 0 are required", o.Timeout, o.MaxConnsPerHost)
	}
	if o.UserAgent == "" {
		o.UserAgent = "disbursementd-webhooks"
	}
	s := &Sender{rules: domain.NewWebhookURLRules(o.InsecureHosts), timeout: o.Timeout, userAgent: o.UserAgent}
	s.transport = &http.Transport{
		Proxy:                  nil, // never HTTPS_PROXY: the address dialled is the one checked
		DialContext:            s.dial,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs},
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: maxAnswerHeaderBytes,
		MaxConnsPerHost:        o.MaxConnsPerHost,
		MaxIdleConnsPerHost:    o.MaxConnsPerHost,
		MaxIdleConns:           100,
		IdleConnTimeout:        90 * time.Second,
		DisableCompression:     true, // the bytes read are the bytes sent
	}
	s.client = &http.Client{
		Transport:     s.transport,
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s, nil
}

// refusedAddress is the dialler's refusal of an address that is not
// public, for a host not allowed insecure, or neither public, private nor
// loopback for one that is.
type refusedAddress struct {
	addr    string
	allowed bool // the host is in webhooks.allow_insecure_hosts
}

func (e *refusedAddress) Error() string {
	if e.allowed {
		return "webhooks: " + e.addr + " is not a public, private or loopback address (link-local, unspecified, multicast or reserved)"
	}
	return "webhooks: " + e.addr + " is not a public address, and the host is not in webhooks.allow_insecure_hosts"
}

// dial connects to addr (the URL's host and port), checking each address
// it resolves to as it connects: a name that resolves to a private or
// loopback address is refused, whatever it resolved to when the endpoint
// was saved.
func (s *Sender) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	// A host allowed insecure may use private or loopback addresses
	// (contract §11), never link-local (cloud metadata), unspecified,
	// multicast or the other non-public ranges: its name may be rebound.
	insecure := s.rules.Insecure(host)
	allowed := domain.PublicAddr
	if insecure {
		allowed = domain.InsecureHostAddr
	}
	d := &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !allowed(ap.Addr()) {
			return &refusedAddress{addr: address, allowed: insecure}
		}
		return nil
	}}
	return d.DialContext(ctx, network, addr)
}

// Send POSTs r and says what came of it. It never returns the receiver's
// words: a status code, or a class (domain.Attempt*).
func (s *Sender) Send(ctx context.Context, r ports.WebhookRequest) ports.WebhookResult {
	// The real time an attempt took, not the service's clock: it is a
	// measure of somebody else's server.
	start := time.Now()
	res := s.send(ctx, r)
	res.Duration = time.Since(start)
	return res
}

func (s *Sender) send(ctx context.Context, r ports.WebhookRequest) ports.WebhookResult {
	// The URL is judged again by the rules in force now: an endpoint
	// saved before its host left the allow-list is not reached by http.
	if _, err := s.rules.CheckEndpoint(domain.EndpointRequest{URL: r.URL}); err != nil {
		return ports.WebhookResult{Error: domain.AttemptRefusedAddress}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return ports.WebhookResult{Error: domain.AttemptConnection}
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return ports.WebhookResult{Error: classify(err)}
	}
	// At most MaxAnswerBytes are read; closing the body with more unread
	// closes the connection.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswerBytes))
	_ = resp.Body.Close()
	res := ports.WebhookResult{StatusCode: resp.StatusCode}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Error = domain.AttemptHTTPStatus
	}
	return res
}

// Close closes the idle connections; a sender is not used after.
func (s *Sender) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// classify names the class of a POST that got no answer.
func classify(err error) string {
	var (
		refused  *refusedAddress
		netErr   net.Error
		opErr    *net.OpError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		hostname x509.HostnameError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &refused):
		return domain.AttemptRefusedAddress
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.As(err, &netErr) && netErr.Timeout():
		// No answer in time, or the service stopping cut it short.
		return domain.AttemptTimeout
	case errors.As(err, &verify), errors.As(err, &record), errors.As(err, &alert),
		errors.As(err, &hostname), errors.As(err, &unknown), errors.As(err, &invalid),
		// crypto/tls reports the receiver's alert (an old version, a
		// refused certificate) as a net.OpError of this Op.
		errors.As(err, &opErr) && opErr.Op == "remote error":
		return domain.AttemptTLS
	}
	return domain.AttemptConnection
}
