// Package config reads the service's settings once, with viper, from a
// YAML file and DISB_<SECTION>_<KEY> environment variables, into a typed,
// validated struct. Only cmd/ imports it.
//
// The Config struct below is the one list of settings: each field's tags
// give its key (mapstructure), its default, a one-line doc and whether its
// value is redacted in logs. The environment binding, Keys, Defaults,
// Redacted, the example file and the error messages all come from them.
//
// Tags on a setting (a leaf field):
//
//	mapstructure:"read_timeout"  the key within its section
//	default:"60s"                the default, written as in the YAML file
//	doc:"..."                    one line for the example file and the docs
//	redact:"secret"              logged as *** (also "dsn" and "url": the password of a user:password@ hidden)
//
// A section (a struct field) has mapstructure and may have doc.
package config

import (
	"net/netip"
	"time"
)

// Config is the whole configuration.
type Config struct {
	HTTP        HTTPConfig        `mapstructure:"http"`
	Store       StoreConfig       `mapstructure:"store"`
	Uploads     UploadsConfig     `mapstructure:"uploads"`
	Auth        AuthConfig        `mapstructure:"auth"`
	Login       LoginConfig       `mapstructure:"login"`
	Throttle    ThrottleConfig    `mapstructure:"throttle" doc:"login attempts (failures count, successes do not); 0 turns a limit off"`
	Idempotency IdempotencyConfig `mapstructure:"idempotency"`
	Retention   RetentionConfig   `mapstructure:"retention" doc:"personal data: how long reports are kept (disbursementd reports purge)"`
	Decisions   DecisionsConfig   `mapstructure:"decisions" doc:"the lender's decisions on reports (contract §11)"`
	Events      EventsConfig      `mapstructure:"events" doc:"what partners read of what became of their reports: GET /v1/events and webhooks"`
	Webhooks    WebhooksConfig    `mapstructure:"webhooks" doc:"signed deliveries of events to partners' endpoints (contract §11)"`
	Sandbox     SandboxConfig     `mapstructure:"sandbox" doc:"a sandbox instance for partners' tests (its own database and keys): reports with a magic credit number decide themselves"`
	Log         LogConfig         `mapstructure:"log"`
	Debug       DebugConfig       `mapstructure:"debug"`

	// GenerateKeys is true when no private key file was configured: the
	// embedded default creates a pair under data/keys on first start.
	GenerateKeys bool `mapstructure:"-"`
}

