package app

import "net/http"

// Handler is the service's HTTP handler once Run has returned: what its
// listener serves, for tests that call it without a connection.
func (m *Main) Handler() http.Handler { return m.srv.Handler }
