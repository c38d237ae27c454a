package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/storage"
)

// IsolationLevel is how much of other transactions' concurrent work a
// transaction may observe (docs/transactions.md has the anomaly table).
type IsolationLevel uint8

const (
	// ReadCommitted reads a fresh snapshot at each statement.
	ReadCommitted IsolationLevel = iota + 1
	// RepeatableRead reads one snapshot for the whole transaction
	// (snapshot isolation): first committer wins on write–write
	// conflicts.
	RepeatableRead
	// Serializable is RepeatableRead that also validates its reads at
	// commit: a concurrent commit that wrote what it read fails it.
	Serializable
)

func (l IsolationLevel) String() string {
	switch l {
	case ReadCommitted:
		return "READ_COMMITTED"
	case RepeatableRead:
		return "REPEATABLE_READ"
	case Serializable:
		return "SERIALIZABLE"
	}
	return fmt.Sprintf("IsolationLevel(%d)", uint8(l))
}

// IsolationLevels lists the levels by their names.
func IsolationLevels() []string {
	return []string{ReadCommitted.String(), RepeatableRead.String(), Serializable.String()}
}

// ParseIsolationLevel reads a level's name (case-insensitive, spaces or
// underscores); "" is the default, READ_COMMITTED.
func ParseIsolationLevel(s string) (IsolationLevel, error) {
	n := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", "_"))
	switch n {
	case "", "READ_COMMITTED":
		return ReadCommitted, nil
	case "REPEATABLE_READ", "SNAPSHOT":
		return RepeatableRead, nil
	case "SERIALIZABLE":
		return Serializable, nil
	}
	return 0, errs.DataCode(errs.CodeInvalidParam, "unknown isolation level %q: use %s", s, strings.Join(IsolationLevels(), ", "))
}

// Transaction limits (docs/transactions.md).
const (
	// DefaultTransactionTimeout is a transaction's lifetime when begin
	// names none.
	DefaultTransactionTimeout = 5 * time.Minute
	// MaxTransactionTimeout is the longest lifetime begin may ask for: an
	// open transaction pins the conflict history of every commit after
	// its snapshot.
	MaxTransactionTimeout = time.Hour
	// DefaultMaxTransactions bounds the open transactions of a server.
	DefaultMaxTransactions = 1000
	// DefaultMaxTransactionsPerClient bounds one client's open ones.
	DefaultMaxTransactionsPerClient = 100
)

// TransactionOptions configure BeginTransaction.
type TransactionOptions struct {
	Isolation IsolationLevel // zero: ReadCommitted
	// Timeout is the transaction's lifetime from begin: past it, it is
	// rolled back. Zero: DefaultTransactionTimeout.
	Timeout time.Duration
	// Client names who opens it, for the per-client limit ("" is one
	// anonymous client).
	Client string
	// Graph is the graph it runs on ("" or "default": the default
	// graph), as Principal may see it (an unknown or hidden graph is a
	// 42S02 error). Every statement in it runs on that graph.
	Graph     string
	Principal *Principal
	// Owner is the authenticated user who opens it ("" without
	// authentication). The engine only keeps it: a frontend compares it
	// with the user of each later request naming the transaction, so that
	// one user cannot run statements in, commit or roll back another's.
	Owner string
}

type txState uint8

const (
	txOpen txState = iota
	txFailed
	txCommitted
	txRolledBack
	txExpired
)

