package storetest_test

import (
	"reflect"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
)

// TestStoreOptionsAreTheService: the stores tests open directly get the
// options the service opens its store with under the default
// configuration, for each driver (storetest builds them apart from app
// so that the load tool need not build the service).
func TestStoreOptionsAreTheService(t *testing.T) {
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		cfg := config.Defaults()
		cfg.Store.Driver = driver
		if got, want := storetest.Options(driver), app.StoreOptions(cfg, sysclock.Clock{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: storetest.Options = %+v, the service's %+v", driver, got, want)
		}
	}
}
