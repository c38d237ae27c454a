//go:build !race

package engine_test

// raceBuild: see race_on_test.go.
const raceBuild = false
