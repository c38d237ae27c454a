//go:build !linux

package http

import "net"

// peerClosed cannot tell without reading on this system: a client that
// went away is noticed when the response is written to it.
func peerClosed(net.Conn) bool { return false }

// canWatchPeer reports whether peerClosed can tell on this system.
const canWatchPeer = false
