package cluster

import (
	"context"
	"fmt"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The dbms.cluster.* procedures (docs/replication.md, "Procedures"):
// overview for anyone who may read, the membership changes and the
// leadership transfer for admins only, answered by the leader (a
// follower refuses them with 25006 naming it, as it does writes).

var (
	overviewSignature = engine.ProcedureSignature{
		Name: "dbms.cluster.overview",
		Outputs: []engine.ProcedureField{
			{Name: "id", Type: "STRING"}, {Name: "address", Type: "STRING"}, {Name: "role", Type: "STRING"},
			{Name: "appliedIndex", Type: "INTEGER"}, {Name: "lag", Type: "INTEGER"},
		},
		Requires: engine.PrivRead,
	}
	addMemberSignature = engine.ProcedureSignature{
		Name: "dbms.cluster.addMember",
		Inputs: []engine.ProcedureField{{Name: "id", Type: "STRING"}, {Name: "address", Type: "STRING"},
			{Name: "learner", Type: "BOOLEAN", Optional: true}},
		Outputs:  []engine.ProcedureField{{Name: "id", Type: "STRING"}, {Name: "address", Type: "STRING"}, {Name: "role", Type: "STRING"}},
		Requires: engine.PrivAdmin,
	}
	removeMemberSignature = engine.ProcedureSignature{
		Name:     "dbms.cluster.removeMember",
		Inputs:   []engine.ProcedureField{{Name: "id", Type: "STRING"}},
		Outputs:  []engine.ProcedureField{{Name: "id", Type: "STRING"}},
		Requires: engine.PrivAdmin,
	}
	transferSignature = engine.ProcedureSignature{
		Name:     "dbms.cluster.transferLeadership",
		Inputs:   []engine.ProcedureField{{Name: "id", Type: "STRING", Optional: true}},
		Outputs:  []engine.ProcedureField{{Name: "from", Type: "STRING"}, {Name: "to", Type: "STRING"}},
		Requires: engine.PrivAdmin,
	}
)

// RegisterProcedures registers the dbms.cluster.* procedures on the
// member's database, and again on the database a snapshot install
// reopens.
func (n *Node) RegisterProcedures() error {
	n.procs.Store(true)
	return n.registerProcedures()
}

// reregisterProcedures registers them on a reopened database if they
// were registered on the one before.
func (n *Node) reregisterProcedures() error {
	if !n.procs.Load() {
		return nil
	}
	return n.registerProcedures()
}

func (n *Node) registerProcedures() error {
	procs := []struct {
		sig engine.ProcedureSignature
		fn  engine.ProcedureFunc
	}{
		{overviewSignature, n.procOverview},
		{addMemberSignature, n.procAddMember},
		{removeMemberSignature, n.procRemoveMember},
		{transferSignature, n.procTransfer},
	}
	for _, p := range procs {
		if err := n.DB().RegisterProcedure(p.sig, p.fn); err != nil {
			return fmt.Errorf("cluster: cannot register %s: %w", p.sig.Name, err)
		}
	}
	return nil
}

func (n *Node) procOverview(ctx context.Context, _ []vector.Value) ([][]vector.Value, error) {
	ms, err := n.Overview(ctx)
	if err != nil {
		return nil, errs.Wrap(errs.CodeUnavailable, errs.CatUnavailable, err, "dbms.cluster.overview")
	}
	rows := make([][]vector.Value, len(ms))
	for i, m := range ms {
		rows[i] = []vector.Value{m.ID, m.Address, m.Role, nil, nil}
		if m.Known {
			rows[i][3], rows[i][4] = int64(m.Applied), int64(m.Lag)
		}
	}
	return rows, nil
}

// leading is nil on the leader, else the 25006 error naming it.
func (n *Node) leading() error {
	if n.Role() != "leader" {
		return n.NotLeader()
	}
	return nil
}

// procError is a membership change's error as the engine's: 25006 when
// the lead moved meanwhile.
func procError(name string, err error) error {
	if e := replicationError(err); e != nil {
		return e
	}
	if _, ok := engine.AsError(err); ok {
		return err
	}
	return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, name)
}

