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
	ended     map[string]txState
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
		r.open, r.byClient, r.ended = map[string]*Transaction{}, map[string]int{}, map[string]txState{}
	}
	r.open[t.id] = t
	r.byClient[t.client]++
	return nil
}

func (r *txRegistry) get(id string) (*Transaction, error) {
	r.mu.Lock()
	t := r.open[id]
	r.mu.Unlock()
	if t == nil {
		return nil, r.endedError(id)
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
	r.ended[t.id] = st
}

// endedError is the 02000 error for a call on a transaction that is not
// open, saying what became of it when that is known.
func (r *txRegistry) endedError(id string) error {
	r.mu.Lock()
	st, known := r.ended[id]
	r.mu.Unlock()
	what := "no such transaction (it never existed, or ended long ago)"
	if known {
		switch st {
		case txCommitted:
			what = "it was committed"
		case txRolledBack:
			what = "it was rolled back"
		case txExpired:
			what = "it expired and was rolled back"
		}
	}
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
