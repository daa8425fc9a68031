package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/lender/disbursementd/domain"
)

const webhooksHelp = `Operates partners' webhook endpoints (contract §11):
  webhooks list [--partner U]          every endpoint (or one partner's): id, partner, status, URL
                                       (its query hidden), event types, last success, why disabled
  webhooks disable ID [--reason TEXT]  stop deliveries to an endpoint; its GET shows the reason
  webhooks enable ID                   deliver to it again (pending deliveries resume)
  webhooks redeliver --since TIME [--endpoint ID]
                                       send again every event created since TIME (YYYY-MM-DD or
                                       RFC 3339), to every enabled endpoint that takes it or to one
Partners manage their own endpoints with their token (/v1/webhook_endpoints); these commands
act on any partner's.`

var webhooksCommand = subcommands{"webhooks", "list|disable|enable|redeliver [flags]", webhooksHelp, map[string]subcommand{
	"list":    {"[--partner U]", "Lists webhook endpoints, oldest first, without their secrets; the URL's query is hidden (it may carry a partner's token)."},
	"disable": {"ID [--reason TEXT]", "Disables endpoint ID, whoever's it is: no delivery is attempted while it is disabled. Exit code 3 when there is no such endpoint."},
	"enable":  {"ID", "Enables endpoint ID again. Exit code 3 when there is no such endpoint."},
	"redeliver": {"--since TIME [--endpoint ID]", "Makes every event created at or after TIME due again for each enabled endpoint of its partner\n" +
		"that takes its type (or only endpoint ID), and prints how many deliveries that is. Attempts\n" +
		"made before stay in the attempts log; receivers see the same webhook-id."},
}}

// webhooksRun runs "disbursementd webhooks SUBCOMMAND" (the name webhooks
// is the delivery adapter's package).
func webhooksRun(ctx context.Context, args []string, io IO) int {
	p, code, ok := webhooksCommand.pick(args, io)
	if !ok {
		return code
	}
	who := "disbursementd webhooks " + p.name
	fs := p.fs
	partner, reason := fs.String("partner", "", "only this partner's (user name)"), new(string)
	since, endpoint := new(string), new(string)
	switch p.name {
	case "disable":
		reason = fs.String("reason", "", "why, as the endpoint's GET shows it (default: disabled by the lender's operator)")
	case "redeliver":
		since = fs.String("since", "", "events created at or after this: YYYY-MM-DD (00:00 UTC) or RFC 3339")
		endpoint = fs.String("endpoint", "", "only this endpoint (we_...)")
	}
	id, code, ok := endpointArg(p, io)
	if !ok {
		return code
	}
	at, ok := domain.ParseInstant(*since)
	if p.name == "redeliver" && !ok {
		fmt.Fprintf(io.Stderr, "%s: --since %q: want YYYY-MM-DD or an RFC 3339 date-time\n", who, *since)
		return ExitUsage
	}
	return withDecisions(ctx, *p.cfgPath, io, who, func(c s11Cases) int {
		switch p.name {
		case "disable":
			if err := c.endpoints.Disable(ctx, id, *reason); err != nil {
				return cliErr(io, who, err)
			}
			fmt.Fprintf(io.Stdout, "endpoint %s disabled\n", id)
		case "enable":
			if err := c.endpoints.Enable(ctx, id); err != nil {
				return cliErr(io, who, err)
			}
			fmt.Fprintf(io.Stdout, "endpoint %s enabled\n", id)
		case "redeliver":
			n, err := c.redelivery.Since(ctx, at, *endpoint)
			if err != nil {
				return cliErr(io, who, err)
			}
			fmt.Fprintf(io.Stdout, "%d deliveries made due (events since %s); running servers attempt them within webhooks.poll_interval\n", n, domain.ReceiptTime(at))
		default:
			es, err := c.endpoints.All(ctx)
			if err != nil {
				return cliErr(io, who, err)
			}
			tw := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPARTNER\tSTATUS\tURL\tEVENT_TYPES\tCREATED_AT\tLAST_SUCCESS\tDISABLED_REASON")
			for _, e := range es {
				if *partner != "" && e.PartnerUser != *partner {
					continue
				}
				types := "all"
				if len(e.EventTypes) > 0 {
					names := make([]string, len(e.EventTypes))
					for i, t := range e.EventTypes {
						names[i] = string(t)
					}
					types = strings.Join(names, ",")
				}
				last := "never"
				if !e.LastSuccessAt.IsZero() {
					last = domain.ReceiptTime(e.LastSuccessAt)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.PartnerUser, e.Status, shownURL(e.URL), types,
					domain.ReceiptTime(e.CreatedAt), last, orDash(e.DisabledReason))
			}
			_ = tw.Flush()
		}
		return ExitOK
	})
}

// endpointArg parses the flags and, for disable and enable, reads the one
// endpoint id; on failure it has said why.
func endpointArg(p picked, io IO) (string, int, bool) {
	id, code, ok := oneArg(p)
	if !ok {
		return "", code, false
	}
	byID := p.name == "disable" || p.name == "enable"
	if byID != (id != "") {
		want := "no arguments"
		if byID {
			want = "one endpoint id (we_...)"
		}
		fmt.Fprintf(io.Stderr, "disbursementd webhooks %s: want %s (see disbursementd webhooks %s --help)\n", p.name, want, p.name)
		return "", ExitUsage, false
	}
	return id, ExitOK, true
}

// shownURL is an endpoint's URL with its query hidden: a partner may put
// a token there.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable)"
	}
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}