func (n *Node) procAddMember(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
	id, addr, err := stringArg(args[0]), stringArg(args[1]), error(nil)
	if id == "" || addr == "" {
		return nil, errs.New(errs.CodeData, errs.CatData, "dbms.cluster.addMember: id and address must be non-empty strings (address: the member's raft host:port)")
	}
	learner, _ := args[2].(bool)
	if err := n.leading(); err != nil {
		return nil, err
	}
	role := "follower"
	if learner {
		role = "learner"
		err = n.AddLearner(ctx, id, addr)
	} else {
		err = n.AddVoter(ctx, id, addr)
	}
	if err != nil {
		return nil, procError("dbms.cluster.addMember", err)
	}
	return [][]vector.Value{{id, addr, role}}, nil
}

func (n *Node) procRemoveMember(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
	id := stringArg(args[0])
	if id == "" {
		return nil, errs.New(errs.CodeData, errs.CatData, "dbms.cluster.removeMember: id must be a non-empty string")
	}
	if err := n.leading(); err != nil {
		return nil, err
	}
	if !n.isMember(id) {
		return nil, errs.New(errs.CodeNotFound, errs.CatNotFound, "dbms.cluster.removeMember: the cluster has no member %q", id)
	}
	if err := n.RemoveServer(ctx, id); err != nil {
		return nil, procError("dbms.cluster.removeMember", err)
	}
	return [][]vector.Value{{id}}, nil
}

func (n *Node) procTransfer(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
	id := stringArg(args[0])
	if err := n.leading(); err != nil {
		return nil, err
	}
	if id != "" && !n.isMember(id) {
		return nil, errs.New(errs.CodeNotFound, errs.CatNotFound, "dbms.cluster.transferLeadership: the cluster has no member %q", id)
	}
	if err := n.TransferLeadership(ctx, id); err != nil {
		return nil, procError("dbms.cluster.transferLeadership", err)
	}
	to, _ := n.Leader()
	return [][]vector.Value{{n.cfg.ID, nullable(to)}}, nil
}

func (n *Node) isMember(id string) bool {
	ms, err := n.Members()
	if err != nil {
		return false
	}
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// stringArg is a STRING argument, "" for null.
func stringArg(v vector.Value) string {
	s, _ := v.(string)
	return s
}

// nullable is s, or null when it is empty.
func nullable(s string) vector.Value {
	if s == "" {
		return nil
	}
	return s
}

// RegisterPrimaryProcedures registers the dbms.cluster.* procedures on a
// single server's database (--replication-mode primary): overview lists
// it alone, with role primary, under id and address; the membership
// procedures fail, saying the server is not a cluster member.
func RegisterPrimaryProcedures(db *engine.DB, id, address string) error {
	notMember := func(name string) engine.ProcedureFunc {
		return func(context.Context, []vector.Value) ([][]vector.Value, error) {
			return nil, errs.New(errs.CodeNotSupported, errs.CatSyntax,
				"%s: this server is a single primary, not a member of a cluster (start it with --replication-mode raft; docs/replication.md)", name)
		}
	}
	procs := []struct {
		sig engine.ProcedureSignature
		fn  engine.ProcedureFunc
	}{
		{overviewSignature, func(context.Context, []vector.Value) ([][]vector.Value, error) {
			return [][]vector.Value{{id, address, "primary", int64(db.AppliedIndex()), int64(0)}}, nil
		}},
		{addMemberSignature, notMember(addMemberSignature.Name)},
		{removeMemberSignature, notMember(removeMemberSignature.Name)},
		{transferSignature, notMember(transferSignature.Name)},
	}
	for _, p := range procs {
		if err := db.RegisterProcedure(p.sig, p.fn); err != nil {
			return fmt.Errorf("cluster: cannot register %s: %w", p.sig.Name, err)
		}
	}
	return nil
}
