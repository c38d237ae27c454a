package changes

import (
	"fmt"
	"strconv"

	"github.com/quiverdb/quiver/engine/errs"
)

// Positions place a change in the total order of the committed changes:
// the commit's timestamp (one more per commit, kept across restarts and
// the same on every member of a cluster, since followers apply the same
// commit records) and the change's ordinal among its commit's changes.
// Users see a position as an opaque token of fixed width whose byte order
// is the position order.

// Position is a change's place: commit timestamp and ordinal.
type Position struct {
	TS      uint64
	Ordinal uint32
}

// lastOrdinal marks the end of a commit: the position after every change
// of commit TS (cdc.current, cdc.earliest).
const lastOrdinal = 0xffff

// EndOf is the position after every change of the commit at ts.
func EndOf(ts uint64) Position { return Position{TS: ts, Ordinal: lastOrdinal} }

// Less orders positions.
func (p Position) Less(q Position) bool {
	return p.TS < q.TS || p.TS == q.TS && p.Ordinal < q.Ordinal
}

// positionLen is a token's length: 16 hex digits of timestamp, 4 of
// ordinal.
const positionLen = 20

// String is the position's token.
func (p Position) String() string { return fmt.Sprintf("%016x%04x", p.TS, p.Ordinal) }

// ParsePosition reads a token String wrote. A malformed token is 22023.
func ParsePosition(tok string) (Position, error) {
	bad := func() (Position, error) {
		return Position{}, errs.DataCode(errs.CodeInvalidParam,
			"%q is not a change position: pass a position that cdc.current(), cdc.earliest() or cdc.changes() returned", clipToken(tok))
	}
	if len(tok) != positionLen {
		return bad()
	}
	ts, err := strconv.ParseUint(tok[:16], 16, 64)
	if err != nil {
		return bad()
	}
	o, err := strconv.ParseUint(tok[16:], 16, 16)
	if err != nil || tok[0] == '+' || tok[16] == '+' {
		return bad()
	}
	return Position{TS: ts, Ordinal: uint32(o)}, nil
}

func clipToken(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
