package app

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"
)

const probeHelp = `Asks the running service's /readyz, on http.addr (an unspecified host such
as 0.0.0.0 is asked on 127.0.0.1), within 5 s. Exit 0 when it answers 200, 1
otherwise. For a container's health check, where the image has no shell or
curl (deploy/docker-compose.yml).`

// probeTimeout bounds one probe: a health check that hangs is a failure.
const probeTimeout = 5 * time.Second

func probeRunner(*flag.FlagSet) runner {
	return func(ctx context.Context, cfgPath string, io IO) int {
		cfg, code := loadConfig(cfgPath, io)
		if cfg == nil {
			return code
		}
		host, port, err := net.SplitHostPort(cfg.HTTP.Addr)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd probe: http.addr:", err)
			return ExitFailure
		}
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		url := "http://" + net.JoinHostPort(host, port) + "/readyz"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd probe:", err)
			return ExitFailure
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd probe:", err)
			return ExitFailure
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Fprintf(io.Stderr, "disbursementd probe: %s answered %s\n", url, resp.Status)
			return ExitFailure
		}
		fmt.Fprintln(io.Stdout, "ready")
		return ExitOK
	}
}
