package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestLoginBudgetAcrossGaleraNodes is issue 28's throttle drill end to
// end: three instances of the service, each on its own node of the test
// cluster with the database throttle; 40 wrong passwords for one user at
// once, spread over them, get at most throttle.user_failures password
// checks (400 invalid_client) and the rest 429.
func TestLoginBudgetAcrossGaleraNodes(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	limit := config.Defaults().Throttle.UserFailures
	var ins []*testkit.Instance
	for _, d := range dsns {
		ins = append(ins, testkit.MustStart(t, func(c *config.Config) {
			c.Store.Driver, c.Store.DSN = "mysql", d
			c.Throttle.Backend, c.Throttle.AddrFailures = "database", 0
		}))
	}
	ins[0].AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	body, _ := json.Marshal(map[string]string{"user": testkit.Partner, "password": "a wrong password"})
	statuses := make([]int, 40)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, _ := http.NewRequest("GET", ins[i%len(ins)].URL+"/api/partner_api.php", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("attempt %d: %v", i, err)
				return
			}
			statuses[i] = resp.StatusCode
			_ = resp.Body.Close()
		}()
	}
	close(start)
	wg.Wait()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	t.Logf("answers by status: %v", counts)
	if counts[400] > limit || counts[400]+counts[429] != len(statuses) {
		t.Fatalf("answers %v: want at most %d password checks (400) and the rest 429", counts, limit)
	}
	if counts[400] == 0 {
		t.Fatal("no password was checked: the drill proves nothing")
	}
}
