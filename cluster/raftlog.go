package cluster

import (
	"io"
	"os"

	"github.com/hashicorp/go-hclog"
)

// newRaftLogger is raft's logger (hclog, raft's own logging interface):
// warnings and errors only, to w (nil: standard error). Raft logs every
// election and heartbeat failure at info level and below.
func newRaftLogger(w io.Writer) hclog.Logger {
	if w == nil {
		w = os.Stderr
	}
	return hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: w})
}
