package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/ports"
)

// Uploads is the upload store the configuration picks (uploads.backend).
type Uploads interface {
	ports.UploadInventory // the upload store, as the sweep sees it too
	Close() error
}

// The service's metrics are what the HTTP adapter reports to.
var _ httpapi.Meter = (*metrics.Metrics)(nil)

// wired is what Run serves.
type wired struct {
	http    *httpapi.Server
	sweep   *ports.Sweep
	metrics *metrics.Metrics
	admin   http.Handler // the decision API, for the internal listener (http.metrics_addr) only
}

// wire opens the store, the upload store and the keys, and builds the use
// cases and the HTTP adapter on them. bg ends at Close.
func (m *Main) wire(bg context.Context) (wired, error) {
	cfg := m.Config
	var err error
	if m.Store, err = OpenStore(cfg, m.Clock, m.Log); err != nil {
		return wired{}, err
	}
	m.closers = append(m.closers, m.Store)
	// migrated closes when the schema is up to date, schemaReady once the
	// service has also read what it needs from the store (the readiness
	// probe waits for it).
	migrated, schemaReady := make(chan struct{}), make(chan struct{})
	if err := PrepareSchema(bg, cfg, m.Store, m.Log); err != nil {
		if errors.Is(err, gormstore.ErrOutdatedSchema) || cfg.Store.Driver == gormstore.SQLite {
			return wired{}, err
		}
		// The database may come up later: serve, stay not ready, retry.
		m.Log.Error("database not usable at start; retrying in the background", "error", err.Error())
		m.goBackground(func() {
			if retry(bg, func(ctx context.Context) error { return PrepareSchema(ctx, cfg, m.Store, m.Log) },
				func(err error, next time.Duration) {
					m.Log.Warn("database still not usable", "error", err.Error(), "retry_in", next.String())
				}) {
				m.Log.Info("database reachable; schema ready")
				close(migrated)
			}
		})
	} else {
		close(migrated)
	}
	if m.Uploads, err = OpenUploads(bg, cfg, m.Clock); err != nil {
		return wired{}, err
	}
	m.closers = append(m.closers, m.Uploads)
	if m.Keys, err = LoadKeys(cfg, m.Log, m.Clock); err != nil {
		return wired{}, err
	}

	throttle, err := m.throttle()
	if err != nil {
		return wired{}, err
	}
	mx, err := m.metrics(throttle)
	if err != nil {
		return wired{}, err
	}
	uc, err := m.useCases(throttle, mx)
	if err != nil {
		return wired{}, err
	}
	s11, err := m.wireS11(bg, mx)
	if err != nil {
		return wired{}, err
	}
	srv, err := httpapi.New(s11.serve(httpapi.Server{
		Reports: uc.reports, Validator: uc.reports, Lookup: uc.queries, Exchange: uc.partners, Login: uc.builtin, Auth: uc.partners,
		JWKS: m.Keys.JWKS, OpenAPI: OpenAPI(), Log: m.Log, Rotation: uc.rotator(),
		Checks: []httpapi.Check{
			{Name: "store", Fn: func(ctx context.Context) error {
				select {
				case <-schemaReady:
				default:
					return errors.New("schema not ready")
				}
				return m.Store.Ping(ctx)
			}},
			{Name: "uploads", Fn: m.Uploads.Check},
			{Name: "keys", Fn: m.Keys.Check},
		},
		Limits: httpapi.Limits{MaxBody: int64(cfg.HTTP.MaxBodyBytes), MaxMembers: cfg.HTTP.MaxMembers,
			MaxProblems: cfg.HTTP.MaxProblems, MaxInFlight: cfg.HTTP.MaxInFlight, ReportTimeout: cfg.HTTP.ReportTimeout,
			MaxReceiving: cfg.HTTP.Receiving(), MaxReceivingPerPartner: cfg.HTTP.ReceivingPerPartner(),
			MinBodyRate: int64(cfg.HTTP.MinBodyRate), BodyRateGrace: cfg.HTTP.BodyRateGrace,
			LookupSlots: cfg.HTTP.LookupSlots, LookupSlotsPerPartner: cfg.HTTP.LookupSlotsPerPartner, LookupRatePerPartner: cfg.HTTP.LookupRatePerPartner,
			LookupTimeout: cfg.Store.LookupTimeout, MaxBytesInFlight: int64(cfg.HTTP.MaxBytesInFlight)},
		TrustedProxies: cfg.HTTP.TrustedProxies, Clock: m.Clock, MetricsElsewhere: cfg.HTTP.MetricsAddr != "",
	}), mx)
	if err != nil {
		return wired{}, err
	}
	select {
	case <-migrated:
		m.afterSchema(bg, uc)
		close(schemaReady)
	default:
		m.goBackground(func() {
			select {
			case <-migrated:
				m.afterSchema(bg, uc)
				close(schemaReady)
			case <-bg.Done():
			}
		})
	}
	return wired{http: srv, sweep: uc.sweep, metrics: mx, admin: srv.AdminHandler()}, nil
}

