package httpapi

import "testing"

// TestNegotiate: the list's media type from Accept, as RFC 9110 weighs
// it; "" when nothing the list serves is acceptable.
func TestNegotiate(t *testing.T) {
	for _, tt := range []struct {
		accept []string
		want   string
	}{
		{nil, mediaJSON},
		{[]string{"*/*"}, mediaJSON},
		{[]string{"application/json"}, mediaJSON},
		{[]string{"text/csv"}, mediaCSV},
		{[]string{"Text/CSV; charset=utf-8"}, mediaCSV},
		{[]string{"text/*"}, mediaCSV},
		{[]string{"application/*"}, mediaJSON},
		{[]string{"text/csv, application/json;q=0.5"}, mediaCSV},
		{[]string{"text/csv;q=0.4, application/json;q=0.5"}, mediaJSON},
		{[]string{"text/csv, */*;q=0.1"}, mediaCSV},
		{[]string{"*/*, application/json;q=0"}, mediaCSV},
		{[]string{"text/html", "text/csv"}, mediaCSV},
		{[]string{"text/html"}, ""},
		{[]string{"application/xml, image/*"}, ""},
		{[]string{"application/json;q=0"}, ""},
		{[]string{"text/csv;q=2"}, ""},
		{[]string{"garbage"}, ""},
	} {
		if got := negotiate(tt.accept, mediaJSON, mediaCSV); got != tt.want {
			t.Errorf("Accept %q: %q, want %q", tt.accept, got, tt.want)
		}
	}
}
