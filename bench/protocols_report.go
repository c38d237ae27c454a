package bench

import (
	"fmt"
	"io"
	"strings"
)

// ProtocolsHeading opens the section `quiverbench protocols` keeps in
// bench/RESULTS.md.
const ProtocolsHeading = "## Protocols"

// WriteProtocolsSection renders the protocols section: per round and
// protocol the trivial query's round trip and the streaming rate, then
// the change stream's delivery under write load.
func WriteProtocolsSection(w io.Writer, r *ProtocolsReport, notes string) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	c := r.Config
	p("%s", ProtocolsHeading)
	p("")
	p("Written by `make bench-protocols` (`quiverbench protocols`), which replaces only this section; see bench/README.md.")
	p("")
	p("| | |")
	p("|---|---|")
	p("| Date | %s |", dateText(r.Date))
	p("| Machine | %s |", r.Machine)
	p("| Commit | %s |", c.Commit)
	p("| Timing | %d round%s, each on a new `quiver serve` (default options, `--rate-limit 0`): per protocol %d round trips after %d untimed, then one result of %s rows; %d change-stream subscribers during %v of %d-client writes |",
		c.Rounds, plural(c.Rounds), c.RoundTrips, c.Warmup, countText(c.StreamRows), c.Subscribers, c.WriteDuration, c.WriteClients)
	if c.Note != "" {
		p("| Note | %s |", c.Note)
	}
	p("")
	p("Round trip: `%s`, one client, one request at a time, over loopback; the whole answer is read. Streaming: `%s`,", TrivialQuery, StreamQuery(c.StreamRows))
	p("every row read by the client and dropped. HTTP: the streamed body through a 256 KiB buffer, undecoded. Wire: the Go")
	p("client's rows, each decoded, pulled 1000 at a time (the protocol's flow control); \"lines\": the same protocol read a")
	p("message line at a time without decoding the rows, as the HTTP body is, pulling when the server waits.")
	p("")
	p("| round | protocol | round trip p50 | p99 | max | rows streamed | time | rows/s |")
	p("|---|---|---:|---:|---:|---:|---:|---:|")
	for i, ts := range r.Timings {
		for _, t := range ts {
			p("| %d | %s | %s | %s | %s | %s | %s | %s |", i+1, t.Protocol, durText(t.RoundTrips.P50), durText(t.RoundTrips.P99),
				durText(t.RoundTrips.Max), countText(t.Rows), secText(t.Elapsed), rateText(t.RowsPerSecond()))
		}
	}
	if c.Subscribers > 0 {
		p("")
		p("Change stream: %d WebSocket subscribers to `(:W)` (`stream.Watch`, in the harness) while %d HTTP clients run", c.Subscribers, c.WriteClients)
		p("auto-commit `%s` (`quiverbench writes`' load); every commit is one CHANGE to each subscriber.", WriteStatement)
		p("Events are counted over the whole load (its second of warm-up included) until the last acknowledged")
		p("commit's changes arrived.")
		p("")
		p("| round | commits/s | change events delivered | events/s | subscribers dropped as slow | CPU: server | harness (writers and subscribers) |")
		p("|---|---:|---:|---:|---:|---:|---:|")
		for i, e := range r.Events {
			p("| %d | %s | %s | %s | %d | %s | %s |", i+1, rateText(e.Writes.Rate()), countText(e.Delivered), rateText(e.PerSecond()), e.Lagged,
				cpuText(e.Writes.ServerCPU, e.Writes.Elapsed), cpuText(e.Writes.ClientCPU, e.Writes.Elapsed))
		}
	}
	if notes = strings.TrimSpace(notes); notes != "" {
		p("")
		p("%s", notes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