// metrics are the service's metrics with the build's identity and the
// statistics of every database pool it opened: the store's and, for the
// database throttle, the throttle's own.
func (m *Main) metrics(throttle ports.LoginThrottle) (*metrics.Metrics, error) {
	mx := metrics.New()
	if err := mx.Build(version, commit()); err != nil {
		return nil, err
	}
	if err := mx.StoreConflicts(m.Store.Conflicts); err != nil {
		return nil, err
	}
	if err := mx.StoreNode(m.Store.NodePosition, m.Store.NodeMoves); err != nil {
		return nil, err
	}
	if err := mx.StoreRowMisses(m.Store.RowMisses); err != nil {
		return nil, err
	}
	if err := mx.StoreRowRefusals(m.Store.RowRefusals); err != nil {
		return nil, err
	}
	pools := m.Store.Pools()
	if t, ok := throttle.(*gormstore.Throttle); ok {
		pools["throttle"] = t.Pool()
	}
	for name, db := range pools {
		if err := mx.Pool(name, db); err != nil {
			return nil, err
		}
	}
	return mx, nil
}

// afterSchema reads what the use cases need from the store once its
// schema is ready: the records of version 1.0.0 and the stored password
// hashes.
func (m *Main) afterSchema(ctx context.Context, uc useCases) {
	m.readCompat100(ctx, uc.reports)
	m.prepareLogin(ctx, uc)
}

// prepareLogin admits every stored password hash to the hasher, so that
// an unknown name's attempt does the work of the dearest stored hash from
// the first attempt on, and says so when that is above auth.bcrypt_cost.
func (m *Main) prepareLogin(ctx context.Context, uc useCases) {
	if err := uc.login.Prepare(ctx); err != nil {
		m.Log.Warn("could not read the stored password hashes; a hash dearer than auth.bcrypt_cost raises every login's work only once it is compared",
			"error", err.Error())
		return
	}
	if level := uc.hasher.Level(); level > uc.hasher.Cost {
		m.Log.Warn("stored password hashes are dearer than auth.bcrypt_cost; every login attempt, an unknown name's included, does the work of the dearest",
			"bcrypt_cost", uc.hasher.Cost, "work_cost", level)
	}
}

// readCompat100 tells the reports use case until when idempotency records of
// version 1.0.0 may be alive, so retries across an upgrade find them.
func (m *Main) readCompat100(ctx context.Context, reports *ports.Reports) {
	until, err := m.Store.Compat100Until(ctx)
	if err != nil {
		m.Log.Warn("could not tell whether records of version 1.0.0 are alive; retries of reports sent before the upgrade may not find them", "error", err.Error())
		return
	}
	reports.SetCompat100Until(until)
	if !until.IsZero() {
		m.Log.Info("idempotency records of version 1.0.0 are alive; reports are also looked up the old way until they expire",
			"until", until.Format(time.RFC3339))
	}
}

// throttle is the login throttle the configuration picks: in memory, or
// in the database so that every replica shares one budget.
func (m *Main) throttle() (ports.LoginThrottle, error) {
	switch m.Config.ThrottleBackend() {
	case "database":
		t, err := gormstore.NewThrottle(m.Store, gormstore.ThrottleOptions{Conns: m.Config.Throttle.DBConns, MaxKeys: m.Config.Throttle.MaxEntries})
		if err != nil {
			return nil, err
		}
		m.closers = append(m.closers, t)
		m.pruner = t
		return t, nil
	default:
		t, err := memstate.NewThrottle(m.Config.Throttle.MaxEntries)
		if err != nil {
			return nil, fmt.Errorf("throttle.max_entries: %w", err)
		}
		return t, nil
	}
}
