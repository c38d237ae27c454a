package main

// How `quiver import` shows its progress on stderr. On a terminal, a bar
// per phase (github.com/schollz/progressbar): its bytes or items against
// the phase's total, the rate and the time left, the phase's rows in its
// description; a finished phase's bar stays on screen with its totals.
// Elsewhere (a log file, a pipe, CI), plain lines fit for logs: one every
// plainEvery while a phase runs, and one as each phase ends with its
// totals and time. The engine only counts (engine.Progress); this file
// reads the counts on its own clock.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/quiverdb/quiver/engine"
)

// plainEvery is the time between two plain progress lines of a running
// phase (tests lower it); barEvery the time between two bar updates.
var (
	plainEvery = 2 * time.Second
	barEvery   = 150 * time.Millisecond
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// importProgress shows an import's progress on w until stop.
type importProgress struct {
	mu  sync.Mutex // guards the fields below and writes to w
	w   io.Writer
	tty bool
	// cmd names the command in plain lines ("import", "export").
	cmd string
	bar *progressbar.ProgressBar
	// index is the phase the bar or the last plain line shows.
	index int
	// tracker is what the import reports to; stopWatch stops reading it.
	tracker   *engine.Progress
	stopWatch func()
}

// newImportProgress starts showing an import's progress on w: bars when
// tty, plain lines otherwise. The import reports to its tracker.
func newImportProgress(w io.Writer, tty bool) *importProgress {
	return newProgressShow(w, tty, "import")
}

// newProgressShow starts showing the progress of the command cmd (an
// import or an export) on w.
func newProgressShow(w io.Writer, tty bool, cmd string) *importProgress {
	d := &importProgress{w: w, tty: tty, cmd: cmd}
	d.tracker = engine.NewProgress(d.phase)
	every := plainEvery
	if tty {
		every = barEvery
	}
	d.stopWatch = engine.WatchProgress(d.tracker, every, every, d.tick)
	return d
}

// stop stops showing: called once the import has returned. An import
// that failed leaves its last bar as it was.
func (d *importProgress) stop() {
	d.stopWatch()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bar != nil {
		d.bar.Exit()
		d.bar = nil
	}
}

// tick shows a running phase.
func (d *importProgress) tick(s engine.ProgressSnapshot) {
	if s.Index == 0 || s.Ended {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.tty {
		fmt.Fprintln(d.w, plainLine(d.cmd, s))
		return
	}
	if d.bar == nil || d.index != s.Index {
		return
	}
	d.bar.Describe(barDescription(s))
	d.bar.Set64(barValue(s))
}

// phase starts a phase's bar as it begins, and shows its totals as it
// ends; it runs on the import's goroutine.
func (d *importProgress) phase(s engine.ProgressSnapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case !s.Ended && d.tty:
		d.bar, d.index = newPhaseBar(d.w, s), s.Index
		return
	case !s.Ended:
		return
	case !d.tty:
		fmt.Fprintln(d.w, plainLine(d.cmd, s))
		return
	}
	if d.bar == nil || d.index != s.Index {
		return
	}
	// A bar a tick took to its total is finished and shown already.
	if !d.bar.IsFinished() {
		d.bar.Describe(barDescription(s))
		d.bar.Set64(barValue(s))
		d.bar.Finish()
	}
	d.bar = nil
}

// max64 is the total a phase's bar runs to: its bytes', else its items',
// else none (-1: a spinner).
func max64(s engine.ProgressSnapshot) int64 {
	switch {
	case s.TotalBytes > 0:
		return s.TotalBytes
	case s.TotalItems > 0:
		return s.TotalItems
	}
	return -1
}

func barValue(s engine.ProgressSnapshot) int64 {
	if s.TotalBytes > 0 {
		return s.Bytes
	}
	return s.Items
}

func newPhaseBar(w io.Writer, s engine.ProgressSnapshot) *progressbar.ProgressBar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(24),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		progressbar.OptionSetDescription(barDescription(s)),
	}
	if s.TotalBytes > 0 {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else if s.Unit != "" {
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(s.Unit))
	}
	return progressbar.NewOptions64(max64(s), opts...)
}

// barDescription is the text before a bar: the phase, and its items when
// the bar counts bytes.
func barDescription(s engine.ProgressSnapshot) string {
	if s.TotalBytes > 0 && s.Unit != "" {
		return fmt.Sprintf("%-24s %s %s", s.Name, count(s.Items), s.Unit)
	}
	return fmt.Sprintf("%-24s", s.Name)
}

// plainLine is a phase's progress as one line of text: while it runs
// "import: reading nodes: 12.0 MB of 40.0 MB (30%), 120,000 rows,
// 24.0 MB/s, 240,000 rows/s, ETA 1.2s", and as it ends
// "import: reading nodes done: 40.0 MB, 400,000 rows in 1.7s (…)".
func plainLine(cmd string, s engine.ProgressSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", cmd, s.Name)
	if s.Ended {
		b.WriteString(" done:")
	} else {
		b.WriteString(":")
	}
	var parts []string
	if s.TotalBytes > 0 || s.Bytes > 0 {
		if s.TotalBytes > 0 && !s.Ended {
			parts = append(parts, fmt.Sprintf("%s of %s", megabytes(s.Bytes), megabytes(s.TotalBytes)))
		} else {
			parts = append(parts, megabytes(s.Bytes))
		}
	}
	if s.Unit != "" {
		items := count(s.Items) + " " + s.Unit
		if s.TotalItems > 0 && s.TotalBytes == 0 && !s.Ended {
			items = fmt.Sprintf("%s of %s %s", count(s.Items), count(s.TotalItems), s.Unit)
		}
		parts = append(parts, items)
	}
	if f, ok := s.Fraction(); ok && !s.Ended {
		i := 0 // the bytes, or the items when the bytes' total is unknown
		if s.TotalBytes == 0 && s.Unit != "" {
			i = len(parts) - 1
		}
		parts[i] += fmt.Sprintf(" (%.0f%%)", 100*f)
	}
	var rates []string
	if s.TotalBytes > 0 || s.Bytes > 0 {
		rates = append(rates, megabytes(int64(s.BytesPerSecond()))+"/s")
	}
	if s.Unit != "" {
		rates = append(rates, count(int64(s.ItemsPerSecond()))+" "+s.Unit+"/s")
	}
	if s.Ended {
		b.WriteString(" " + strings.Join(parts, ", "))
		fmt.Fprintf(&b, " in %s", s.PhaseElapsed.Round(10*time.Millisecond))
		if len(rates) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(rates, ", "))
		}
		return b.String()
	}
	parts = append(parts, rates...)
	if eta, ok := s.ETA(); ok {
		parts = append(parts, "ETA "+eta.Round(100*time.Millisecond).String())
	} else {
		parts = append(parts, "running "+s.PhaseElapsed.Round(100*time.Millisecond).String())
	}
	b.WriteString(" " + strings.Join(parts, ", "))
	return b.String()
}

// megabytes formats n bytes in MB (10^6), as the summary line does.
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// count formats n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
