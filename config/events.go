package config

import (
	"time"

	"github.com/lender/disbursementd/domain"
)

// DecisionsConfig is how the lender decides reports (contract §11).
type DecisionsConfig struct {
	// ReasonCodes' default is domain.DefaultReasonCodes (a test holds
	// them equal).
	ReasonCodes []string `mapstructure:"reason_codes" default:"monto_no_coincide,credito_no_encontrado,documento_ilegible,documento_faltante,datos_cliente,duplicado,otro" doc:"the reason codes a rejection may give (partners switch on them; the partner guide says what each means): one or more codes, each 1 to 64 of a-z, 0-9 and _ starting with a letter, none twice"`
}

// EventsConfig is how partners read what became of their reports.
type EventsConfig struct {
	Retention time.Duration `mapstructure:"retention" default:"30d" doc:"events, with their webhook deliveries and attempts, are kept this long; disbursementd events purge (from cron) deletes older ones; at least 1d"`
	ListDelay time.Duration `mapstructure:"list_delay" default:"5s" doc:"GET /v1/events lists an event once it is this old, so a cursor never passes an event whose transaction commits late; 0s to 1m"`
}

// EventSlack is how long an event's way to its commit may take, in the
// report's checks and in the store each, before its time moves on by the
// rest (ports.ReportsOptions.EventSlack, gormstore.Options.EventSlack): a
// quarter of events.list_delay, so that the two, and a commit, stay
// within it.
func (c EventsConfig) EventSlack() time.Duration { return c.ListDelay / 4 }

// SandboxConfig makes an instance a sandbox (issue 36): partners test
// their webhook receivers against it without the lender deciding.
type SandboxConfig struct {
	Enabled     bool          `mapstructure:"enabled" default:"false" doc:"true only on a sandbox instance (its own database and keys, never production's): a report whose credit number starts with SBX-ACEPTA is accepted, SBX-RECHAZA rejected (SBX-RECHAZA-N-… with the N-th of decisions.reason_codes), by itself, decided_by sandbox"`
	DecideAfter time.Duration `mapstructure:"decide_after" default:"5s" doc:"how old such a report is when the sandbox decides it; 0s to 1m"`
}

// Bounds of the events settings that no domain rule holds.
const (
	minEventRetention = 24 * time.Hour
	maxListDelay      = time.Minute
	maxSandboxDelay   = time.Minute
)

// finishEvents checks the decisions and events sections. The reason
// codes are the domain's rule (domain.NewDecisionRules), in its words.
func (c *Config) finishEvents() error {
	if _, err := c.Decisions.Rules(); err != nil {
		return domainRule("decisions.reason_codes", err)
	}
	if c.Events.Retention < minEventRetention {
		return keyError("events.retention", "%s, want at least 1d (a partner reconciling after an outage reads back this far)", c.Events.Retention)
	}
	if c.Events.ListDelay < 0 || c.Events.ListDelay > maxListDelay {
		return keyError("events.list_delay", "%s, want 0s to %s", c.Events.ListDelay, maxListDelay)
	}
	if c.Sandbox.DecideAfter < 0 || c.Sandbox.DecideAfter > maxSandboxDelay {
		return keyError("sandbox.decide_after", "%s, want 0s to %s", c.Sandbox.DecideAfter, maxSandboxDelay)
	}
	return nil
}

// Rules are the decisions section as the domain's decision rules: the one
// place they are built from configuration. A Config that Load returned
// always has valid ones.
func (d DecisionsConfig) Rules() (domain.DecisionRules, error) {
	return domain.NewDecisionRules(d.ReasonCodes)
}