// HTTPConfig is the listener and the bounds of one request.
type HTTPConfig struct {
	Addr                   string         `mapstructure:"addr" default:"127.0.0.1:8080" doc:"listen address; use 0.0.0.0:8080 in a container"`
	MetricsAddr            string         `mapstructure:"metrics_addr" default:"" doc:"when set (e.g. 0.0.0.0:9090), /metrics and the back office's decision API (/admin/v1) are served on this internal listener, never on http.addr; empty: /metrics on http.addr and no decision API"`
	ReadHeaderTimeout      time.Duration  `mapstructure:"read_header_timeout" default:"10s" doc:"time to read a request's headers (cuts slowloris clients)"`
	ReadTimeout            time.Duration  `mapstructure:"read_timeout" default:"60s" doc:"time to read a whole request (a 32 MiB report on a slow link)"`
	WriteTimeout           time.Duration  `mapstructure:"write_timeout" default:"90s" doc:"time to write a response, counted from the end of the request headers"`
	IdleTimeout            time.Duration  `mapstructure:"idle_timeout" default:"120s" doc:"keep-alive connections idle longer than this are closed"`
	ShutdownGrace          time.Duration  `mapstructure:"shutdown_grace" default:"30s" doc:"on SIGTERM: time for in-flight reports to finish"`
	MaxBodyBytes           ByteSize       `mapstructure:"max_body_bytes" default:"32MiB" doc:"larger report bodies get 413"`
	ReportTimeout          time.Duration  `mapstructure:"report_timeout" default:"60s" doc:"longest a report may take once accepted; the sweep leaves alone what is younger than this + 5s"`
	TrustedProxies         []netip.Prefix `mapstructure:"trusted_proxies" default:"" doc:"addresses/CIDRs of reverse proxies whose X-Forwarded-For is believed"`
	MaxInFlight            int            `mapstructure:"max_in_flight" default:"256" doc:"reports processed at once; beyond it 503 with Retry-After"`
	MaxReceiving           int            `mapstructure:"max_receiving" default:"0" doc:"report bodies being received at once (they hold no max_in_flight slot); beyond it 503 overloaded; 0 = 4 x max_in_flight. Token bodies (by client address), and reports from their max_in_flight slot until their answer is written (by partner: an answer a client does not read waits), are bounded by the same two numbers, apart"`
	MaxReceivingPerPartner int            `mapstructure:"max_receiving_per_partner" default:"0" doc:"of those, bodies of one partner (its NIT: all its user names together); beyond it 503 overloaded; 0 = max_in_flight"`
	MaxBytesInFlight       ByteSize       `mapstructure:"max_bytes_in_flight" default:"384MiB" doc:"memory that report bodies and what is decoded from them hold at once (each reserves 2 x what has arrived of its body, in doubling steps from at most 64 KiB; one partner, all its user names together, at most a quarter, or 2 x max_body_bytes if more); beyond it 503 overloaded; sized for a 1 GiB container with GOMEMLIMIT (docs/decisions.md)"`
	MinBodyRate            ByteSize       `mapstructure:"min_body_rate" default:"1KiB" doc:"bytes per second a request body (a report, a token request, a webhook endpoint, a decision) must keep up with, judged over the last body_rate_grace (bytes sent early buy at most that much time); a body that falls further behind gets 408 body_too_slow"`
	BodyRateGrace          time.Duration  `mapstructure:"body_rate_grace" default:"5s" doc:"time a report body may take before min_body_rate applies, and the most it may run ahead of it"`
	LookupSlots            int            `mapstructure:"lookup_slots" default:"16" doc:"GET /v1/reports look-ups (a page or one report) run at once, apart from reports' slots; beyond it 503 overloaded, but a partner with none running gets one beside them (up to this many such partners)"`
	LookupSlotsPerPartner  int            `mapstructure:"lookup_slots_per_partner" default:"4" doc:"look-ups of one partner (its NIT: all its user names together) at once; beyond it 503 overloaded. Webhook-endpoint and decision bodies being received (by partner, by back-office client) are bounded by lookup_slots and this, apart"`
	LookupRatePerPartner   int            `mapstructure:"lookup_rate_per_partner" default:"50" doc:"look-ups one partner (its NIT: all its user names together) may start per second on each replica, in bursts of as many; beyond it a look-up waits for its turn when that comes within a second, else 429 slow_down with Retry-After, before any slot is taken"`
	MaxMembers             int            `mapstructure:"max_members" default:"256" doc:"JSON members in a report body, nested ones included; more get 400 too_many_members"`
	MaxProblems            int            `mapstructure:"max_problems" default:"100" doc:"problems listed in a 400's errors[]; the rest are counted"`
}

// StoreConfig is the database.
type StoreConfig struct {
	Driver           string        `mapstructure:"driver" default:"sqlite" doc:"sqlite (embedded default) or mysql"`
	DSN              string        `mapstructure:"dsn" default:"" redact:"dsn" doc:"sqlite: file path (default data/disbursement.db); mysql: user:pass@tcp(host:3306)/db; a Galera cluster: tcp(node1:3306,node2:3306,node3:3306), the nodes in the order this replica prefers them"`
	TLSCAFile        string        `mapstructure:"tls_ca_file" default:"" doc:"MySQL: PEM file of the CA that signs the server's certificate (a private CA); set, every connection uses TLS 1.2+ and verifies the server against it (the DSN's tls= may be absent or true, not false, preferred or skip-verify); a public CA needs only tls=true in the DSN"`
	TLSServerName    string        `mapstructure:"tls_server_name" default:"" doc:"MySQL, with store.tls_ca_file: the name the server's certificate must carry; empty = the DSN's host"`
	AllowInsecureTLS bool          `mapstructure:"allow_insecure_tls" default:"false" doc:"MySQL: true accepts tls=skip-verify, tls=preferred or allowFallbackToPlaintext=true in store.dsn (TLS that does not verify the server, or falls back to plain text); false refuses them at start"`
	AutoMigrate      bool          `mapstructure:"auto_migrate" default:"true" doc:"false: refuse to start on an outdated schema; run disbursementd migrate"`
	MaxOpenConns     int           `mapstructure:"max_open_conns" default:"32" doc:"MySQL pool bound; SQLite: one writer and at most this many readers, 4 at most"`
	MaxIdleConns     int           `mapstructure:"max_idle_conns" default:"0" doc:"idle connections kept; 0 = same as max_open_conns"`
	ConnMaxLifetime  time.Duration `mapstructure:"conn_max_lifetime" default:"30m" doc:"a connection is closed after this long (0 = never)"`
	ConnMaxIdleTime  time.Duration `mapstructure:"conn_max_idle_time" default:"5m" doc:"an idle connection is closed after this long (0 = never)"`
	BusyTimeout      time.Duration `mapstructure:"busy_timeout" default:"5s" doc:"SQLite only: how long a statement waits for the write lock"`
	LookupTimeout    time.Duration `mapstructure:"lookup_timeout" default:"5s" doc:"longest one statement of a partner's look-up may run; the database stops it (MariaDB max_statement_time, SQLite interrupt)"`
	LookupConns      int           `mapstructure:"lookup_conns" default:"8" doc:"MySQL: connections of the look-ups' own pool, apart from the reports' max_open_conns; SQLite: look-ups use the readers' pool"`
	ReadbackTimeout  time.Duration `mapstructure:"readback_timeout" default:"3s" doc:"after a COMMIT that failed without saying whether it landed: how long the store reads the report back before answering 503 outcome_unknown"`
	LockWaitTimeout  time.Duration `mapstructure:"lock_wait_timeout" default:"5s" doc:"MySQL: how long a statement waits for another transaction's row lock (innodb_lock_wait_timeout, whole seconds, at least 1); only the report that waited fails; below http.report_timeout"`
	MaxBatch         int           `mapstructure:"max_batch" default:"64" doc:"reports per group commit (1..1000)"`
	BatchWriters     int           `mapstructure:"batch_writers" default:"0" doc:"group-commit writers; 0 = auto (1 on SQLite, 2 on MySQL, 1 on a Galera node)"`
}

