//go:build !race

package http

// raceBuild reports a -race build.
const raceBuild = false
