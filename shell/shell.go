package shell

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quiverdb/quiver/client"
)

// Exit codes of Run.
const (
	ExitOK         = 0 // every statement and command succeeded
	ExitError      = 1 // a statement or command failed (scripts stop at the first)
	ExitUsage      = 2 // bad flags or a bad script file
	ExitConnection = 3 // the server could not be reached, or the connection was lost
)

// Transports a shell connects over.
const (
	TransportTCP  = "tcp"  // the wire protocol over TCP (TLS with a TLS option)
	TransportQUIC = "quic" // the wire protocol over QUIC
	TransportHTTP = "http" // the HTTP API (HTTPS with a TLS option)
)

// Options configure a shell. Addr and the streams are required.
type Options struct {
	// Addr is the server's host:port (its --listen).
	Addr string
	// Transport is TransportTCP (""), TransportQUIC or TransportHTTP.
	Transport string
	// User and Password authenticate (HTTP Basic, or the wire HELLO).
	User, Password string
	// TLS, when set, makes the TCP and HTTP transports speak TLS; QUIC
	// always does and needs it.
	TLS *tls.Config
	// Format is the output format: table (""), csv, json or jsonl.
	Format string
	// Command runs these statements and exits (-c); File runs a script
	// file and exits (-f). With neither, statements come from Stdin:
	// interactively when Interactive is set, as a script otherwise.
	Command, File string
	// Interactive reads Stdin with the line editor, prompts and history;
	// the caller sets it when standard input and output are a terminal.
	Interactive bool
	// HistoryFile keeps the interactive history ("" for none).
	HistoryFile string
	// MaxWidth is the widest a table column gets, in terminal cells
	// (values beyond are cut with "…"); zero means 60.
	MaxWidth int
	// Progress is how long a query runs before the shell shows its
	// elapsed time on Stderr (interactive only); zero means 2 s.
	Progress time.Duration
	// ClientName is sent in the wire protocol's HELLO.
	ClientName string
	// Graph is the graph statements run on ("": the server's default);
	// a statement `USE name` on its own changes it (docs/graphs.md).
	Graph string

	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// formats lists the output formats :format and --format accept.
var formats = []string{"table", "csv", "json", "jsonl"}

func validFormat(f string) bool {
	for _, x := range formats {
		if f == x {
			return true
		}
	}
	return false
}

// Run connects and runs the shell until its input ends, :quit, or (in a
// script) the first error, and returns the exit code. Errors go to
// Stderr with their code and position; results to Stdout.
func Run(ctx context.Context, o Options) int {
	if o.Format == "" {
		o.Format = "table"
	}
	if !validFormat(o.Format) {
		fmt.Fprintf(o.Stderr, "quiver shell: unknown format %q (table, csv, json or jsonl)\n", o.Format)
		return ExitUsage
	}
	if o.MaxWidth <= 0 {
		o.MaxWidth = 60
	}
	if o.Progress <= 0 {
		o.Progress = 2 * time.Second
	}
	if o.Transport == "" {
		o.Transport = TransportTCP
	}
	if o.Command != "" && o.File != "" {
		fmt.Fprintln(o.Stderr, "quiver shell: -c and -f exclude each other")
		return ExitUsage
	}
	var script string
	var source string
	switch {
	case o.Command != "":
		script, source, o.Interactive = o.Command, "-c", false
	case o.File != "":
		b, err := os.ReadFile(o.File)
		if err != nil {
			fmt.Fprintf(o.Stderr, "quiver shell: %v\n", err)
			return ExitUsage
		}
		script, source, o.Interactive = string(b), o.File, false
	}
	c, err := newConn(&o)
	if err != nil {
		fmt.Fprintf(o.Stderr, "quiver shell: %v\n", err)
		return ExitUsage
	}
	sh := &shell{o: o, conn: c, format: o.Format, params: map[string]any{}}
	defer sh.conn.close()
	if err := sh.conn.connect(ctx); err != nil {
		fmt.Fprintf(o.Stderr, "quiver shell: %v\n", err)
		return ExitConnection
	}
	switch {
	case o.Command != "" || o.File != "":
		return sh.runScript(ctx, strings.NewReader(script), source)
	case o.Interactive:
		return sh.interactive(ctx)
	}
	return sh.runScript(ctx, o.Stdin, "<stdin>")
}

// shell is one run of the shell: its connection and session state.
type shell struct {
	o      Options
	conn   conn
	format string
	params map[string]any
	// depth counts the :source files being read, against loops.
	depth int
	// comp holds the completion words (complete.go); nil outside the
	// interactive mode.
	comp *completions
	// sigint delivers Ctrl-C while a query runs (interactive mode).
	sigint chan os.Signal
}

// connError marks an error of the connection itself (it could not be
// made, or was lost), as opposed to one the server answered with.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// isConnError reports whether err means the connection is gone.
func isConnError(err error) bool {
	var ce *connError
	return errors.As(err, &ce)
}

// exitCode is the code a script exits with after err.
func exitCode(err error) int {
	if isConnError(err) {
		return ExitConnection
	}
	return ExitError
}

// errCancelled is a query the user cancelled with Ctrl-C.
var errCancelled = errors.New("query cancelled")

// describeError writes err for a person: a server error with its code,
// category and position (and, given the statement, the line with a
// caret under the column); another error as it is.
func (sh *shell) describeError(err error, stmt *statement) {
	w := sh.o.Stderr
	if isConnError(err) {
		fmt.Fprintf(w, "connection error: %v\n", err)
		return
	}
	var ce *client.Error
	if !errors.As(err, &ce) {
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	msg := ce.Code
	if ce.Category != "" {
		msg += " " + ce.Category
	}
	fmt.Fprintf(w, "error %s: %s\n", msg, ce.Message)
	if ce.Line <= 0 || stmt == nil {
		return
	}
	line, col := stmt.line+ce.Line-1, ce.Column
	if ce.Line == 1 {
		col += stmt.col - 1
	}
	fmt.Fprintf(w, "  at %s:%d:%d\n", stmt.source, line, col)
	lines := strings.Split(stmt.text, "\n")
	if ce.Line <= len(lines) && ce.Column >= 1 {
		text := lines[ce.Line-1]
		pad := []rune(text)
		if ce.Column-1 <= len(pad) {
			caret := make([]rune, 0, ce.Column)
			for _, r := range pad[:ce.Column-1] {
				if r == '\t' {
					caret = append(caret, '\t')
				} else {
					caret = append(caret, ' ')
				}
			}
			fmt.Fprintf(w, "  %s\n  %s^\n", text, string(caret))
		}
	}
}