// UploadsConfig is where report files go and what they may be.
type UploadsConfig struct {
	Backend       string        `mapstructure:"backend" default:"fs" doc:"fs (the directory uploads.dir) or s3 (the bucket uploads.s3.bucket)"`
	Dir           string        `mapstructure:"dir" default:"data/uploads" doc:"must exist and be writable (created only when left at this default)"`
	MaxFileBytes  ByteSize      `mapstructure:"max_file_bytes" default:"20MiB" doc:"decoded size of a report's file; larger files get 413"`
	AllowedTypes  []string      `mapstructure:"allowed_types" default:"pdf,png,jpg,tif" doc:"file types accepted, by content: some of pdf, png, jpg, tif"`
	MinFreeBytes  ByteSize      `mapstructure:"min_free_bytes" default:"0" doc:"/readyz fails below this free space in uploads.dir; 0 = twice uploads.max_file_bytes"`
	SweepInterval time.Duration `mapstructure:"sweep_interval" default:"10m" doc:"how often serve sweeps (at start, then at this interval): stale temp files removed, files no report names quarantined, expired records deleted; 0: serve never sweeps (run reconcile --apply)"`
	// QuarantineRetention bounds how long the sweep keeps a quarantined file.
	QuarantineRetention time.Duration `mapstructure:"quarantine_retention" default:"30d" doc:"how long a file no report names is kept in quarantine (uploads.dir/.quarantine/, s3: prefix quarantine/) before the sweep deletes it; at least 1d"`
	AllowPDFScripts     bool          `mapstructure:"allow_pdf_scripts" default:"false" doc:"true accepts PDFs with JavaScript, launch actions, embedded files, rich media or XFA"`
	MaxImagePixels      int           `mapstructure:"max_image_pixels" default:"100000000" doc:"an image declaring more pixels (width x height) gets 400 file_image_too_large"`
	S3                  S3Config      `mapstructure:"s3" doc:"used when uploads.backend is s3"`
}

// S3Config is an S3-compatible bucket for report files.
type S3Config struct {
	Endpoint        string `mapstructure:"endpoint" default:"" redact:"url" doc:"empty = AWS; else the URL of an S3-compatible server (MinIO, Ceph, ...)"`
	Bucket          string `mapstructure:"bucket" default:"" doc:"required when uploads.backend is s3"`
	Prefix          string `mapstructure:"prefix" default:"" doc:"prepended to every object name, e.g. disbursements/"`
	Region          string `mapstructure:"region" default:"" doc:"the bucket's region; empty: the AWS chain (AWS_REGION, shared config), else us-east-1"`
	PathStyle       bool   `mapstructure:"path_style" default:"false" doc:"true: endpoint/bucket/object URLs (MinIO); false: bucket.endpoint/object"`
	AccessKeyID     string `mapstructure:"access_key_id" default:"" doc:"empty (with secret_access_key) = the standard AWS chain (AWS_ACCESS_KEY_ID, profile, role)"`
	SecretAccessKey string `mapstructure:"secret_access_key" default:"" redact:"secret" doc:"the secret of access_key_id"`
}