// Transaction is an explicit multi-statement transaction. Statements run
// one at a time; each sees the transaction's earlier writes, which others
// see only once it commits. It is optimistic: it takes no lock while
// open, and its commit fails with 40001 when a transaction that
// committed after its snapshot wrote what it wrote (or, SERIALIZABLE,
// what it read).
//
// A statement that fails leaves the transaction failed, as PostgreSQL
// does: later statements are refused until ROLLBACK TO SAVEPOINT returns
// to a point before the failure, and COMMIT rolls it back and says so. A
// statement refused for lack of privilege (42501, engine/access) is such a
// failure: it wrote nothing, but the transaction is aborted all the same.
type Transaction struct {
	db      *DB
	id      string
	level   IsolationLevel
	client  string
	owner   string
	expires time.Time
	sess    *Session
	timer   *time.Timer

	// mu is held by the statement running in the transaction until its
	// Result is finished, and by commit and rollback.
	mu         sync.Mutex
	tx         *storage.Tx
	state      txState
	cause      error // why it failed
	savepoints []savepoint
	// running.stop cancels the running statement (expiry uses it).
	running struct {
		sync.Mutex
		stop func(error)
	}
	// expiring is set once the lifetime ended: a statement arriving while
	// the expiry holds mu is told the transaction expired, not that
	// another statement runs.
	expiring atomic.Bool
}

type savepoint struct {
	name string
	pos  int
}

// ID is the transaction's identifier.
func (t *Transaction) ID() string { return t.id }

// ExpiresAt is when the transaction is rolled back if still open.
func (t *Transaction) ExpiresAt() time.Time { return t.expires }

// Isolation is the transaction's isolation level.
func (t *Transaction) Isolation() IsolationLevel { return t.level }

// Owner is the user who opened the transaction (TransactionOptions.Owner).
func (t *Transaction) Owner() string { return t.owner }

// BeginTransaction opens a transaction.
func (db *DB) BeginTransaction(o TransactionOptions) (*Transaction, error) {
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	if o.Graph != "" {
		ctx := context.Background()
		if o.Principal != nil {
			ctx = access.WithPrincipal(ctx, o.Principal)
		}
		g, _, err := db.Graph(ctx, o.Graph)
		if err != nil {
			return nil, err
		}
		o.Graph = ""
		if g != db {
			return g.BeginTransaction(o)
		}
	}
	if o.Isolation == 0 {
		o.Isolation = ReadCommitted
	}
	if o.Isolation > Serializable {
		return nil, errs.DataCode(errs.CodeInvalidParam, "unknown isolation level %d", o.Isolation)
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = DefaultTransactionTimeout
	case o.Timeout < 0 || o.Timeout > MaxTransactionTimeout:
		return nil, errs.DataCode(errs.CodeInvalidParam, "transaction timeout %d ms is out of range: 1 to %d ms",
			o.Timeout.Milliseconds(), MaxTransactionTimeout.Milliseconds())
	}
	t := &Transaction{db: db, id: newTransactionID(), level: o.Isolation, client: o.Client, owner: o.Owner,
		expires: time.Now().Add(o.Timeout).UTC(), sess: db.NewSession()}
	if err := db.txns.add(t, db.opts); err != nil {
		return nil, err
	}
	t.tx = db.store.BeginOptimistic(o.Isolation == Serializable)
	// Set under t.mu: a short timeout's expiry (which takes t.mu) may run
	// before AfterFunc returns, and reads t.timer.
	t.mu.Lock()
	t.timer = time.AfterFunc(o.Timeout, func() { t.expire(true) })
	t.mu.Unlock()
	return t, nil
}

// Transaction finds an open transaction by id. An unknown id, and one
// that committed, rolled back or expired, is a 02000 (not found) error
// that says which.
func (db *DB) Transaction(id string) (*Transaction, error) { return db.txns.get(id) }

// TransactionOf returns the open transaction id if owner began it
// (TransactionOptions.Owner). A transaction another owner began, open or
// ended, is answered exactly as an id that never existed, so that no
// caller learns anything of another's transactions.
func (db *DB) TransactionOf(id, owner string) (*Transaction, error) {
	return db.txns.getOwned(id, owner)
}

// OpenTransactions is the number of open transactions.
func (db *DB) OpenTransactions() int { return db.txns.count() }

// Query runs one statement in the transaction (see DB.Query): reads
// stream through the Result, and the transaction runs nothing else until
// the Result is finished (read to its end or closed).
func (t *Transaction) Query(ctx context.Context, text string, params Params) (*Result, error) {
	return t.Run(ctx, ModeAsWritten, text, params)
}

