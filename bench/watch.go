package bench

import "time"

// stopwatch measures wall-clock milliseconds.
type stopwatch struct{ t time.Time }

func startWatch() stopwatch { return stopwatch{time.Now()} }

func (s stopwatch) ms() float64 { return float64(time.Since(s.t).Nanoseconds()) / 1e6 }
