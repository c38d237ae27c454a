//go:build race

package vectorindex

// raceEnabled shrinks the heaviest tests under the race detector,
// which runs inserts about ten times slower.
const raceEnabled = true
