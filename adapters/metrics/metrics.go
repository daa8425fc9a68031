// Package metrics is the service's Prometheus metrics adapter: one
// registry, the series every part of the service reports to (the HTTP
// adapter's requests and reports, the sweep, the upstream login, the
// store's pools and conflicts, the webhook deliveries through Registerer)
// and the handler that serves them on /metrics. The HTTP adapter serves
// that handler and reports through an interface of its own; it does not
// own the registry.
package metrics

import (
	"database/sql"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the service's Prometheus metrics, on their own registry.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	inflight       prometheus.Gauge
	reportsStored  prometheus.Counter
	reportsRefused *prometheus.CounterVec
	fileBytes      prometheus.Counter
	exchanges      *prometheus.CounterVec
	upstream       *prometheus.HistogramVec
	storeErrors    prometheus.Counter
	overloaded     prometheus.Counter
	// lookupsThrottled counts look-ups turned away with 429 for passing
	// their partner's rate (http.lookup_rate_per_partner).
	lookupsThrottled prometheus.Counter
	// lookupsDelayed counts look-ups past their partner's rate that
	// waited for their turn (within a second) instead of a 429.
	lookupsDelayed prometheus.Counter
	// missingFiles counts stored rows whose file the sweep found missing
	// (each row once); the sweep also logs each.
	missingFiles  prometheus.Counter
	bodiesTooSlow prometheus.Counter
	// reportsReplayed counts reports answered with the first answer of an
	// earlier report (Idempotent-Replayed): 200s that stored nothing.
	reportsReplayed prometheus.Counter
	decisions       *prometheus.CounterVec // decisions.go
	receiving       prometheus.Gauge
	sweep           sweepMetrics
	bytesReserved   prometheus.Gauge
	ready           *prometheus.GaugeVec
}

// New registers the metrics and the Go and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &Metrics{reg: reg}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_http_requests_total",
		Help: "HTTP requests by route, method and status."}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "disbursementd_http_request_duration_seconds",
		Help: "HTTP request latency by route and method.", Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}},
		[]string{"route", "method"})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_http_in_flight_requests", Help: "Requests being served."})
	m.reportsStored = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_reports_stored_total", Help: "Reports committed to the staging table."})
	m.reportsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_reports_refused_total",
		Help: "Reports not stored, by reason."}, []string{"reason"})
	m.fileBytes = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_file_bytes_written_total", Help: "Bytes of report files written."})
	m.exchanges = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_token_exchanges_total",
		Help: "Credential exchanges by outcome."}, []string{"outcome"})
	m.upstream = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "disbursementd_upstream_login_duration_seconds",
		Help: "Upstream login latency by outcome.", Buckets: prometheus.DefBuckets}, []string{"outcome"})
	m.storeErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_store_errors_total", Help: "Reports answered 5xx because a dependency failed (database, upload store, key); not overload or shutdown."})
	m.overloaded = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_reports_overloaded_total",
		Help: "Reports turned away at once with 503 overloaded: http.max_in_flight being processed, a bound on bodies being received full, or http.max_bytes_in_flight reserved; and look-ups turned away with 503 overloaded, their look-up slots full."})
	m.lookupsThrottled = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_lookups_throttled_total",
		Help: "Look-ups (GET /v1/reports, /v1/reports/{id}) turned away at once with 429 slow_down: their partner had started http.lookup_rate_per_partner look-ups in the last second on this replica, and its next turn was more than a second off."})
	m.lookupsDelayed = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_lookups_delayed_total",
		Help: "Look-ups past their partner's http.lookup_rate_per_partner that waited for their turn (at most a second, holding no slot) instead of a 429."})
	m.missingFiles = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_missing_files_total",
		Help: "Stored reports whose file the sweep found missing (each row once, however late its commit landed); each is also logged."})
	m.bodiesTooSlow = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_report_bodies_too_slow_total",
		Help: "Request bodies (reports, token requests, webhook endpoints, decisions) cut with 408 for arriving slower than http.min_body_rate."})
	m.receiving = prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_report_bodies_receiving", Help: "Report bodies being received."})
	m.bytesReserved = prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_report_bytes_reserved",
		Help: "Bytes of http.max_bytes_in_flight that report bodies, and what is decoded from them, hold now."})
	m.reportsReplayed = prometheus.NewCounter(prometheus.CounterOpts{Name: "disbursementd_reports_replayed_total",
		Help: "Reports answered with the answer of the same report sent before (Idempotent-Replayed: true); nothing stored."})
	m.sweep = newSweepMetrics()
	m.decisions = newDecisionCounter()
	m.ready = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "disbursementd_ready",
		Help: "1 when the readiness check passed at its last run (by /readyz or the service's own timer), 0 when it failed."}, []string{"check"})
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.inflight, m.reportsStored, m.reportsRefused,
		m.fileBytes, m.exchanges, m.upstream, m.storeErrors, m.overloaded, m.lookupsThrottled, m.lookupsDelayed, m.missingFiles, m.bodiesTooSlow, m.receiving,
		m.bytesReserved, m.reportsReplayed, m.ready, m.decisions,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	for _, c := range m.sweep.collectors() {
		f(c)
	}
	return m
}

