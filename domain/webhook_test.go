package domain

import (
	"net/netip"
	"strings"
	"testing"
)

func TestCheckEndpointURL(t *testing.T) {
	r := NewWebhookURLRules([]string{"receiver.internal", "LOCALHOST."})
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"https://hooks.partner.example/disbursements", true},
		{"https://hooks.partner.example:8443/x?y=1", true},
		{"http://hooks.partner.example/", false},
		{"ftp://hooks.partner.example/", false},
		{"https://user:pw@hooks.partner.example/", false},
		{"https://hooks.partner.example/#frag", false},
		{"/relative", false},
		{"https://127.0.0.1/", false},
		{"https://[::1]/", false},
		{"https://169.254.169.254/latest/meta-data", false},
		{"https://10.1.2.3/", false},
		{"https://[::ffff:192.168.1.1]/", false},
		{"https://[fd00::1]/", false},
		{"https://100.64.1.1/", false},
		{"https://8.8.8.8/", true},
		{"http://receiver.internal:9000/hook", true},
		{"http://localhost:9000/hook", true},
		// A host that lowers to an allowed one but is dialled as another
		// name (IDNA: "xn--recever-..."): non-ASCII hosts are refused, so
		// an international name is written in its xn-- form.
		{"http://rece\u0130ver.internal:9000/hook", false},
		{"http://rece%C4%B0ver.internal:9000/hook", false},
		{"https://rece\u0130ver.internal/hook", false},
		{"https://b\u00fccher.example/", false},
		{"https://xn--bcher-kva.example/", true},
		{"https://" + strings.Repeat("a", MaxWebhookURLBytes) + ".example/", false},
	} {
		_, err := r.CheckEndpoint(EndpointRequest{URL: c.url})
		if (err == nil) != c.ok {
			t.Errorf("%.60s: err %v, want ok %v", c.url, err, c.ok)
		}
		if err != nil {
			if e := err.(*Error); e.Code != "invalid_endpoint" || e.Problems[0].Field != "url" {
				t.Errorf("%.60s: %#v", c.url, e)
			}
		}
	}
}

func TestCheckEndpointTypes(t *testing.T) {
	r := NewWebhookURLRules(nil)
	e, err := r.CheckEndpoint(EndpointRequest{URL: "https://x.example/", EventTypes: []string{"report.rejected", "report.rejected"}})
	if err != nil || len(e.EventTypes) != 1 || !e.Takes(EventRejected) || e.Takes(EventAccepted) {
		t.Fatalf("%+v %v", e, err)
	}
	_, err = r.CheckEndpoint(EndpointRequest{URL: "https://x.example/", EventTypes: []string{"report.deleted"}})
	if err == nil || err.(*Error).Problems[0].Field != "event_types" || !strings.Contains(err.Error(), "report.received") {
		t.Fatalf("unknown type: %v", err)
	}
	_, err = r.CheckEndpoint(EndpointRequest{URL: "https://x.example/", Description: strings.Repeat("d", MaxWebhookDescriptionChars+1)})
	if err == nil || err.(*Error).Problems[0].Field != "description" {
		t.Fatalf("long description: %v", err)
	}
	for _, desc := range []string{"a\x00", "línea\nsegunda", "\u200b", "Cartera \u202eyfipuc"} {
		_, err = r.CheckEndpoint(EndpointRequest{URL: "https://x.example/", Description: desc})
		if err == nil || err.(*Error).Problems[0].Field != "description" || err.(*Error).Problems[0].Code != "invalid_value" {
			t.Errorf("description %q: %v, want invalid_value naming description", desc, err)
		}
	}
	if e, err := r.CheckEndpoint(EndpointRequest{URL: "https://x.example/", Description: "Cartera · Bogotá (ñ)"}); err != nil || e.Description != "Cartera · Bogotá (ñ)" {
		t.Errorf("a plain description: %+v %v", e, err)
	}
	if all, _ := r.CheckEndpoint(EndpointRequest{URL: "https://x.example/"}); !all.Takes(EventAccepted) || all.Status != EndpointEnabled {
		t.Errorf("an endpoint without types takes every type, enabled: %+v", all)
	}
}

func TestPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.2": false, "0.0.0.0": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.0.1": false,
		"169.254.169.254": false, "100.100.100.200": false, "::": false, "::1": false, "fe80::1": false,
		"fc00::1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false, "255.255.255.255": false,
		"192.0.2.1": false, "64:ff9b::7f00:1": false, "2002:7f00:1::": false,
		// Outside 2000::/3, or special inside it (the nineteenth session's
		// attacker review found each passing the old deny-list).
		"::127.0.0.1": false, "::ffff:0:7f00:1": false, "fec0::1": false, "100:0:0:1::1": false,
		"2001::1": false, "2001:2::1": false, "2001:10::1": false, "3fff::1": false, "5f00::1": false,
		"2a00:1450:4001:80b::200e": true, "2001:4860:4860::8888": true,
	} {
		if got := PublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s public %v, want %v", s, got, want)
		}
	}
}

// TestInsecureHostAddr: a host allowed insecure reaches public, private
// and loopback addresses (contract §11), nothing else: not the metadata
// addresses (link-local; one cloud's in shared CGNAT space), not the
// unspecified address, which reaches the host itself.
func TestInsecureHostAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "127.0.0.1": true, "127.0.0.2": true, "::1": true, "10.0.0.1": true, "172.16.0.1": true,
		"192.168.0.1": true, "fd00::2": true, "::ffff:127.0.0.1": true, "::ffff:10.1.2.3": true,
		"169.254.169.254": false, "fe80::1": false, "100.100.100.200": false, "100.64.0.1": false,
		"0.0.0.0": false, "::": false, "::ffff:0.0.0.0": false, "224.0.0.1": false, "ff02::1": false,
		"255.255.255.255": false, "192.0.2.1": false, "fec0::1": false,
	} {
		if got := InsecureHostAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s allowed for an insecure host %v, want %v", s, got, want)
		}
	}
	r := NewWebhookURLRules([]string{"receiver.internal"})
	if !r.Insecure("RECEIVER.internal.") || r.Insecure("rece\u0130ver.internal") || r.Insecure("rece\u0130ver.internal.") {
		t.Error("Insecure: want the allowed name in any case, never a non-ASCII one that lowers to it")
	}
}

func TestEndpointIDsAndSecrets(t *testing.T) {
	id := NewEndpointID(make([]byte, EndpointIDRandomBytes))
	if !ValidEndpointID(id) || len(id) != 27 {
		t.Errorf("id %q", id)
	}
	for _, bad := range []string{"we_", "we_AAAAAAAAAAAAAAAAAAAAAAAA", id + "a", "xx" + id[2:]} {
		if ValidEndpointID(bad) {
			t.Errorf("%q valid", bad)
		}
	}
	s := NewBackofficeSecret(make([]byte, BackofficeSecretBytes))
	if h := BackofficeSecretHash(s); len(h) != 64 {
		t.Errorf("hash of %q: %q", s, h)
	}
	for _, bad := range []string{"", "bo_", s + "A", "Bearer " + s} {
		if BackofficeSecretHash(bad) != "" {
			t.Errorf("%q hashed", bad)
		}
	}
	if CheckBackofficeName("ops.bogota-1") != nil || CheckBackofficeName("Ops") == nil || CheckBackofficeName("") == nil {
		t.Error("back-office names")
	}
}
