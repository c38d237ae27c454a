package storage

import (
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
)

// Compaction folds an adjacency's overlay (the edges inserted and deleted
// since its base was built) into a new base CSR, so that scans read flat
// bit-packed blocks again.
//
// It runs in the background, off the commit path: a commit that leaves
// an overlay large (compactMin entries and a quarter of the type's edges)
// starts one compactor goroutine per store if none runs. The compactor
// reads the latest published version (immutable, so no lock), builds the
// compacted adjacencies (csr Compact, O(nodes + edges)), then takes the
// writer lock only to install them: it publishes a copy of the current
// version whose adjacency pointers are replaced where the current version
// still holds exactly the adjacency that was compacted. If a commit
// changed that type meanwhile, the work for it is dropped and the next
// round retries from the newer version. Readers are never blocked;
// writers wait only for the pointer swap. A compacted version has the
// same timestamp and content as the one it replaces.
//
// Property columns need no such pass: writes copy the touched chunk, and
// the commit re-seals every complete group it touched into its Arrow form
// (sealOwned), so columns are always in scan form.

// compactMin is the overlay size below which a type is never compacted
// (a variable so tests can force compaction).
var compactMin = 1 << 16

// needsCompact reports whether a's overlay is worth folding: amortized
// O(1) per changed edge, and scans stay mostly on the flat base.
func needsCompact(a *csr.Adjacency) bool {
	o := a.OverlaySize()
	return o >= compactMin && o*4 >= a.NumEdges()
}

type compactJob struct {
	t        catalog.TypeID
	d        Direction
	old, new *csr.Adjacency
}

// jobs lists the adjacencies of v that need compaction (all with an
// overlay when force is set).
func (v *Snapshot) compactJobs(force bool) []compactJob {
	var jobs []compactJob
	for t, p := range v.adj {
		for d, a := range p {
			if a == nil {
				continue
			}
			if (force && a.OverlaySize() > 0) || needsCompact(a) {
				jobs = append(jobs, compactJob{t: catalog.TypeID(t), d: Direction(d), old: a})
			}
		}
	}
	return jobs
}

// maybeCompact starts the background compactor when version v has an
// overlay worth folding and none runs. Called after a commit publishes v.
func (s *Store) maybeCompact(v *Snapshot) {
	if len(v.compactJobs(false)) == 0 || !s.compacting.CompareAndSwap(false, true) {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer s.compacting.Store(false)
		// A few rounds: commits during a round may leave more to do.
		for round := 0; round < 4; round++ {
			if s.compactOnce(false) == 0 {
				return
			}
		}
	}()
}

// compactOnce compacts what the latest version needs (everything with an
// overlay when force is set) and installs it; it returns how many
// adjacencies it installed.
func (s *Store) compactOnce(force bool) int {
	v := s.cur.Load()
	jobs := v.compactJobs(force)
	if len(jobs) == 0 {
		return 0
	}
	for i := range jobs {
		jobs[i].new = jobs[i].old.Compact(int(v.nodeBound))
	}
	s.writer.Lock()
	defer s.writer.Unlock()
	// The compacted adjacencies go into head, the base of the next
	// commit, and into what readers see when that is head too; a commit
	// waiting for its fsync publishes its own (uncompacted, same content)
	// version, and the next commit carries the compacted one.
	cur := s.head
	nv := *cur
	nv.adj = append([]adjPair(nil), cur.adj...)
	installed := 0
	for _, j := range jobs {
		if int(j.t) < len(nv.adj) && nv.adj[j.t][j.d] == j.old {
			nv.adj[j.t][j.d] = j.new
			installed++
		}
	}
	if installed > 0 {
		s.head = &nv
		s.cur.CompareAndSwap(cur, &nv)
	}
	return installed
}

// Compact folds every adjacency overlay of the latest version into its
// base now, after any background compaction finishes; writers are
// blocked only while the result is installed. Tests and maintenance use
// it; normal operation relies on the background compactor.
func (s *Store) Compact() {
	s.WaitCompaction()
	s.compactOnce(true)
}

// WaitCompaction waits for a running background compaction to finish.
func (s *Store) WaitCompaction() { s.bg.Wait() }
