//go:build linux

package http

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerClosed reports whether the peer of c closed the connection (or it
// failed), without reading from it: poll(2) for POLLRDHUP, POLLHUP or
// POLLERR with a zero timeout. Data the client sent after its request (a
// pipelined request) is not consumed and not mistaken for a close.
func peerClosed(c net.Conn) bool {
	for {
		switch x := c.(type) {
		case *countedConn:
			c = x.Conn
			continue
		case syscall.Conn:
			rc, err := x.SyscallConn()
			if err != nil {
				return false
			}
			closed := false
			_ = rc.Control(func(fd uintptr) {
				fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
				if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
					closed = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
				}
			})
			return closed
		}
		return false
	}
}

// canWatchPeer reports whether peerClosed can tell on this system.
const canWatchPeer = true
