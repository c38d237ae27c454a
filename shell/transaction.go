package shell

import (
	"context"
	"errors"
)

// serverTx is an open transaction of either protocol.
type serverTx interface {
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// endTx commits (or rolls back) the transaction *tx holds, which is over
// either way: *tx is cleared first. fail reports a failure as the
// connection's (a lost connection is closed).
func endTx[T serverTx](ctx context.Context, tx *T, commit bool, fail func(error) error) error {
	var none T // a nil pointer: T is the client's *WireTx or *HTTPTx
	if any(*tx) == any(none) {
		return errors.New("no transaction is open (:begin opens one)")
	}
	t := *tx
	*tx = none
	end := t.Rollback
	if commit {
		end = t.Commit
	}
	if err := end(ctx); err != nil {
		return fail(err)
	}
	return nil
}