// AuthConfig is token signing and verification and password hashing.
type AuthConfig struct {
	PrivateKeyFile      string        `mapstructure:"private_key_file" default:"" doc:"unset: data/keys/private.pem, generated on first start (0600)"`
	PublicKeysFile      string        `mapstructure:"public_keys_file" default:"" doc:"extra trusted public keys (PEM or JWKS), e.g. the old key during a rotation"`
	Issuer              string        `mapstructure:"issuer" default:"disbursementd" doc:"iss of issued tokens, and the only one accepted"`
	Audience            string        `mapstructure:"audience" default:"partner-api" doc:"aud of issued tokens, and the only one accepted"`
	Leeway              time.Duration `mapstructure:"leeway" default:"60s" doc:"clock skew allowed on exp, nbf and iat"`
	TokenTTL            time.Duration `mapstructure:"token_ttl" default:"24h" doc:"lifetime of issued tokens: more than 0 and at most 24h"`
	BcryptCost          int           `mapstructure:"bcrypt_cost" default:"12" doc:"10..16, for users added with users add"`
	TokenCacheSize      int           `mapstructure:"token_cache_size" default:"10000" doc:"verified tokens kept (each until its exp); 0 = the default"`
	UserStaleness       time.Duration `mapstructure:"user_staleness" default:"30s" doc:"a deactivation takes effect within this; 0s = read the user on every request"`
	MaxConcurrentHashes int           `mapstructure:"max_concurrent_hashes" default:"0" doc:"bcrypt comparisons run at once; 0 = the number of CPUs"`
	HashWait            time.Duration `mapstructure:"hash_wait" default:"2s" doc:"how long a login waits for a bcrypt slot before 503 temporarily_unavailable"`
	UserCacheSize       int           `mapstructure:"user_cache_size" default:"10000" doc:"users whose active flag is cached (least recently used evicted)"`
	RotationOverlap     time.Duration `mapstructure:"rotation_overlap" default:"24h" doc:"after POST /v1/credentials/rotate the old secret, and tokens issued before, work this long: more than 0 and at most 168h"`
}

// LoginConfig is the credential exchange upstream.
type LoginConfig struct {
	URL     string        `mapstructure:"url" default:"" redact:"url" doc:"unset: the built-in login; else an upstream POST endpoint such as https://other/auth/login"`
	Timeout time.Duration `mapstructure:"timeout" default:"5s" doc:"an upstream answer slower than this is 503 temporarily_unavailable"`
}

// ThrottleConfig bounds login attempts.
type ThrottleConfig struct {
	UserFailures int           `mapstructure:"user_failures" default:"10" doc:"password checks per user name ..."`
	UserWindow   time.Duration `mapstructure:"user_window" default:"15m" doc:"... in this sliding window"`
	AddrFailures int           `mapstructure:"addr_failures" default:"30" doc:"attempts per client address (an IPv6 address counts as its /64) ..."`
	AddrWindow   time.Duration `mapstructure:"addr_window" default:"1m" doc:"... in this sliding window"`
	Backend      string        `mapstructure:"backend" default:"auto" doc:"auto (database on mysql, else memory), memory or database (shared by replicas)"`
	MaxEntries   int           `mapstructure:"max_entries" default:"100000" doc:"counters kept of each kind, user names and client addresses (memory: least recently used evicted; database: those whose window ends first)"`
	DBConns      int           `mapstructure:"db_conns" default:"4" doc:"database throttle: connections of its own pool (never the reports' connections; SQLite: always 1)"`
}

// IdempotencyConfig is how long answers are remembered.
type IdempotencyConfig struct {
	TTL        time.Duration `mapstructure:"ttl" default:"24h" doc:"how long a report's answer is remembered: at least 24h (the contract keeps keys that long)"`
	Wait       time.Duration `mapstructure:"wait" default:"30s" doc:"how long a duplicate waits for the first before 409 request_in_progress"`
	SweepBatch int           `mapstructure:"sweep_batch" default:"1000" doc:"expired records deleted per statement by the sweep"`
}

// RetentionConfig is how long stored reports are kept.
type RetentionConfig struct {
	Reports time.Duration `mapstructure:"reports" default:"0" doc:"reports purge deletes reports (rows and files) received longer ago than this; 0 keeps them forever; else at least idempotency.ttl (e.g. 1825d)"`
}

// LogConfig is the log's shape.
type LogConfig struct {
	Format string `mapstructure:"format" default:"auto" doc:"auto (text on a terminal, JSON otherwise), json or text"`
	Level  string `mapstructure:"level" default:"info" doc:"debug, info, warn or error"`
}

// DebugConfig is for operators only.
type DebugConfig struct {
	PprofAddr string `mapstructure:"pprof_addr" default:"" doc:"when set (e.g. 127.0.0.1:6060), net/http/pprof is served there; keep it private"`
}

// Default locations of the embedded default.
const (
	DefaultDataDir    = "data"
	DefaultSQLitePath = "data/disbursement.db"
	DefaultUploadsDir = "data/uploads"
	DefaultKeyFile    = "data/keys/private.pem"
	DefaultConfigFile = "disbursementd.yaml"
)
