package app

import (
	"context"
	"crypto/rsa"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/lender/disbursementd/adapters/asmbase64"
	"github.com/lender/disbursementd/adapters/fsupload"
	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// What the service and its commands open from the configuration, each
// with its own clear error: the store (and its schema), the upload store,
// the keys, and the file rules.

// FileRules are the configured limits on attached files: the service's
// only file rules, refused when a value is zero or unknown. Files are
// decoded with asmbase64 (the AVX2 decoder; see that package for other
// CPUs).
func FileRules(cfg *config.Config) (domain.FileRules, error) {
	rules, err := cfg.Uploads.FileRules()
	if err != nil {
		return domain.FileRules{}, fmt.Errorf("uploads: %w", err)
	}
	return rules.WithDecoder(asmbase64.Decode), nil
}

// OpenStore opens the configured store. For SQLite it first makes sure the
// database file can be opened, so that a permission problem is named with
// its path and key instead of the driver's "out of memory (14)". With a
// list of nodes in store.dsn, log (when not nil) gets a warning each time
// the pools move to another node.
func OpenStore(cfg *config.Config, clock ports.Clock, log *slog.Logger) (*gormstore.Store, error) {
	if cfg.Store.Driver == gormstore.SQLite {
		if err := checkSQLitePath(cfg.Store.DSN); err != nil {
			return nil, fmt.Errorf("store.dsn (%s): %w", config.EnvName("store.dsn"), err)
		}
	}
	opts := StoreOptions(cfg, clock)
	if log != nil {
		opts.OnNodeMove = func(from, to string) {
			log.Warn("store moved to another node of store.dsn", "from", from, "to", to)
		}
	}
	st, err := gormstore.Open(cfg.Store.Driver, cfg.Store.DSN, opts, domain.DefaultCatalogue())
	return st, settingError(err)
}

// StoreOptions are the store's options as the configuration gives them:
// the one place they are built (the service, its commands and the tests
// that open a store directly).
func StoreOptions(cfg *config.Config, clock ports.Clock) gormstore.Options {
	return gormstore.Options{
		MaxOpenConns: cfg.Store.PoolSize(), MaxIdleConns: cfg.Store.IdleConns(),
		ConnMaxLifetime: cfg.Store.ConnMaxLifetime, ConnMaxIdleTime: cfg.Store.ConnMaxIdleTime,
		BusyTimeout: cfg.Store.BusyTimeout, ReadbackTimeout: cfg.Store.ReadbackTimeout,
		LookupTimeout: cfg.Store.LookupTimeout, LookupConns: cfg.Store.LookupConns,
		LockWaitTimeout: cfg.Store.LockWaitTimeout,
		TLSCAFile:       cfg.Store.TLSCAFile, TLSServerName: cfg.Store.TLSServerName, AllowInsecureTLS: cfg.Store.AllowInsecureTLS,
		MaxBatch: cfg.Store.MaxBatch, BatchWriters: cfg.Store.Writers(), GaleraWriters: cfg.Store.GaleraWriters(),
		Clock: clock, EventSlack: cfg.Events.EventSlack(),
	}
}

func checkSQLitePath(path string) error {
	if err := gormstore.CheckSQLitePath(path); err != nil {
		return err // before anything is created
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("cannot create the directory of the SQLite file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("cannot open the SQLite file %s (the service needs to read and write it and its directory %s): %w", path, dir, err)
	}
	return f.Close()
}

// PrepareSchema applies pending migrations, or with auto_migrate off
// refuses an outdated schema.
func PrepareSchema(ctx context.Context, cfg *config.Config, st *gormstore.Store, log *slog.Logger) error {
	if !cfg.Store.AutoMigrate {
		return st.CheckSchema(ctx)
	}
	applied, err := st.Migrate(ctx)
	if len(applied) > 0 {
		log.Info("schema migrated", "versions", applied)
	}
	return err
}

// OpenUploads opens the configured upload store: the directory
// uploads.dir (dating quarantined files by clock), or the bucket
// uploads.s3.bucket.
func OpenUploads(ctx context.Context, cfg *config.Config, clock ports.Clock) (Uploads, error) {
	if cfg.Uploads.Backend == "s3" {
		s3 := cfg.Uploads.S3
		s, err := s3upload.Open(ctx, s3upload.Config{Endpoint: s3.Endpoint, Bucket: s3.Bucket, Prefix: s3.Prefix, Region: s3.Region,
			PathStyle: s3.PathStyle, AccessKeyID: s3.AccessKeyID, SecretAccessKey: s3.SecretAccessKey})
		if err != nil {
			return nil, fmt.Errorf("uploads.s3: %w", err)
		}
		return s, nil
	}
	if cfg.Uploads.Dir == config.DefaultUploadsDir {
		if err := os.MkdirAll(cfg.Uploads.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("uploads.dir: %w", err)
		}
	}
	s, err := fsupload.Open(cfg.Uploads.Dir, fsupload.Options{MinFreeBytes: int64(cfg.Uploads.MinFree()), Clock: clock})
	if err != nil {
		return nil, fmt.Errorf("uploads.dir (%s): %w", config.EnvName("uploads.dir"), err)
	}
	return s, nil
}

// LoadKeys loads (or on the embedded default, generates) the signing key
// and the trusted public keys.
func LoadKeys(cfg *config.Config, log *slog.Logger, clock ports.Clock) (*jwtkeys.Keys, error) {
	priv, created, err := jwtkeys.LoadOrGenerate(cfg.Auth.PrivateKeyFile, cfg.GenerateKeys)
	if err != nil {
		return nil, fmt.Errorf("auth.private_key_file (%s): %w", config.EnvName("auth.private_key_file"), err)
	}
	if created {
		log.Info("generated a new RSA key pair", "private_key_file", cfg.Auth.PrivateKeyFile,
			"public_key_file", filepath.Join(filepath.Dir(cfg.Auth.PrivateKeyFile), "public.pem"))
	}
	var trusted []*rsa.PublicKey
	if cfg.Auth.PublicKeysFile != "" {
		if trusted, err = jwtkeys.ReadPublicKeys(cfg.Auth.PublicKeysFile); err != nil {
			return nil, fmt.Errorf("auth.public_keys_file (%s): %w", config.EnvName("auth.public_keys_file"), err)
		}
	}
	keys, err := jwtkeys.New(priv, trusted, clock)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return keys, nil
}
