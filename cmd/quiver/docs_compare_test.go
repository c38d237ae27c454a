package main

import (
	"regexp"
	"strings"
)

// How TestDocsExamples compares the output an example shows with the
// output it printed. Both go through the same normalisation, so what
// legitimately varies between runs compares equal:
//
//   - the values of the keys in varyingKeys (times, random ids, counters
//     of the machine) in JSON and in log lines (key=value);
//   - log lines' time= field, durations in a summary ("in 0.02 s"), the
//     HTTP headers Date, Retry-After and X-RateLimit-Reset, the span id
//     of a traceparent header;
//   - white space outside double-quoted strings, so that a document may
//     wrap JSON over several lines;
//
// and in the printed output only, the server's ports are written as the
// documents write them (3141, 9090) and the binary's version as
// <version>. Then "…" in the shown output stands for any text (an
// elision), and the rest must be equal.

// varyingKeys are the fields whose values differ from run to run.
var varyingKeys = []string{
	// times
	"execution_time_ms", "time_ms", "total_time_ms", "uptime_seconds",
	"committed_at", "rolled_back_at", "expires_at", "duration",
	// random or machine-bound identities
	"session_id", "transaction_id", "node_id", "fingerprint", "quic_fingerprint", "span_id",
	"Fingerprint", // openssl x509 -fingerprint
	// figures of the machine and the moment
	"queries_per_second", "total_bytes", "used_bytes", "free_bytes", "max_memory", "gomemlimit",
	"retry_after", "active_connections",
}

var (
	jsonVarying = regexp.MustCompile(`"(` + strings.Join(varyingKeys, "|") + `)":\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)`)
	logVarying  = regexp.MustCompile(`\b(` + strings.Join(varyingKeys, "|") + `)=("(?:[^"\\]|\\.)*"|\S+)`)
	logTime     = regexp.MustCompile(`(?m)^time=\S+ `)
	seconds     = regexp.MustCompile(`\bin [0-9]+(\.[0-9]+)? s\b`)
	// HTTP headers whose values are times, and a traceparent's span id.
	headerVarying = regexp.MustCompile(`(?mi)^(date|x-ratelimit-reset|retry-after):.*$`)
	traceSpan     = regexp.MustCompile(`(?m)^(traceparent: 00-[0-9a-f]{32})-[0-9a-f]{16}-`)
)

// normaliseDocOutput is the normalisation both sides of a comparison get.
func normaliseDocOutput(s string) string {
	s = logTime.ReplaceAllString(s, "")
	s = jsonVarying.ReplaceAllString(s, `"$1":#`)
	s = logVarying.ReplaceAllString(s, `$1=#`)
	s = seconds.ReplaceAllString(s, "in # s")
	s = headerVarying.ReplaceAllString(s, "$1: #")
	s = traceSpan.ReplaceAllString(s, "$1-#-")
	return stripSpace(s)
}

// stripSpace removes white space outside double-quoted strings.
func stripSpace(s string) string {
	var b strings.Builder
	in, esc := false, false
	for _, r := range s {
		switch {
		case in && esc:
			esc = false
		case in && r == '\\':
			esc = true
		case r == '"':
			in = !in
		case !in && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// docOutputMatches reports whether got (printed, normalised) is what want
// (shown, normalised) says, "…" standing for any text.
func docOutputMatches(want, got string) bool {
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*?") + `\z`).MatchString(got)
}
