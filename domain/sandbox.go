package domain

import "strings"

// A sandbox instance (sandbox.enabled) decides by itself the reports whose
// credit number starts with one of these prefixes, in any case, so that a
// partner can test its webhook receiver and its handling of each reason
// code without calling the lender (issue 36; Stripe's test mode has such
// magic values). A production instance never does: the setting is off by
// default and every other credit number waits for the back office.
const (
	// SandboxAcceptPrefix: the report is accepted.
	SandboxAcceptPrefix = "SBX-ACEPTA"
	// SandboxRejectPrefix: the report is rejected. SBX-RECHAZA-N-… (N
	// from 1 to 9) gives the N-th configured reason code; any other
	// SBX-RECHAZA… the first.
	SandboxRejectPrefix = "SBX-RECHAZA"
	// DecidedBySandbox is who a sandbox's decision says made it.
	DecidedBySandbox = "sandbox"
	// MsgSandboxReason is a sandbox rejection's reason.
	MsgSandboxReason = "Rechazo automático del sandbox (número de crédito SBX-RECHAZA…): no es una decisión del prestamista"
)

// SandboxRequest is the decision a sandbox makes by itself on a report
// whose credit number is credit, with codes the configured reason codes,
// and false for a credit number that names none.
func SandboxRequest(credit string, codes []string) (DecisionRequest, bool) {
	switch {
	case hasPrefixFold(credit, SandboxAcceptPrefix):
		return DecisionRequest{Decision: string(StatusAccepted)}, true
	case hasPrefixFold(credit, SandboxRejectPrefix) && len(codes) > 0:
		code := codes[0]
		rest := credit[len(SandboxRejectPrefix):]
		if len(rest) >= 3 && rest[0] == '-' && rest[1] >= '1' && rest[1] <= '9' && rest[2] == '-' {
			if n := int(rest[1] - '0'); n <= len(codes) {
				code = codes[n-1]
			}
		}
		return DecisionRequest{Decision: string(StatusRejected), ReasonCode: code, Reason: MsgSandboxReason}, true
	}
	return DecisionRequest{}, false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
