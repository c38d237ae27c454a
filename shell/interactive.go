package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/peterh/liner"
)

// The interactive mode reads the terminal with peterh/liner: line
// editing, history (kept in Options.HistoryFile) and Tab completion
// (complete.go). A statement ends with ';' and may span lines; a colon
// command is one line. While a query runs the terminal is out of raw
// mode and Ctrl-C arrives as SIGINT, which cancels the query; at the
// prompt it clears the line.

// interactive runs the read-run loop on the process's terminal until
// :quit or Ctrl-D; it returns ExitOK (errors are reported, not fatal).
func (sh *shell) interactive(ctx context.Context) int {
	sh.sigint = make(chan os.Signal, 1)
	signal.Notify(sh.sigint, os.Interrupt)
	defer signal.Stop(sh.sigint)
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	sh.loadHistory(ln)
	sh.comp = &completions{stale: true}
	ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		return sh.complete(ctx, line, pos)
	})
	fmt.Fprintf(sh.o.Stdout, "Connected to %s. Statements end with ';'. :help lists the commands, :quit leaves.\n", sh.describe())
	sp := newSplitter("input")
	var entry []string // the lines of the statement being typed
	for {
		line, err := ln.Prompt(sh.prompt(sp.pending()))
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			sp, entry = newSplitter("input"), nil
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(sh.o.Stdout)
			return ExitOK
		case err != nil:
			fmt.Fprintf(sh.o.Stderr, "cannot read the terminal: %v\n", err)
			return ExitError
		}
		entry = append(entry, line)
		stmts := sp.feed(line)
		if !sp.pending() {
			if h := strings.TrimSpace(strings.Join(entry, " ")); h != "" {
				ln.AppendHistory(h)
				sh.saveHistory(ln)
			}
			entry = nil
		}
		for _, st := range stmts {
			if sh.interactiveRun(ctx, st) {
				return ExitOK
			}
		}
	}
}

// interactiveRun runs one statement or command and reports its error;
// true means :quit.
func (sh *shell) interactiveRun(ctx context.Context, st statement) bool {
	err := sh.execute(ctx, st)
	switch {
	case err == nil, errors.Is(err, errSourced):
	case errors.Is(err, errQuit):
		return true
	case errors.Is(err, errCancelled):
		fmt.Fprintln(sh.o.Stderr, err.Error())
	case isConnError(err):
		sh.describeError(err, &st)
		fmt.Fprintln(sh.o.Stderr, "(the next statement connects again)")
	default:
		sh.describeError(err, &st)
	}
	return false
}

// prompt is "quiver> ", "quiver[tx]> " in a transaction, with the
// graph after a colon when it is not the default one ("quiver:sales> "),
// and an arrow as long for a statement's next lines.
func (sh *shell) prompt(continued bool) string {
	name := "quiver"
	if g := sh.o.Graph; g != "" && g != "default" {
		name += ":" + g
	}
	p := name + "> "
	if sh.conn.inTx() {
		p = name + "[tx]> "
	}
	if continued {
		return strings.Repeat(" ", len(p)-3) + "-> "
	}
	return p
}

func (sh *shell) describe() string {
	how := map[string]string{TransportTCP: "the wire protocol over TCP", TransportQUIC: "the wire protocol over QUIC", TransportHTTP: "the HTTP API"}[sh.o.Transport]
	s := "Quiver at " + sh.o.Addr + " over " + how
	if sh.o.TLS != nil && sh.o.Transport != TransportQUIC {
		s += " with TLS"
	}
	if sh.o.User != "" {
		s += " as " + sh.o.User
	}
	return s
}

func (sh *shell) loadHistory(ln *liner.State) {
	if sh.o.HistoryFile == "" {
		return
	}
	f, err := os.Open(sh.o.HistoryFile)
	if err != nil {
		return // none yet
	}
	defer f.Close()
	_, _ = ln.ReadHistory(f)
}

// saveHistory writes the history after each entry, so that a shell
// killed keeps what was typed before.
func (sh *shell) saveHistory(ln *liner.State) {
	if sh.o.HistoryFile == "" {
		return
	}
	f, err := os.OpenFile(sh.o.HistoryFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintf(sh.o.Stderr, "cannot save the history: %v\n", err)
		sh.o.HistoryFile = "" // say it once
		return
	}
	_, _ = ln.WriteHistory(f)
	f.Close()
}
