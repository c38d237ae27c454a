package changes

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/settings"
)

// Retention bounds what the change log keeps; zero fields do not bound.
// A Retention with both zero means the log is off.
type Retention struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// On reports whether changes are kept at all.
func (r Retention) On() bool { return r.MaxAge > 0 || r.MaxBytes > 0 }

// ParseRetention reads a retention as --cdc-retention writes it: a
// duration (24h, 90m, 7d), a size (512MB, 10GB), or both separated by a
// comma; "off" or "" is no change log.
func ParseRetention(s string) (Retention, error) {
	var r Retention
	s = strings.TrimSpace(s)
	if s == "" || s == "off" || s == "0" {
		return r, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if n, ok := parseBytes(part); ok {
			if r.MaxBytes != 0 {
				return r, fmt.Errorf("change retention %q names two sizes", s)
			}
			r.MaxBytes = n
			continue
		}
		d, err := parseDays(part)
		if err != nil || d <= 0 {
			return r, fmt.Errorf("change retention %q: %q is neither a positive duration (24h, 7d) nor a size (512MB, 10GB)", s, part)
		}
		if r.MaxAge != 0 {
			return r, fmt.Errorf("change retention %q names two durations", s)
		}
		r.MaxAge = d
	}
	return r, nil
}

func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseFloat(n, 64)
		return time.Duration(v * float64(24*time.Hour)), err
	}
	return time.ParseDuration(s)
}

// parseBytes reads a size as the server's other flags do
// (settings.ParseSize: B, kB, MB, GB, TB, binary multiples).
func parseBytes(s string) (int64, bool) {
	n, err := settings.ParseSize(s)
	return n, err == nil && n > 0
}