// Run runs one statement in the transaction in the given mode.
func (t *Transaction) Run(ctx context.Context, m Mode, text string, params Params) (*Result, error) {
	if !t.mu.TryLock() {
		if t.expiring.Load() {
			return nil, t.db.refused(notOpen(t.id, "it expired and was rolled back"))
		}
		return nil, t.db.refused(errs.New(errs.CodeTransaction, errs.CatTransaction,
			"transaction %s is running another statement: its statements run one at a time", t.id))
	}
	if err := t.usable(); err != nil && !(t.state == txFailed && isRollbackTo(text)) {
		t.mu.Unlock()
		return nil, t.db.refused(err)
	}
	if t.level == ReadCommitted {
		if err := t.tx.Refresh(); err != nil {
			t.failLocked(err)
			t.mu.Unlock()
			return nil, t.db.refused(err)
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t.setStop(cancel)
	res, err := t.sess.run(ctx, text, params, m, t)
	if err != nil {
		cancel(nil)
		t.setStop(nil)
		if t.state == txOpen {
			t.failLocked(err)
		}
		t.mu.Unlock()
		return nil, err
	}
	release := func(err error) {
		cancel(nil)
		t.setStop(nil)
		if err != nil && t.state == txOpen {
			t.failLocked(err)
		}
		t.mu.Unlock()
	}
	if res.done {
		release(nil) // finished already (no rows)
	} else {
		res.release = release
	}
	return res, nil
}

// isRollbackTo reports whether text is a ROLLBACK TO SAVEPOINT statement,
// the one statement a failed transaction runs.
func isRollbackTo(text string) bool {
	st, err := gql.Parse(text)
	return err == nil && st.Session != nil && st.Session.Kind == gql.SessionRollbackTo
}

// usable is nil when the transaction can run a statement (t.mu held).
func (t *Transaction) usable() error {
	switch t.state {
	case txOpen:
		return nil
	case txFailed:
		return errs.New(errs.CodeTransaction, errs.CatTransaction,
			"transaction %s is aborted: an earlier statement failed (%v); roll it back, or roll back to a savepoint", t.id, t.cause)
	}
	return t.db.txns.endedError(t.id, "", false)
}

func (t *Transaction) failLocked(err error) {
	t.state, t.cause = txFailed, err
}

// Commit commits the transaction's writes and ends it. A failed
// transaction is rolled back instead, with a 40000 error saying so; a
// conflict is a 40001 error, and the transaction is rolled back.
func (t *Transaction) Commit() (time.Time, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.state {
	case txOpen:
	case txFailed:
		t.endLocked(txRolledBack, TxFailed)
		return time.Time{}, errs.New(errs.CodeTransaction, errs.CatTransaction,
			"transaction %s was rolled back, not committed: a statement in it failed (%v)", t.id, t.cause)
	default:
		return time.Time{}, t.db.txns.endedError(t.id, "", false)
	}
	_, err := t.commitLocked()
	if err != nil {
		t.endLocked(txRolledBack, TxFailed)
		return time.Time{}, err
	}
	t.endLocked(txCommitted, TxCommitted)
	return time.Now().UTC(), nil
}

// commitLocked commits the storage transaction, turning a panic into an
// internal error (the caller then ends the transaction rolled back): a
// panic would leave it open, holding its slot, until it expired.
func (t *Transaction) commitLocked() (ts uint64, err error) {
	defer func() {
		if p := recover(); p != nil {
			t.db.log.Error("transaction commit panicked", "transaction_id", t.id, "panic", p, "stack", string(debug.Stack()))
			ts, err = 0, errs.Internal("internal error while committing the transaction")
		}
	}()
	if testHookCommit != nil {
		testHookCommit()
	}
	return t.tx.Commit()
}

// testHookCommit, when set by a test, runs as a transaction commits.
var testHookCommit func()

// Rollback discards the transaction's writes and ends it.
func (t *Transaction) Rollback() (time.Time, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != txOpen && t.state != txFailed {
		return time.Time{}, t.db.txns.endedError(t.id, "", false)
	}
	t.endLocked(txRolledBack, TxRolledBack)
	return time.Now().UTC(), nil
}

// RollbackTo undoes the writes made after savepoint name (which stays,
// as in SQL) and makes a failed transaction usable again.
func (t *Transaction) RollbackTo(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rollbackToLocked(name)
}

func (t *Transaction) rollbackToLocked(name string) error {
	if t.state != txOpen && t.state != txFailed {
		return t.db.txns.endedError(t.id, "", false)
	}
	i := t.findSavepoint(name)
	if i < 0 {
		return t.noSavepoint(name)
	}
	if err := t.tx.RollbackTo(t.savepoints[i].pos); err != nil {
		return err
	}
	t.savepoints = t.savepoints[:i+1]
	t.state, t.cause = txOpen, nil
	return nil
}

func (t *Transaction) findSavepoint(name string) int {
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if t.savepoints[i].name == name {
			return i
		}
	}
	return -1
}

func (t *Transaction) noSavepoint(name string) error {
	return errs.New(errs.CodeNoObject, errs.CatNoObject, "transaction %s has no savepoint named %s", t.id, name)
}

// savepointStatement runs SAVEPOINT, ROLLBACK TO SAVEPOINT or RELEASE
// SAVEPOINT (t.mu held by the running statement).
func (t *Transaction) savepointStatement(s *gql.Session) error {
	switch s.Kind {
	case gql.SessionSavepoint:
		t.savepoints = append(t.savepoints, savepoint{name: s.Name, pos: t.tx.Savepoint()})
	case gql.SessionRollbackTo:
		return t.rollbackToLocked(s.Name)
	case gql.SessionRelease:
		i := t.findSavepoint(s.Name)
		if i < 0 {
			return t.noSavepoint(s.Name)
		}
		t.savepoints = t.savepoints[:i]
	}
	return nil
}

// endLocked ends the transaction in state st, reporting outcome to the
// Observer.
func (t *Transaction) endLocked(st txState, outcome TransactionOutcome) {
	if t.state != txCommitted && st != txCommitted {
		t.tx.Rollback()
	}
	t.state = st
	t.timer.Stop()
	t.db.txns.remove(t, st)
	t.db.observeTransaction(outcome)
}

// expire rolls the transaction back when its lifetime ends: a statement
// running in it is cancelled first, and its Result is waited for when
// wait is set (at Close it is not: a Result nobody reads would hold it).
func (t *Transaction) expire(wait bool) {
	t.expiring.Store(true)
	if stop := t.stopFunc(); stop != nil {
		stop(errs.Timeout("transaction %s expired at %s", t.id, t.expires.Format(time.RFC3339)))
	}
	if !wait {
		if !t.mu.TryLock() {
			return
		}
	} else {
		t.mu.Lock()
	}
	defer t.mu.Unlock()
	if t.state == txOpen || t.state == txFailed {
		t.endLocked(txExpired, TxFailed)
		t.db.log.Info("rolled back an expired transaction", "transaction_id", t.id)
	}
}

// stopFunc reads the running statement's cancel without t.mu (held by
// the statement itself).
func (t *Transaction) stopFunc() func(error) {
	t.running.Lock()
	defer t.running.Unlock()
	return t.running.stop
}

func (t *Transaction) setStop(f func(error)) {
	t.running.Lock()
	t.running.stop = f
	t.running.Unlock()
}

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

// rollbackOf rolls back every open transaction on db (at its Close).
func (r *txRegistry) rollbackOf(db *DB) {
	r.mu.Lock()
	open := make([]*Transaction, 0, len(r.open))
	for _, t := range r.open {
		if t.db == db {
			open = append(open, t)
		}
	}
	r.mu.Unlock()
	for _, t := range open {
		t.expire(false)
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
