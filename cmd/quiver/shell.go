package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/shell"
)

// runShell is `quiver shell`: flags here, the shell in package shell.
func runShell(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	o, err := parseShell(args, stdin, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "quiver shell: %v\n", err)
		return shell.ExitUsage
	}
	o.Stdin, o.Stdout, o.Stderr = stdin, stdout, stderr
	return shell.Run(context.Background(), o)
}

// parseShell reads the flags of `quiver shell`; the password comes from
// QUIVER_PASSWORD or a prompt.
func parseShell(args []string, stdin *os.File, stderr io.Writer) (shell.Options, error) {
	fs := flag.NewFlagSet("quiver shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o shell.Options
	var quic, useHTTP, useTLS bool
	var caFile, fingerprint string
	fs.StringVar(&o.Addr, "a", "127.0.0.1:3141", "the server's `host:port`")
	fs.StringVar(&o.User, "u", "", "the `user` to authenticate as (password from QUIVER_PASSWORD or a prompt)")
	fs.BoolVar(&quic, "quic", false, "speak the wire protocol over QUIC (needs -tls-fingerprint or -tls-ca)")
	fs.BoolVar(&useHTTP, "http", false, "speak the HTTP API instead of the wire protocol")
	fs.BoolVar(&useTLS, "tls", false, "speak TLS, trusting the system's CAs")
	fs.StringVar(&caFile, "tls-ca", "", "speak TLS, trusting the CA certificates in this PEM `file`")
	fs.StringVar(&fingerprint, "tls-fingerprint", "", "speak TLS, trusting only the certificate with this SHA-256 `fingerprint` (as the server logs it)")
	fs.StringVar(&o.Format, "format", "table", "output `format`: table, csv, json or jsonl")
	fs.StringVar(&o.Command, "c", "", "run these `statements` and exit")
	fs.StringVar(&o.File, "f", "", "run the statements of this `file` and exit")
	fs.StringVar(&o.HistoryFile, "history", defaultHistory(), "the history `file` (\"\" for none; QUIVER_HISTORY)")
	fs.IntVar(&o.MaxWidth, "max-width", 60, "the widest table column, in `cells`")
	fs.StringVar(&o.Graph, "graph", "", "the `graph` statements run on (the default graph when left out; USE name changes it)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: quiver shell [flags]\n\nAn interactive shell, or a script runner with -c, -f or statements on standard input.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (statements go in -c, or on standard input)", fs.Arg(0))
	}
	switch {
	case quic && useHTTP:
		return o, errors.New("-quic and -http exclude each other")
	case quic:
		o.Transport = shell.TransportQUIC
	case useHTTP:
		o.Transport = shell.TransportHTTP
	default:
		o.Transport = shell.TransportTCP
	}
	switch {
	case caFile != "" && fingerprint != "":
		return o, errors.New("-tls-ca and -tls-fingerprint exclude each other")
	case caFile != "":
		tc, err := client.TLSConfigFromCA(caFile)
		if err != nil {
			return o, err
		}
		o.TLS = tc
	case fingerprint != "":
		o.TLS = client.PinnedTLSConfig(fingerprint)
	case useTLS:
		o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	o.Interactive = o.Command == "" && o.File == "" && shell.IsTerminal(stdin)
	o.ClientName = "quiver-shell/" + version
	if o.User != "" {
		if pw, ok := os.LookupEnv("QUIVER_PASSWORD"); ok {
			o.Password = pw
		} else {
			pw, err := shell.ReadPassword(o.User)
			if err != nil {
				return o, err
			}
			o.Password = pw
		}
	}
	return o, nil
}

// defaultHistory is QUIVER_HISTORY, or ~/.quiver_history.
func defaultHistory() string {
	if h, ok := os.LookupEnv("QUIVER_HISTORY"); ok {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".quiver_history")
}
