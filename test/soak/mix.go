package soak

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

// The mix of reports. Every report is distinct (its Monto Solicitado is
// montoBase + its number), so each has one identity and, once settled,
// exactly one row, found by that amount.
const (
	fileShare     = 0.6  // with a PDF
	sharedShare   = 0.2  // with one of sharedCredits credit numbers, shared with other reports
	keylessShare  = 0.15 // without Idempotency-Key (the report's identity is its key)
	twinShare     = 0.1  // sent twice at once, to two replicas
	againShare    = 0.1  // sent again once acknowledged: the first answer must come back
	sharedCredits = 8
	montoBase     = 10_000_000
)

// How a report is sent.
type mode int

const (
	once  mode = iota
	twin       // two clients at once with the same key
	again      // once more after its 200
)

func (m mode) String() string { return [...]string{"once", "twin", "again"}[m] }

// report is one report of the mix and every 200 it got.
type report struct {
	n        int
	credit   string
	key      string // "" without Idempotency-Key
	shared   bool   // its credit number is one of sharedCredits
	withFile bool
	mode     mode
	body     []byte

	mu   sync.Mutex
	oks  []answer // every 200, first ones and replays
	done int      // chains that ended with a 200
}

// mix makes the reports and keeps them for the comparison.
type mix struct {
	run       string
	fileShare float64 // of the reports, with a PDF
	files     [][]byte
	mu        sync.Mutex
	reports   []*report
}

// newMix makes a mix whose reports carry a file in fileShare of cases.
func newMix(fileShare float64) *mix {
	return &mix{
		run:       strconv.FormatInt(time.Now().Unix()%1_000_000, 36),
		fileShare: fileShare,
		files:     [][]byte{fixture.PDF(8 << 10), fixture.PDF(24 << 10), fixture.PDF(48 << 10)},
	}
}

// next makes the next report of the mix.
func (m *mix) next() *report {
	m.mu.Lock()
	r := &report{n: len(m.reports)}
	m.reports = append(m.reports, r)
	m.mu.Unlock()
	r.credit = fmt.Sprintf("SK%s-%d", m.run, r.n)
	if rand.Float64() < sharedShare {
		r.credit, r.shared = fmt.Sprintf("SK%s-S%d", m.run, rand.IntN(sharedCredits)), true
	}
	if rand.Float64() >= keylessShare {
		r.key = fmt.Sprintf("soak-%s-%d", m.run, r.n)
	}
	var file []byte
	if rand.Float64() < m.fileShare {
		r.withFile, file = true, m.files[rand.IntN(len(m.files))]
	}
	switch x := rand.Float64(); {
	case x < twinShare:
		r.mode = twin
	case x < twinShare+againShare:
		r.mode = again
	}
	body := fixture.FullBody(time.Now(), r.credit, file)
	body["Monto Solicitado"] = strconv.Itoa(montoBase + r.n)
	var err error
	if r.body, err = json.Marshal(body); err != nil {
		panic(err) // a map of strings and numbers
	}
	return r
}

// all returns the reports made so far.
func (m *mix) all() []*report {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*report(nil), m.reports...)
}

// acknowledged records a 200.
func (r *report) acknowledged(a answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.oks = append(r.oks, a)
	r.done++
}

// answers returns the 200s so far.
func (r *report) answers() []answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]answer(nil), r.oks...)
}
