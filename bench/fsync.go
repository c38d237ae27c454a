package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// FsyncResult is the disk's rate of small appends each followed by
// fdatasync: the ceiling of a writer that syncs every commit alone.
type FsyncResult struct {
	Syncs   int
	Elapsed time.Duration
	Latency LatencySummary
}

// Rate is fdatasyncs per second.
func (f FsyncResult) Rate() float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.Syncs) / f.Elapsed.Seconds()
}

// MeasureFdatasync appends 128 bytes to a file in dir and fdatasyncs it,
// over and over for d, as a log writer with one committer does.
func MeasureFdatasync(dir string, d time.Duration) (FsyncResult, error) {
	path := filepath.Join(dir, "fdatasync-probe")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o644)
	if err != nil {
		return FsyncResult{}, err
	}
	defer os.Remove(path)
	defer f.Close()
	rec := make([]byte, 128)
	var lat []time.Duration
	start := time.Now()
	for time.Since(start) < d {
		t := time.Now()
		if _, err := f.Write(rec); err != nil {
			return FsyncResult{}, err
		}
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return FsyncResult{}, fmt.Errorf("fdatasync: %w", err)
		}
		lat = append(lat, time.Since(t))
	}
	return FsyncResult{Syncs: len(lat), Elapsed: time.Since(start), Latency: Summarize(lat)}, nil
}
