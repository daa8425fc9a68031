package app

import (
	"errors"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// CheckConfig asks the adapters and use cases whether they can use the
// configuration, without connecting or creating anything: the rules are
// theirs (the store's options and TLS settings: gormstore.Check; the
// bytes in flight: httpapi.CheckBytesInFlight; the reports' retention:
// ports.CheckRetention), the configuration checks only what it owns.
// Each refusal names its setting and variable. Every command runs it
// after loading the configuration (config check included).
func CheckConfig(cfg *config.Config) error {
	if err := settingError(gormstore.Check(cfg.Store.Driver, cfg.Store.DSN, StoreOptions(cfg, sysclock.Clock{}))); err != nil {
		return err
	}
	h := cfg.HTTP
	if err := httpapi.CheckBytesInFlight(int64(h.MaxBytesInFlight), int64(h.MaxBodyBytes)); err != nil {
		return config.KeyError("http.max_bytes_in_flight", h.MaxBytesInFlight.String()+" with http.max_body_bytes "+h.MaxBodyBytes.String()+": "+err.Error())
	}
	if r := cfg.Retention.Reports; r != 0 {
		if err := ports.CheckRetention(r, cfg.Idempotency.TTL); err != nil {
			return config.KeyError("retention.reports", errorMessage(err)+"; 0 keeps reports forever")
		}
	}
	return nil
}

// errorMessage is a domain error's message alone (without its kind).
func errorMessage(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Message
	}
	return err.Error()
}

// settingError gives an adapter's refusal of one setting the
// configuration's shape: the key, its variable and the reason.
func settingError(err error) error {
	var se *gormstore.SettingError
	if errors.As(err, &se) {
		return config.KeyError(se.Key, se.Reason)
	}
	return err
}
