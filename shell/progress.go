package shell

import (
	"fmt"
	"sync"
	"time"
)

// progress shows, on a terminal, how long a query has run once it has
// run longer than Options.Progress: a line on standard error, rewritten
// four times a second and cleared when the first row comes or the query
// ends, so it never mixes with the rows on standard output.
type progress struct {
	once sync.Once
	done chan struct{}
	wg   sync.WaitGroup
}

// startProgress starts the elapsed-time line (interactive mode only).
func (sh *shell) startProgress() *progress {
	p := &progress{done: make(chan struct{})}
	if !sh.o.Interactive {
		return p
	}
	start := time.Now()
	w := sh.o.Stderr
	after := sh.o.Progress
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTimer(after)
		defer t.Stop()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			fmt.Fprintf(w, "\r\x1b[2K%.1f s elapsed (Ctrl-C cancels)", time.Since(start).Seconds())
			select {
			case <-p.done:
				fmt.Fprint(w, "\r\x1b[2K")
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// stop clears the line, if shown, before anything else is written.
func (p *progress) stop() {
	p.once.Do(func() {
		close(p.done)
		p.wg.Wait()
	})
}

// watchInterrupt cancels the running query on Ctrl-C (interactive mode,
// where the shell receives SIGINT instead of dying of it); the returned
// function stops watching.
func (sh *shell) watchInterrupt(cancel func()) func() {
	if sh.sigint == nil {
		return func() {}
	}
	for drained := false; !drained; { // a Ctrl-C from before the query is not for it
		select {
		case <-sh.sigint:
		default:
			drained = true
		}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-sh.sigint:
			cancel()
		case <-done:
		}
	}()
	return func() { close(done) }
}
