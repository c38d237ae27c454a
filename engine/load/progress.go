package load

import (
	"os"

	"github.com/quiverdb/quiver/engine/progress"
)

// The phases a load reports (Options.Progress), in order; the storage
// layer's phases follow (storage.BulkLoadProgress, then the base's
// writing). Bytes are input bytes parsed, items rows. A CSV file is
// counted as its parts are parsed, every progressRows rows of each part;
// a Parquet file as its (row group, column) chunks are decoded, each by
// the compressed size the footer gives it, and its rows as whole row
// groups complete.
const (
	PhaseReadNodes = "reading nodes"
	PhaseReadRels  = "reading relationships"
)

// progressRows is how many rows a parser reads between two reports.
const progressRows = 4096

// readPhase is the reading phase of inputs: their total size, in rows.
// A file that cannot be read counts nothing here (its read reports the
// error).
func readPhase(name string, inputs []Input) progress.Phase {
	p := progress.Phase{Name: name, Unit: "rows"}
	for _, in := range inputs {
		if fi, err := os.Stat(in.Path); err == nil {
			p.TotalBytes += fi.Size()
		}
	}
	return p
}

// reporter tells a sequential line parser's advance: line is called as
// each line starts, with the data left.
type reporter struct {
	prog       *progress.Tracker
	size, told int // the data's size, and the bytes told so far
	lines      int // lines begun, the last not told
}

func (r *reporter) line(rest []byte) {
	if r.lines++; r.lines == progressRows+1 {
		r.tell(rest, progressRows)
	}
}

// tell reports the bytes before rest and rows more rows.
func (r *reporter) tell(rest []byte, rows int) {
	done := r.size - len(rest)
	r.prog.Add(int64(done-r.told), int64(rows))
	r.told, r.lines = done, r.lines-rows
}

// done reports the rest once the parser stopped with rest unread: the
// lines it read whole (on an error, the failing one too).
func (r *reporter) done(rest []byte) {
	r.tell(rest, r.lines)
}
