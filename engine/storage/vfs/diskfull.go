package vfs

import (
	"errors"
	"syscall"
)

// IsDiskFull reports whether err is a write or sync that failed because
// the filesystem has no space left for it: ENOSPC, or EDQUOT (the
// owner's quota, which is a full disk as far as the server can tell).
func IsDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
