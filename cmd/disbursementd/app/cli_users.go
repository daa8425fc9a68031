package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

const usersHelp = `Manages the users of the built-in login:
  users add --user U --nit N       add an active user; the password (12 to 72 bytes) is read from standard input
  users passwd --user U            give the user a new password, read from standard input; tokens issued before are refused within auth.user_staleness
  users deactivate --user U        refuse the user's logins and, within auth.user_staleness, its tokens
  users activate --user U          allow them again (new tokens work at once)
  users list                       list every user
User names are 1 to 64 printable ASCII characters without spaces, compared
byte for byte ("ACME" and "acme" are two users).`

var usersCommand = subcommands{"users", "add|passwd|deactivate|activate|list [flags]", usersHelp, map[string]subcommand{
	"add": {"--user U --nit N", "Adds an active user of the built-in login. The password is read from standard input\n" +
		"(one line, 12 to 72 bytes). Exit code 3 when the user exists, 2 when the name, NIT or password is refused."},
	"passwd": {"--user U", "Gives the user a new password, read from standard input (one line, 12 to 72 bytes; no echo\n" +
		"on a terminal). The old password is refused at once; tokens issued before the second of the change\n" +
		"are refused within auth.user_staleness on every replica. Exit code 3 when there is no such user, 2 when\n" +
		"the password is refused."},
	"deactivate": {"--user U", "Refuses the user's logins at once, and its tokens within auth.user_staleness. Exit code 3 when there is no such user."},
	"activate":   {"--user U", "Allows the user's logins and tokens again. Exit code 3 when there is no such user."},
	"list": {"", "Lists every user: name, NIT, active, created, the partner's last secret rotation (POST /v1/credentials/rotate)\n" +
		"and until when its old secret works (- when none; ended when the overlap is over or users passwd stopped it)."},
}}

func users(ctx context.Context, args []string, io IO) int {
	p, code, ok := usersCommand.pick(args, io)
	if !ok {
		return code
	}
	sub, fs := p.name, p.fs
	var user, nit *string
	if sub != "list" {
		user = fs.String("user", "", "user name")
	}
	if sub == "add" {
		nit = fs.String("nit", "", "the partner's NIT (9-10 digits, optional -check digit)")
	}
	if code, ok := parse(fs, p.args); !ok {
		return code
	}
	if user != nil && *user == "" || nit != nil && *nit == "" {
		fmt.Fprintf(io.Stderr, "disbursementd users %s: %s is required\n", sub, p.spec.args)
		return ExitUsage
	}
	cfg, st, code := openConfiguredStore(ctx, *p.cfgPath, io, true)
	if st == nil {
		return code
	}
	defer st.Close()
	hasher, err := Hasher(cfg)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return ExitFailure
	}
	svc, err := ports.NewUsers(st, hasher, sysclock.Clock{})
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return ExitFailure
	}
	switch sub {
	case "add":
		pw, err := readPassword(io.Stdin, io.Stderr)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd users add:", err)
			return ExitUsage
		}
		u, err := svc.Add(ctx, *user, *nit, pw)
		if domain.IsKind(err, domain.ErrConflict) {
			fmt.Fprintf(io.Stderr, "disbursementd users add: user %q exists already (users list shows it); nothing was changed\n", *user)
			return ExitExists
		}
		if err != nil {
			return userErr(io, "add", err)
		}
		fmt.Fprintf(io.Stdout, "added user %s (nit %s), active\n", u.Name, u.NIT)
	case "passwd":
		return passwd(ctx, svc, *user, io)
	case "deactivate", "activate":
		err := svc.SetActive(ctx, *user, sub == "activate")
		if domain.IsKind(err, domain.ErrNotFound) {
			fmt.Fprintf(io.Stderr, "disbursementd users %s: no user %q (users list shows them)\n", sub, *user)
			return ExitNotFound
		}
		if err != nil {
			return userErr(io, sub, err)
		}
		fmt.Fprintf(io.Stdout, "user %s %sd\n", *user, sub)
	case "list":
		list, err := svc.List(ctx)
		if err != nil {
			return userErr(io, "list", err)
		}
		tw := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "USER\tNIT\tACTIVE\tCREATED\tROTATED\tOLD SECRET UNTIL")
		for _, u := range list {
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\t%s\n", u.Name, u.NIT, u.Active, listTime(u.CreatedAt), listTime(u.RotatedAt), oldSecretUntil(u))
		}
		_ = tw.Flush()
	}
	return ExitOK
}

// passwd reads the new password and changes it.
func passwd(ctx context.Context, svc *ports.Users, user string, io IO) int {
	pw, err := readPassword(io.Stdin, io.Stderr)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd users passwd:", err)
		return ExitUsage
	}
	at, err := svc.ChangePassword(ctx, user, pw)
	if domain.IsKind(err, domain.ErrNotFound) {
		fmt.Fprintf(io.Stderr, "disbursementd users passwd: no user %q (users list shows them); nothing was changed\n", user)
		return ExitNotFound
	}
	if err != nil {
		return userErr(io, "passwd", err)
	}
	fmt.Fprintf(io.Stdout, "password of %s changed at %s; tokens issued before are refused within auth.user_staleness\n",
		user, at.Format(time.RFC3339))
	return ExitOK
}

// userErr says what went wrong and picks the exit code by the error's kind.
func userErr(io IO, sub string, err error) int {
	fmt.Fprintf(io.Stderr, "disbursementd users %s: %v\n", sub, err)
	return exitCode(err)
}

// readPassword reads one line from standard input. On a terminal it asks
// on prompt and reads without echo, so the password never shows on the
// screen; from a pipe it reads the line as it comes.
func readPassword(r io.Reader, prompt io.Writer) (string, error) {
	var line string
	if f, ok := r.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, "password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", err
		}
		line = string(b)
	} else {
		var err error
		line, err = bufio.NewReader(r).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		return "", errors.New("no password on standard input")
	}
	return pw, nil
}

// listTime is a time as users list shows it; "-" for none.
func listTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// oldSecretUntil is until when a rotated user's old secret works, as
// users list shows it.
func oldSecretUntil(u domain.User) string {
	switch {
	case u.RotatedAt.IsZero():
		return "-"
	case u.PreviousPasswordHash == "" || u.PreviousUntil.IsZero():
		return "ended (users passwd)"
	case !time.Now().Before(u.PreviousUntil):
		return "ended " + listTime(u.PreviousUntil)
	}
	return listTime(u.PreviousUntil)
}
