package serverproc

import (
	"os"
	"strconv"
	"strings"
)

// findListening returns the address of the first "listening" line in
// the files, or "" when none has it yet. Only whole lines count: the
// last one may still be being written.
func findListening(paths ...string) string {
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(raw)) {
			whole, ok := strings.CutSuffix(line, "\n")
			if !ok {
				break
			}
			if addr, ok := ParseListening(whole); ok {
				return addr
			}
		}
	}
	return ""
}

// ParseListening recognises the server's "listening" log line
// (cmd/quiver/serve.go) and returns the address in it.
func ParseListening(line string) (string, bool) {
	if SlogField(line, "msg") != "listening" {
		return "", false
	}
	addr := SlogField(line, "addr")
	return addr, addr != ""
}

// SlogField returns the value of key in a line of log/slog's text format
// (key=value pairs separated by spaces, values with spaces or quotes
// quoted as Go strings); "" when absent or malformed. It is bench's
// parser: test support may import the standard library only.
func SlogField(line, key string) string {
	for rest := line; rest != ""; {
		rest = strings.TrimLeft(rest, " ")
		k, after, ok := strings.Cut(rest, "=")
		if !ok || strings.ContainsRune(k, ' ') {
			return ""
		}
		var v string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return ""
			}
			rest = after[len(q):]
			if v, err = strconv.Unquote(q); err != nil {
				return ""
			}
		} else {
			v, rest, _ = strings.Cut(after, " ")
		}
		if k == key {
			return v
		}
	}
	return ""
}

// tail is the last n lines of a file, or why it cannot be read.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
