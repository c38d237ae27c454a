package engine

import "time"

// Observer is told of every statement and every transaction that ends,
// on any protocol: a metrics registry implements it (frontend/metrics).
// It is called synchronously, from the goroutine that ends the statement
// or transaction, and concurrently: it must be safe for concurrent use
// and cheap (a few atomic adds), as it runs on every statement's path.
//
// What counts (docs/operations.md, "Metrics", states the same for users):
//
//   - A statement ends once: when its Result finishes (its rows read to
//     the end, closed early, or failed while streaming), or when Run
//     returns an error (it never produced a Result). A statement an
//     explicit transaction refuses (it is busy, aborted or over) is a
//     failed statement too. Requests a frontend refuses before asking
//     the engine (malformed JSON, an unknown transaction id) are not
//     statements.
//   - A transaction ends once: each explicit transaction when it commits,
//     rolls back, fails to commit or expires; and each statement run
//     outside an explicit transaction, which is a transaction of its own
//     (auto-commit) — SET, SHOW, EXPLAIN and schema statements included.
type Observer interface {
	// StatementEnded reports a statement's wall time, from the call that
	// ran it to its end, and the error that ended it (nil: it succeeded,
	// or its Result was closed before its last row).
	StatementEnded(d time.Duration, err error)
	// TransactionEnded reports how a transaction ended.
	TransactionEnded(o TransactionOutcome)
}

// TransactionOutcome is how a transaction ended.
type TransactionOutcome uint8

const (
	// TxCommitted: its writes (if any) are committed. An auto-commit
	// statement that succeeded, a read included; and one whose write
	// committed before its returned rows failed to stream.
	TxCommitted TransactionOutcome = iota + 1
	// TxRolledBack: the client asked for a rollback. Not a failure, even
	// of a transaction in which a statement had failed.
	TxRolledBack
	// TxFailed: it ended without committing because of an error: an
	// auto-commit statement that failed, a commit that failed (a 40001
	// conflict, a write error), a COMMIT of a transaction in which a
	// statement had failed, or expiry (its timeout, or the database
	// closing while it was open).
	TxFailed
)

func (o TransactionOutcome) String() string {
	switch o {
	case TxCommitted:
		return "committed"
	case TxRolledBack:
		return "rolled back"
	case TxFailed:
		return "failed"
	}
	return "unknown"
}

// observedAs says whether a Result reports its statement's end to the
// Observer, and whether the statement was its own transaction.
type observedAs uint8

const (
	notObserved observedAs = iota
	observedInTransaction
	observedAutoCommit
)

// observeRun reports a statement that Session.run ended: at once when it
// failed or its Result is finished already, otherwise when the Result
// finishes (Result.finishWith). auto is set for a statement outside an
// explicit transaction.
func (db *DB) observeRun(start time.Time, auto bool, res *Result, err error) {
	if err != nil || res == nil {
		db.opts.Observer.StatementEnded(time.Since(start), err)
		if auto {
			db.opts.Observer.TransactionEnded(TxFailed)
		}
		return
	}
	res.observed = observedInTransaction
	if auto {
		res.observed = observedAutoCommit
	}
	if res.done {
		db.observeResult(res, nil)
	}
}

// observeResult reports the end of an observed Result's statement, with
// the error that ended it.
func (db *DB) observeResult(r *Result, err error) {
	o := db.opts.Observer
	if o == nil || r.observed == notObserved {
		return
	}
	auto := r.observed == observedAutoCommit
	r.observed = notObserved // once
	o.StatementEnded(r.summary.ExecutionTime, err)
	if !auto {
		return
	}
	// A write's Result comes back only once it committed: rows that fail
	// to stream after that leave the commit in place.
	if err == nil || r.summary.Write {
		o.TransactionEnded(TxCommitted)
	} else {
		o.TransactionEnded(TxFailed)
	}
}

// refused reports a statement an explicit transaction would not run and
// returns its error.
func (db *DB) refused(err error) error {
	if o := db.opts.Observer; o != nil {
		o.StatementEnded(0, err)
	}
	return err
}

// observeTransaction reports an explicit transaction's end.
func (db *DB) observeTransaction(outcome TransactionOutcome) {
	if o := db.opts.Observer; o != nil {
		o.TransactionEnded(outcome)
	}
}
