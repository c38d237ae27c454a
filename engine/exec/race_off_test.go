//go:build !race

package exec

// raceBuild: see race_on_test.go.
const raceBuild = false
