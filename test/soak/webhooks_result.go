package soak

import (
	"fmt"
	"io"
	"maps"
	"sync"
	"time"
)

// Kill is one replica's SIGKILL and its restart.
type Kill struct {
	Replica       int
	At, Restarted time.Time
}

// WebhookResult is what a webhook soak counted, and what it found wrong.
// Its Result holds the partner's side (reports, their answers, retries)
// and every violation.
type WebhookResult struct {
	*Result
	Deciders  int
	Rate      float64 // new reports a second, 0: closed loop
	FailShare float64
	Schedule  string
	Endpoint  string
	// Secrets are the endpoint's signing secret and the back-office
	// client's secret, for a test to look for in the logs; never printed.
	Secrets     []string
	Kills       []Kill
	AwayFrom    time.Time
	AwayUntil   time.Time
	OutboxBound time.Duration
	// PendingAtStop is the deliveries pending and events not dispatched
	// when the reports and decisions had drained.
	PendingAtStop int
	// OutboxDrained is when no delivery was pending and every event was
	// dispatched; zero when that did not happen within OutboxBound.
	OutboxDrained time.Time

	decMu           sync.Mutex
	DecisionAnswers map[string]int64 // the decision API's answers by status ("200", "503", "no answer")
	decisions       map[int64]string // the status each decision's 200 said, by report id

	Rows, Accepted, Rejected int            // staging rows, and the decided ones by status
	Events                   map[string]int // report_events by type
	Deliveries               map[string]int // webhook_deliveries by state

	Posts, Answered500    int // POSTs the receiver got, and those it answered 500
	EventsDelivered       int // events answered 2xx at least once
	Undelivered           int // events never answered 2xx
	EventsWithoutDelivery int // events with no delivery row at all (dispatched or not)
	DecidedFullyDone      int // decided reports both of whose events were answered 2xx
	Duplicates            int // webhook-ids answered 2xx more than once
	DuplicatePosts        int // the 2xx beyond each id's first
	SignaturesChecked     int // by the standardwebhooks package
	SignaturesValid       int
	EventsWithoutState    int // an event whose report is missing, or in another state
	StatesWithoutEvent    int // a stored report without report.received, a decided one without its decision's event
	ExtraEvents           int // a report's events of one type beyond the first
	UndecidedAcknowledge  int // reports acknowledged to the partner and never decided

	// Latency from a decision (decided_at) to its event's first 2xx at
	// the receiver, over LatencyN decisions.
	LatencyN                               int
	LatencyP50, LatencyP99                 time.Duration
	LatencyMax                             time.Duration
	ReceivedLatencyP50, ReceivedLatencyP99 time.Duration // the same from a report's received_at, for report.received
}

func newWebhookResult(r *Result, c *WebhookConfig) *WebhookResult {
	return &WebhookResult{Result: r, Deciders: c.Deciders, Rate: c.Rate, FailShare: c.FailShare, Schedule: c.schedule(), OutboxBound: c.outboxBound(),
		DecisionAnswers: map[string]int64{}, decisions: map[int64]string{}, Events: map[string]int{}, Deliveries: map[string]int{}}
}

func (r *WebhookResult) tallyDecision(kind string) {
	r.decMu.Lock()
	defer r.decMu.Unlock()
	r.DecisionAnswers[kind]++
}

func (r *WebhookResult) decided(id int64, status string) {
	r.decMu.Lock()
	defer r.decMu.Unlock()
	r.decisions[id] = status
}

// Decided is how many reports the back office got a 200 for.
func (r *WebhookResult) Decided() int {
	r.decMu.Lock()
	defer r.decMu.Unlock()
	return len(r.decisions)
}

// Print writes the counts, one per line, then the violations.
func (r *WebhookResult) Print(w io.Writer) {
	since := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return "+" + t.Sub(r.LoadStarted).Round(100*time.Millisecond).String()
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	pace := "as fast as answered"
	if r.Rate > 0 {
		pace = fmt.Sprintf("paced to %.0f reports/s", r.Rate)
	}
	p("load:               %s at c=%d (%s) on %d replicas, %d deciders; reports and decisions drained in %s",
		r.LoadStopped.Sub(r.LoadStarted).Round(time.Second), r.Concurrency, pace, r.Replicas, r.Deciders, r.Drained.Sub(r.LoadStopped).Round(100*time.Millisecond))
	for _, k := range r.Kills {
		p("SIGKILL / restart:  replica %d killed %s, restarted and ready %s", k.Replica, since(k.At), since(k.Restarted))
	}
	p("receiver:           answers 500 to %.0f %% at random; away (listener closed) from %s to %s", 100*r.FailShare, since(r.AwayFrom), since(r.AwayUntil))
	p("retry schedule:     %s", r.Schedule)
	drained := fmt.Sprintf("NOT: no progress for %s", r.OutboxBound)
	if !r.OutboxDrained.IsZero() {
		took := r.OutboxDrained.Sub(r.Drained)
		drained = fmt.Sprintf("%s after the reports and decisions (%d deliveries and events left then: %.0f a second; bound %s without progress)",
			took.Round(100*time.Millisecond), r.PendingAtStop, float64(r.PendingAtStop)/max(took.Seconds(), 0.001), r.OutboxBound)
	}
	p("outbox drained:     %s", drained)
	p("reports:            %d POSTs (%s), retries %d; %d acknowledged", r.Requests, counts(r.Answers), r.Retries, r.Acknowledged())
	p("decisions:          %d decided by the API (%s)", r.Decided(), counts(maps.Clone(r.DecisionAnswers)))
	p("rows:               %d (%d accepted, %d rejected, %d received)", r.Rows, r.Accepted, r.Rejected, r.Rows-r.Accepted-r.Rejected)
	p("events:             %s", countsInt(r.Events))
	p("deliveries (table): %s", countsInt(r.Deliveries))
	p("receiver got:       %d POSTs, %d answered 500 (%.0f a second from the load's start to the drain's end)", r.Posts, r.Answered500,
		float64(r.Posts)/max(r.Finished.Sub(r.LoadStarted).Seconds(), 0.001))
	p("events delivered:   %d of %d (undelivered %d, without a delivery row %d)", r.EventsDelivered, r.EventsDelivered+r.Undelivered, r.Undelivered, r.EventsWithoutDelivery)
	p("decided reports:    %d of %d with both events delivered", r.DecidedFullyDone, r.Accepted+r.Rejected)
	p("duplicates:         %d webhook-ids answered 2xx more than once (%d extra 2xx)", r.Duplicates, r.DuplicatePosts)
	p("signatures:         %d of %d POSTs valid per standardwebhooks (npm)", r.SignaturesValid, r.SignaturesChecked)
	p("events w/o state:   %d", r.EventsWithoutState)
	p("states w/o event:   %d", r.StatesWithoutEvent)
	p("extra events:       %d (a second event of one type for one report)", r.ExtraEvents)
	p("undecided acked:    %d", r.UndecidedAcknowledge)
	p("decision → 2xx:     p50 %s, p99 %s, max %s over %d decisions", r.LatencyP50, r.LatencyP99, r.LatencyMax, r.LatencyN)
	p("stored → 2xx:       p50 %s, p99 %s (report.received)", r.ReceivedLatencyP50, r.ReceivedLatencyP99)
	p("violations:         %d", r.ViolationCount)
	for _, v := range r.Violations {
		p("  %s", v)
	}
}
