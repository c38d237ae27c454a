package wire

import (
	"cmp"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// A session holds at most one open transaction, its own: BEGIN opens
// it, RUN_GQL runs in it (with or without its transaction_id), COMMIT or
// ROLLBACK ends it, and the end of the session rolls it back. The
// transaction ids of other sessions (and of the HTTP API) are refused:
// a session cannot end or use another client's transaction.

// txnFor is the transaction a message runs in: the session's open one,
// or none. id, when given, must name it.
func (s *session) txnFor(id string) (*engine.Transaction, *wireError) {
	if s.txn != nil {
		if _, err := s.srv.db.Transaction(s.txn.ID()); err != nil {
			// It expired: say so once, rather than run the statement on
			// its own as if the transaction had never been.
			s.txn = nil
			e, _ := fromEngine(err)
			return nil, e
		}
	}
	if id == "" {
		return s.txn, nil
	}
	if s.txn == nil || s.txn.ID() != id {
		return nil, &wireError{code: engine.CodeNotFound, category: engine.CatNotFound,
			message: "no open transaction " + cut(id) + " in this session: a session uses only the transaction its BEGIN opened"}
	}
	return s.txn, nil
}

// noTransaction is COMMIT's or ROLLBACK's error in a session with no
// open transaction.
func noTransaction(what string) *wireError {
	return &wireError{code: engine.CodeTransaction, category: engine.CatTransaction,
		message: what + ": this session has no open transaction (BEGIN opens one)"}
}

// begin answers BEGIN.
func (s *session) begin(m *message) {
	if s.txn != nil {
		if _, err := s.srv.db.Transaction(s.txn.ID()); err != nil {
			s.txn = nil // it expired
		}
	}
	if txn := s.txn; txn != nil {
		s.sendError(&wireError{code: engine.CodeTransaction, category: engine.CatTransaction,
			message: "BEGIN: this session's transaction " + txn.ID() + " is still open: COMMIT or ROLLBACK it first"})
		return
	}
	if s.srv.cfg.Cluster != nil {
		ctx, cancel := s.queryContext(m.timeout)
		werr := s.clusterGate(ctx, m)
		cancel()
		if werr != nil {
			s.sendError(werr)
			return
		}
	}
	txn, err := s.srv.db.BeginTransaction(engine.TransactionOptions{Isolation: m.isolation, Timeout: m.timeout, Client: s.remoteHost(),
		Graph: cmp.Or(m.graph, s.es.Graph()), Principal: s.principal})
	if err != nil {
		s.queryError(err)
		return
	}
	s.txn = txn
	s.out = appendSuccess(s.out, successFields{txID: txn.ID()})
}

// commit answers COMMIT. The transaction ends whatever the outcome: a
// conflict (40001) or an earlier failure (40000) rolls it back.
func (s *session) commit(m *message) {
	s.endTxn(m, "COMMIT", (*engine.Transaction).Commit, true)
}

// rollback answers ROLLBACK.
func (s *session) rollback(m *message) {
	s.endTxn(m, "ROLLBACK", (*engine.Transaction).Rollback, false)
}

// endTxn ends the session's transaction with end and answers SUCCESS,
// saying committed when it was a commit, or the error.
func (s *session) endTxn(m *message, verb string, end func(*engine.Transaction) (time.Time, error), committed bool) {
	txn, werr := s.txnFor(m.txID)
	switch {
	case werr != nil:
		s.sendError(werr)
		return
	case txn == nil:
		s.sendError(noTransaction(verb))
		return
	}
	s.txn = nil
	if _, err := end(txn); err != nil {
		s.queryError(err)
		return
	}
	f := successFields{txID: txn.ID(), committed: committed}
	if committed {
		f.bookmark = s.bookmark()
	}
	s.out = appendSuccess(s.out, f)
}
