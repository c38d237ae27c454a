//go:build race

package engine_test

// raceBuild reports a -race build: the metamorphic tests then keep the
// configurations that run goroutines (what the race detector is for) and
// drop the one-rule-off ones, which check plan equivalence and run the
// same code ten times slower under the detector.
const raceBuild = true
