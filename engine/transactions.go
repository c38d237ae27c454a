package engine

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/quiverdb/quiver/engine/errs"
)

// txRegistry holds a database's open transactions by id, enforces the
// open-transaction limits, and remembers how recently ended ones ended,
// so a late call on one says what became of it.
type txRegistry struct {
	mu       sync.Mutex
	open     map[string]*Transaction
	byClient map[string]int
	// ended remembers the last endedKept ended transactions (ring).
	ended     map[string]endedTxn
	endedRing []string
	endedNext int
}

const endedKept = 4096

func newTransactionID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("engine: no randomness for a transaction id: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

func (r *txRegistry) add(t *Transaction, o Options) error {
	maxAll, maxClient := o.MaxTransactions, o.MaxTransactionsPerClient
	if maxAll == 0 {
		maxAll = DefaultMaxTransactions
	}
	if maxClient == 0 {
		maxClient = DefaultMaxTransactionsPerClient
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) >= maxAll {
		return errs.New(errs.CodeTooMany, errs.CatResource,
			"too many open transactions (%d, the server's limit): retry once some have ended", maxAll)
	}
	if r.byClient[t.client] >= maxClient {
		return errs.New(errs.CodeTooMany, errs.CatResource,
			"too many open transactions for this client (%d, the limit per client): commit or roll back some first", maxClient)
	}
	if r.open == nil {
		r.open, r.byClient, r.ended = map[string]*Transaction{}, map[string]int{}, map[string]endedTxn{}
	}
	r.open[t.id] = t
	r.byClient[t.client]++
	return nil
}

// endedTxn is what the registry remembers of an ended transaction.
type endedTxn struct {
	state txState
	owner string
}

func (r *txRegistry) get(id string) (*Transaction, error) {
	r.mu.Lock()
	t := r.open[id]
	r.mu.Unlock()
	if t == nil {
		return nil, r.endedError(id, "", false)
	}
	return t, nil
}

// getOwned is get for owner: another owner's transaction, open or
// ended, is answered as one that never existed.
func (r *txRegistry) getOwned(id, owner string) (*Transaction, error) {
	r.mu.Lock()
	t := r.open[id]
	r.mu.Unlock()
	if t == nil {
		return nil, r.endedError(id, owner, true)
	}
	if t.owner != owner {
		return nil, notOpen(id, unknownTxn)
	}
	return t, nil
}

func (r *txRegistry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.open)
}

// remove moves t from the open transactions to the ended ones.
func (r *txRegistry) remove(t *Transaction, st txState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open[t.id] != t {
		return
	}
	delete(r.open, t.id)
	if r.byClient[t.client]--; r.byClient[t.client] <= 0 {
		delete(r.byClient, t.client)
	}
	if len(r.endedRing) < endedKept {
		r.endedRing = append(r.endedRing, t.id)
	} else {
		delete(r.ended, r.endedRing[r.endedNext])
		r.endedRing[r.endedNext] = t.id
		r.endedNext = (r.endedNext + 1) % endedKept
	}
	r.ended[t.id] = endedTxn{state: st, owner: t.owner}
}

// endedError is the 02000 error for a call on a transaction that is not
// open, saying what became of it when that is known (to its owner, when
// checkOwner is set).
func (r *txRegistry) endedError(id, owner string, checkOwner bool) error {
	r.mu.Lock()
	e, known := r.ended[id]
	r.mu.Unlock()
	if !known || (checkOwner && e.owner != owner) {
		return notOpen(id, unknownTxn)
	}
	switch e.state {
	case txCommitted:
		return notOpen(id, "it was committed")
	case txRolledBack:
		return notOpen(id, "it was rolled back")
	case txExpired:
		return notOpen(id, "it expired and was rolled back")
	}
	return notOpen(id, unknownTxn)
}

// unknownTxn is what notOpen says of an id nobody may learn more about.
const unknownTxn = "no such transaction (it never existed, or ended long ago)"

func notOpen(id, what string) error {
	return errs.New(errs.CodeNotFound, errs.CatNotFound, "transaction %s is not open: %s", id, what)
}

// rollbackAll rolls back every open transaction (at Close).
func (r *txRegistry) rollbackAll() {
	r.mu.Lock()
	open := make([]*Transaction, 0, len(r.open))
	for _, t := range r.open {
		open = append(open, t)
	}
	r.mu.Unlock()
	for _, t := range open {
		t.expire(false)
	}
}
