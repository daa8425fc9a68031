package domain

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// EndpointStatus says whether an endpoint receives deliveries.
type EndpointStatus string

// The states of an endpoint.
const (
	EndpointEnabled  EndpointStatus = "enabled"
	EndpointDisabled EndpointStatus = "disabled"
)

// Endpoint is a partner's webhook endpoint (contract §11).
type Endpoint struct {
	Seq         int64  // the store's row id
	ID          string // public id: "we_" and random letters (NewEndpointID)
	PartnerUser string
	URL         string
	EventTypes  []EventType // empty: every type
	Description string
	Status      EndpointStatus
	// DisabledReason says why an endpoint is disabled (an operator, or no
	// delivery for webhooks.disable_after); "" while enabled.
	DisabledReason string
	Secret         WebhookSecret
	// PreviousSecret signs too, beside Secret, until PreviousUntil: the
	// overlap of a rotation.
	PreviousSecret WebhookSecret
	PreviousUntil  time.Time
	CreatedAt      time.Time
	LastSuccessAt  time.Time // zero: never
}

// Takes reports whether e receives events of type t.
func (e Endpoint) Takes(t EventType) bool {
	return len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, t)
}

// Secrets returns the secrets a delivery at now is signed with: the
// current one, and the previous one while the rotation's overlap lasts.
func (e Endpoint) Secrets(now time.Time) []WebhookSecret {
	out := []WebhookSecret{e.Secret}
	if e.PreviousSecret != "" && now.Before(e.PreviousUntil) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// EndpointRequest is an endpoint as a partner asks for it.
type EndpointRequest struct {
	URL         string
	EventTypes  []string // nil or empty: every type
	Description string
}

// WebhookURLRules are the operator's rules for endpoint URLs: the hosts
// that may use http and private or loopback addresses
// (webhooks.allow_insecure_hosts), compared without case.
type WebhookURLRules struct{ insecure []string }

// NewWebhookURLRules returns the rules with hosts allowed http and
// private addresses.
func NewWebhookURLRules(insecureHosts []string) WebhookURLRules {
	hosts := make([]string, len(insecureHosts))
	for i, h := range insecureHosts {
		hosts[i] = strings.ToLower(strings.TrimSuffix(h, "."))
	}
	return WebhookURLRules{insecure: hosts}
}

// Insecure reports whether host (a URL's host without port) may use http
// and private or loopback addresses (InsecureHostAddr).
func (r WebhookURLRules) Insecure(host string) bool {
	// Only an ASCII host is compared: strings.ToLower folds some runes
	// (U+0130, U+212A) to ASCII letters, while net/http dials the host's
	// IDNA form, another name ("hooks.\u0130ntranet.test" lowers to an
	// allowed "hooks.intranet.test" and is dialled as
	// "hooks.xn--intranet-o0e.test": the twenty-first session's review), so
	// a non-ASCII host is never an allowed one.
	if !asciiHost(host) {
		return false
	}
	return slices.Contains(r.insecure, strings.ToLower(strings.TrimSuffix(host, ".")))
}

// CheckEndpoint returns the endpoint req asks for, without ids or secret,
// or an error of kind ErrInvalidInput (code invalid_endpoint) whose
// problems name url, event_types or description.
func (r WebhookURLRules) CheckEndpoint(req EndpointRequest) (Endpoint, error) {
	var problems []Problem
	add := func(field, code, msg string) {
		problems = append(problems, Problem{Field: field, Code: code, Message: msg})
	}
	if code, msg, bad := r.checkURL(req.URL); bad {
		add("url", code, msg)
	}
	var types []EventType
	for _, s := range req.EventTypes {
		t, ok := ParseEventType(s)
		if !ok {
			add("event_types", "invalid_value", "tipo de evento desconocido "+quoteClip(s)+"; los tipos son "+EventTypeNames())
			break
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	desc := NFC(req.Description)
	if utf8.RuneCountInString(desc) > MaxWebhookDescriptionChars || !utf8.ValidString(desc) {
		add("description", "too_long", WebhookDescriptionBound.Es)
	} else {
		for _, c := range desc {
			if unicode.IsControl(c) {
				add("description", "invalid_value", "tiene un carácter de control; una descripción es una línea de texto")
				break
			}
			if p, bad := invisibleFormat(c); bad {
				add("description", p.Code, p.Message)
				break
			}
		}
	}
	if len(problems) > 0 {
		return Endpoint{}, &Error{Kind: ErrInvalidInput, Code: "invalid_endpoint",
			Message: "Endpoint inválido: " + problems[0].Field + ": " + problems[0].Message, Problems: problems}
	}
	return Endpoint{URL: req.URL, EventTypes: types, Description: desc, Status: EndpointEnabled}, nil
}

// checkURL says what is wrong with an endpoint URL: too long, not
// absolute http(s), user information, a fragment, http or a non-public
// address literal for a host not allowed them. Names are checked when
// they are dialled (the adapter), since what they resolve to changes.
func (r WebhookURLRules) checkURL(raw string) (code, msg string, bad bool) {
	if len(raw) > MaxWebhookURLBytes {
		return "too_long", WebhookURLBound.Es, true
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "invalid_value", "no es una URL absoluta: " + WebhookURLBound.Es, true
	}
	host := u.Hostname()
	switch {
	case !asciiHost(host):
		return "invalid_value", "el host debe ir en ASCII (xn-- para un nombre internacional)", true
	case u.User != nil:
		return "invalid_value", "no puede llevar usuario ni contraseña", true
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "invalid_value", "no puede llevar fragmento (#)", true
	case r.Insecure(host):
		if u.Scheme != "https" && u.Scheme != "http" {
			return "invalid_value", "debe ser https o http", true
		}
		return "", "", false
	case u.Scheme != "https":
		return "invalid_value", "debe ser https: " + WebhookURLBound.Es, true
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !PublicAddr(ip) {
		return "invalid_value", "apunta a una dirección no pública (" + ip.String() + ")", true
	}
	return "", "", false
}

// PublicAddr reports whether ip may be dialled for a host not allowed
// insecure addresses: not loopback, private, link-local (cloud metadata
// included), unique-local, unspecified, multicast, the shared (CGNAT),
// benchmarking, documentation or reserved ranges, and for an IPv4-mapped
// IPv6 address the same of its IPv4 address. An IPv6 address must be
// global unicast (2000::/3), outside the special-purpose ranges in it:
// what lies outside (IPv4-compatible ::/96, SIIT's ::ffff:0:0/96,
// site-local fec0::/10, and whatever is assigned later) is refused, not
// listed one by one.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	if ip.Is6() && !globalUnicast6.Contains(ip) {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// globalUnicast6 is IPv6's global unicast space, the only IPv6 that
// PublicAddr allows.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// nonPublic are the ranges PublicAddr refuses beyond what netip names.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 (reaches IPv4 addresses)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, benchmarking, ORCHID)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (embeds IPv4 addresses)
	netip.MustParsePrefix("3fff::/20"),       // documentation
}

// quoteClip quotes what a client sent, cut to MaxQuoted characters.
func quoteClip(s string) string { return "\"" + Clip(s) + "\"" }

// Attempt is one POST of an event to an endpoint, as its log shows it.
type Attempt struct {
	EventID    string // the event's public id (EventID)
	EndpointID string
	At         time.Time
	StatusCode int    // the receiver's HTTP status; 0 when none came
	Error      string // "" on a 2xx; else a class (AttemptTimeout, …), never the receiver's words
	Duration   time.Duration
}

// The classes of a failed attempt, as the attempts log and the metrics
// name them.
const (
	AttemptHTTPStatus      = "http_status"      // an answer other than 2xx (a redirect included)
	AttemptTimeout         = "timeout"          // no answer within webhooks.timeout
	AttemptRefusedAddress  = "refused_address"  // the host resolved to an address not allowed
	AttemptConnection      = "connection"       // DNS, connect or reset
	AttemptTLS             = "tls"              // the receiver's certificate or handshake
	AttemptEndpointChanged = "endpoint_changed" // disabled or deleted before the attempt
)

// asciiHost reports whether h is all ASCII (what net/http dials unchanged).
func asciiHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return false
		}
	}
	return true
}

// InsecureHostAddr reports whether ip may be dialled for a host in
// webhooks.allow_insecure_hosts: a public address, or a private (RFC 1918,
// unique-local fc00::/7) or loopback one (contract §11); never link-local
// (cloud metadata), unspecified (which reaches the host itself),
// multicast or the other ranges PublicAddr refuses, shared CGNAT space
// included (one cloud's metadata answers at 100.100.100.200). An allowed
// name may be rebound, so the address is checked as it is dialled.
func InsecureHostAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || PublicAddr(ip)
}
