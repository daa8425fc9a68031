package app

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"
)

const backofficeHelp = `Manages the back-office clients that may decide reports through the decision
API (POST /admin/v1/reports/{id}/decision, on http.metrics_addr's listener only):
  backoffice add --name NAME    add a client and print its secret, once, alone on the last line
  backoffice list               list the clients (names and when they were added; never secrets)
  backoffice remove --name NAME remove a client: its secret stops working at once
A client sends its secret as Authorization: Bearer SECRET; its decisions are recorded as
made by backoffice:NAME. Names are 1 to 64 of a-z, 0-9, '.', '_' and '-'. Only a hash of
the secret is stored: a lost secret cannot be shown again (remove the client, add another).`

var backofficeCommand = subcommands{"backoffice", "add|list|remove [flags]", backofficeHelp, map[string]subcommand{
	"add": {"--name NAME", "Adds a back-office client and prints its secret, once, alone on the last line of the\n" +
		"output (a script may take it with tail -n 1). Exit code 3 when the name is taken, 2 when it is refused."},
	"list":   {"", "Lists the back-office clients: name and when it was added."},
	"remove": {"--name NAME", "Removes a back-office client; its secret is refused from then on. Exit code 3 when there is none."},
}}

// backoffice runs "disbursementd backoffice SUBCOMMAND".
func backoffice(ctx context.Context, args []string, io IO) int {
	p, code, ok := backofficeCommand.pick(args, io)
	if !ok {
		return code
	}
	var name *string
	if p.name != "list" {
		name = p.fs.String("name", "", "the client's name")
	}
	if code, ok := parse(p.fs, p.args); !ok {
		return code
	}
	who := "disbursementd backoffice " + p.name
	if name != nil && *name == "" {
		fmt.Fprintf(io.Stderr, "%s: --name NAME is required\n", who)
		return ExitUsage
	}
	return withDecisions(ctx, *p.cfgPath, io, who, func(c s11Cases) int {
		switch p.name {
		case "add":
			secret, err := c.backoffice.Add(ctx, *name)
			if err != nil {
				return cliErr(io, who, err)
			}
			fmt.Fprintf(io.Stdout, "added back-office client %s; its decisions are recorded as backoffice:%s.\n", *name, *name)
			fmt.Fprintln(io.Stdout, "Its secret follows, shown this once (send it as Authorization: Bearer SECRET):")
			fmt.Fprintln(io.Stdout, secret)
		case "remove":
			if err := c.backoffice.Remove(ctx, *name); err != nil {
				return cliErr(io, who, err)
			}
			fmt.Fprintf(io.Stdout, "removed back-office client %s; its secret is refused from now on\n", *name)
		default:
			clients, err := c.backoffice.List(ctx)
			if err != nil {
				return cliErr(io, who, err)
			}
			tw := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCREATED_AT")
			for _, cl := range clients {
				fmt.Fprintf(tw, "%s\t%s\n", cl.Name, cl.CreatedAt.UTC().Format(time.RFC3339))
			}
			_ = tw.Flush()
		}
		return ExitOK
	})
}