// Registerer is the metrics' registry, for the metrics of other
// adapters the composition root wires (the webhook deliveries'): one
// /metrics for all.
func (m *Metrics) Registerer() prometheus.Registerer { return m.reg }

// Build registers disbursementd_build_info{version,commit,go_version},
// always 1: which build each replica runs.
func (m *Metrics) Build(version, commit string) error {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_build_info",
		Help:        "Always 1; the labels say which build runs.",
		ConstLabels: prometheus.Labels{"version": version, "commit": commit, "go_version": runtime.Version()}})
	g.Set(1)
	if err := m.reg.Register(g); err != nil {
		return fmt.Errorf("metrics: build info: %w", err)
	}
	return nil
}

// Pool registers the statistics of a database pool (go_sql_*, labelled
// db_name=name): connections open, in use, idle, and the waits for one.
func (m *Metrics) Pool(name string, db *sql.DB) error {
	if err := m.reg.Register(collectors.NewDBStatsCollector(db, name)); err != nil {
		return fmt.Errorf("metrics: pool %s: %w", name, err)
	}
	return nil
}

// StoreConflicts exports count, the store's transactions run again after
// a deadlock or a Galera certification failure (1213), as
// disbursementd_store_conflicts_total.
func (m *Metrics) StoreConflicts(count func() int64) error {
	return m.counterFunc("disbursementd_store_conflicts_total",
		"Group commits run again (whole, or report by report) after a deadlock or a Galera certification failure (MySQL 1213).",
		"store conflicts", count)
}

// StoreRowMisses exports count, the store's multi-row statements whose
// rows were not where it took them to be (read back by computed ids, or
// returned by the INSERT), as disbursementd_store_multirow_misses_total.
func (m *Metrics) StoreRowMisses(count func() int64) error {
	return m.counterFunc("disbursementd_store_multirow_misses_total",
		"Multi-row INSERTs whose rows were not all the batch's own, in order: returned by the INSERT (MariaDB's RETURNING), or read back by the ids computed for them (MySQL under innodb_autoinc_lock_mode 2). Each sent its batch a statement per report and paused the multi-row path for a minute.",
		"store row misses", count)
}

// StoreRowRefusals exports count, the multi-row statements the server
// refused to prepare, as disbursementd_store_multirow_refused_total.
func (m *Metrics) StoreRowRefusals(count func() int64) error {
	return m.counterFunc("disbursementd_store_multirow_refused_total",
		"Multi-row INSERTs the MySQL server refused to prepare (error 1461: it holds max_prepared_stmt_count statements, every client's together): each sent its batch a statement per report and paused the multi-row path for a minute.",
		"store row refusals", count)
}

// counterFunc registers a counter named name whose value is count's, read
// at each scrape; what names it in the error.
func (m *Metrics) counterFunc(name, help, what string, count func() int64) error {
	c := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(count()) })
	if err := m.reg.Register(c); err != nil {
		return fmt.Errorf("metrics: %s: %w", what, err)
	}
	return nil
}

// StoreNode exports, when store.dsn lists a cluster's nodes, where the
// pools write: disbursementd_store_node (the node's place in the list, 1 =
// first; 0 when store.dsn names one database) and
// disbursementd_store_node_moves_total (moves from one node to another).
func (m *Metrics) StoreNode(position func() int, moves func() int64) error {
	g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "disbursementd_store_node",
		Help: "Place in store.dsn's list of nodes (1 = first) of the node the store's pools use now; 0 when store.dsn names one database."},
		func() float64 { return float64(position()) })
	c := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "disbursementd_store_node_moves_total",
		Help: "Times the store's pools moved to another node of store.dsn's list (its node left the Primary component or stopped being Synced, or an earlier node served again)."},
		func() float64 { return float64(moves()) })
	for _, col := range []prometheus.Collector{g, c} {
		if err := m.reg.Register(col); err != nil {
			return fmt.Errorf("metrics: store node: %w", err)
		}
	}
	return nil
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveUpstream records one upstream login call.
func (m *Metrics) ObserveUpstream(outcome string, d time.Duration) {
	m.upstream.WithLabelValues(outcome).Observe(d.Seconds())
}
