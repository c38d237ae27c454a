package engine

import (
	"fmt"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
)

// codeInvalidTxState is ISO/IEC 39075's "invalid transaction state" (and
// SQL's): CALL { … } IN TRANSACTIONS inside an explicit transaction, as
// Neo4j refuses it.
const codeInvalidTxState = "25000"

// batchedCommits prepares a statement whose plan commits as it runs (CALL
// { … } IN TRANSACTIONS): refused in an explicit transaction; otherwise
// ectx.CommitBatch commits *tx and goes on in a new write transaction,
// which *tx, the statement and its Result then hold, so that the
// statement's own commit (or rollback, on failure) ends the last batch.
func (st *statementRun) batchedCommits(ectx *exec.Context, tx **storage.Tx, r *Result) error {
	if !plan.CommitsInBatches(st.plan.Root) {
		return nil
	}
	if st.txn != nil {
		return errs.New(codeInvalidTxState, errs.CatTransaction,
			"CALL { … } IN TRANSACTIONS can only run as a statement of its own (auto-commit), not in an explicit transaction")
	}
	store := st.s.db.store
	ectx.CommitBatch = func() error {
		if err := stopped(st.ctx); err != nil {
			return err
		}
		if _, err := (*tx).Commit(); err != nil {
			return fmt.Errorf("cannot commit: %w", err)
		}
		next := store.BeginAt(store.Snapshot())
		if err := next.BeginWrite(); err != nil {
			return err
		}
		next.MarkStatement()
		*tx, st.tx, r.tx, r.entities.r = next, next, next, next
		ectx.Tx = next
		return nil
	}
	return nil
}
