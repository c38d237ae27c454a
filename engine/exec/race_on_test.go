//go:build race

package exec

// raceBuild reports a -race build, where the largest inputs of the
// differential tests run for a share of their shapes only: the detector
// makes them twenty times slower and finds its races on small ones too.
const raceBuild = true
