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
// so that the load tool need not build the service), but EventSlack:
// the suites date events themselves (a decision a minute on, reports
// hours back) and hold those times, which a slow machine's wait past the
// slack would move; TestLateEventsAreDatedNearTheirCommit holds it.
func TestStoreOptionsAreTheService(t *testing.T) {
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		cfg := config.Defaults()
		cfg.Store.Driver = driver
		want := app.StoreOptions(cfg, sysclock.Clock{})
		if want.EventSlack != cfg.Events.ListDelay/4 || want.EventSlack <= 0 {
			t.Errorf("%s: the service's EventSlack %s, want a quarter of events.list_delay (%s)", driver, want.EventSlack, cfg.Events.ListDelay)
		}
		want.EventSlack = 0
		if got := storetest.Options(driver); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: storetest.Options = %+v, the service's %+v", driver, got, want)
		}
	}
}
