//go:build race

package http

// raceBuild reports a -race build, under which the detector's shadow
// memory inflates heap figures and slows everything down.
const raceBuild = true
