package engine

// COPY (<query>) TO '<file>' [(options)]: a read-only query's rows
// written into one Parquet or CSV file under Options.ExportDir, with the
// export's path rules, column writers and atomic write (package export,
// docs/export.md).

import (
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/export"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// copyToColumns are COPY … TO's answer: the file written, its rows and
// its bytes.
var copyToColumns = []plan.Column{
	{Name: "path", Type: vector.String}, {Name: "rows", Type: vector.Int64}, {Name: "bytes", Type: vector.Int64},
}

// copyTo runs COPY (…) TO: admin only (it writes files on the server,
// as quiver.export does), audited as admin/copy_to with the path as
// written. EXPLAIN shows the query's plan; PROFILE is refused.
func (st *statementRun) copyTo(stmt *gql.Statement) (*Result, error) {
	db := st.s.db
	c := stmt.Copy
	if st.mode == ModeProfile {
		return nil, errs.Semantic("PROFILE applies to queries, not to COPY … TO; EXPLAIN COPY (…) TO shows the query's plan").At(c.Pos.Line, c.Pos.Column)
	}
	if err := access.Authorize(st.ctx, db.trail(), func() []access.Need { return access.StatementNeeds(stmt) }); err != nil {
		return nil, err
	}
	inner := &gql.Statement{Query: c.Query}
	p, err := st.prepare(inner, inner.String())
	if err != nil {
		return nil, err
	}
	if p.Writes {
		return nil, errs.Semantic("COPY (…) TO runs a read-only query; this one writes to the graph (run the write first, then COPY its result)").At(c.QueryPos.Line, c.QueryPos.Column)
	}
	st.plan = p
	if st.mode == ModeExplain {
		return st.explain(), nil
	}
	res, err := st.copyToRun(c)
	db.trail().Audit(st.ctx, access.AuditEvent{Category: "admin", Action: "copy_to", Outcome: access.OutcomeOf(err), Detail: c.Path})
	return res, err
}

func (st *statementRun) copyToRun(c *gql.Copy) (*Result, error) {
	db := st.s.db
	path, err := export.Resolve(db.opts.ExportDir, c.Path, "COPY TO")
	if err != nil {
		if e, ok := errs.As(err); ok && e.Position == nil {
			e.At(c.PathPos.Line, c.PathPos.Column)
		}
		return nil, err
	}
	o := export.QueryOptions{Path: path, Header: true}
	if f, ok := c.Option("FORMAT").(string); ok {
		o.Format = strings.ToLower(f)
	} else {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".parquet", ".pq":
			o.Format = export.FormatParquet
		case ".csv":
			o.Format = export.FormatCSV
		default:
			return nil, errs.DataCode(errs.CodeInvalidParam,
				"COPY TO cannot tell the format of %s from its extension: name it .parquet or .csv, or give FORMAT = 'parquet' or 'csv'", c.Path).At(c.PathPos.Line, c.PathPos.Column)
		}
	}
	if h, ok := c.Option("HEADER").(bool); ok {
		o.Header = h
	}
	if d, ok := c.Option("DELIMITER").(string); ok {
		o.Delimiter = d[0]
	}
	if z, ok := c.Option("COMPRESSION").(string); ok {
		o.Compression = strings.ToLower(z)
	}
	if n, ok := c.Option("ROW_GROUP_SIZE").(int64); ok {
		o.RowGroupRows = int(n)
	}
	if o.Format == export.FormatCSV {
		// ROW_GROUP_SIZE applies to both: the rows held before they are
		// written, the first of which type the generic columns.
		if c.Option("COMPRESSION") != nil {
			return nil, errs.DataCode(errs.CodeInvalidParam, "COPY TO: COMPRESSION applies to Parquet files, not to CSV").At(c.Pos.Line, c.Pos.Column)
		}
	} else {
		for _, name := range []string{"HEADER", "DELIMITER"} {
			if c.Option(name) != nil {
				return nil, errs.DataCode(errs.CodeInvalidParam, "COPY TO: %s applies to CSV files, not to Parquet", name).At(c.Pos.Line, c.Pos.Column)
			}
		}
	}
	res, err := st.execute()
	if err != nil {
		return nil, err
	}
	defer res.Close()
	cols := make([]export.QueryColumn, len(res.Columns()))
	for i, col := range res.Columns() {
		cols[i] = export.QueryColumn{Name: col.Name, Type: col.Type}
	}
	// Stopped (deadline, cancellation, the memory budget) while rows
	// come; a result that ended released its context, and is not.
	o.Stop = func() error {
		if res.done {
			return nil
		}
		return stopped(st.ctx)
	}
	mem := &res.ectx.Mem
	o.Charge, o.Release = mem.Charge, mem.Release
	w := db.longWork().Start("COPY TO", "path", path, "format", o.Format)
	sum, err := export.Query(res, cols, res.Entities(), o)
	w.End(err, "rows", sum.Rows, "bytes", sum.Bytes)
	if err != nil {
		return nil, err
	}
	return db.schemaRows(copyToColumns, [][]vector.Value{{sum.Path, sum.Rows, sum.Bytes}}, st.start), nil
}
