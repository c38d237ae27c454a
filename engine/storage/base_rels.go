package storage

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
)

// Opening a base loads the CSRs part by part on every core (base_csr.go)
// and checks the relationships while each list is decoded anyway:
//
//   - forward lists: ids in range and each once (a table row claimed per
//     id, or sequential ids: distinct by construction), endpoints live;
//   - the two directions hold the same relationships: the sum over each
//     direction's slots of a 64-bit hash of (source, target, id) must be
//     equal. A backward list that names another target, source or id than
//     the forward slot it stands for changes the sum (a false match has
//     probability 2^-64), and no pass of random lookups is needed.
//
// The relationship table of a bulk-loaded base is derived from the
// forward CSRs (rels_derived.go); any other base's is built from them
// while they load.

// relLoader loads the relationship types of a base.
type relLoader struct {
	v       *Snapshot
	files   [][2]*csrFile // per type; nil when the type has no relationships
	allLive bool          // every node id below the bound exists
	fp      [][2]atomic.Uint64
	table   bool // the table is built (not derived)
}

// openRels opens the CSR files of every type and decides how the
// relationship table is made.
func openRels(v *Snapshot, types int, o *opener) (*relLoader, error) {
	rl := &relLoader{v: v, files: make([][2]*csrFile, types), fp: make([][2]atomic.Uint64, types)}
	rl.allLive = v.live.GetCardinality() == v.nodeBound && (v.nodeBound == 0 || uint64(v.live.Maximum()) == v.nodeBound-1)
	var total int64
	var spans []relSpan
	for t := range types {
		var sf [2]*sectionFile
		for d := range sf {
			var err error
			if sf[d], err = o.sections(fmt.Sprintf("csr.%d.%s", t, dirName[d])); err != nil {
				return nil, err
			}
		}
		if (sf[0] == nil) != (sf[1] == nil) {
			return nil, badFile(fmt.Sprintf("csr.%d", t), "one direction is missing")
		}
		if sf[0] == nil {
			continue
		}
		for d := range sf {
			cf, err := openCSR(sf[d], v.nodeBound, v.relCount, o.dec)
			if err != nil {
				return nil, badFile(sf[d].name, "%v", err)
			}
			rl.files[t][d] = cf
		}
		out, in := rl.files[t][Outgoing], rl.files[t][Incoming]
		if out.numEdges == 0 || out.numEdges != in.numEdges {
			return nil, badFile(sf[0].name, "%d edges out, %d in", out.numEdges, in.numEdges)
		}
		total += int64(out.numEdges)
		if total > v.relCount {
			return nil, badFile("csr files", "more relationships than the manifest's %d", v.relCount)
		}
		if out.ids != csrIDsSeq {
			rl.table = true
		}
		spans = append(spans, relSpan{first: out.base, n: out.numEdges, t: catalog.TypeID(t)})
	}
	if total != v.relCount {
		return nil, badFile("csr files", "%d relationships, manifest says %d", total, v.relCount)
	}
	if !rl.table {
		sort.Slice(spans, func(i, j int) bool { return spans[i].first < spans[j].first })
		for i, sp := range spans {
			if sp.first+sp.n > v.relBound || (i > 0 && spans[i-1].first+spans[i-1].n > sp.first) {
				return nil, badFile(fmt.Sprintf("csr.%d.out", sp.t), "relationship ids %d-%d overlap another type's or pass the bound %d",
					sp.first, sp.first+sp.n, v.relBound)
			}
		}
		v.derived = &derivedRels{bound: v.relBound, spans: spans}
		v.rels = nil
	} else {
		groups := int((v.relBound + GroupSize - 1) >> groupShift)
		v.rels = make([]*relChunk, groups)
		for g := range v.rels {
			rows := min(GroupSize, int(v.relBound-uint64(g)<<groupShift))
			c := &relChunk{typ: make([]uint32, rows), src: make([]uint32, rows), dst: make([]uint32, rows)}
			for r := range c.typ {
				c.typ[r] = noRel
			}
			v.rels[g] = c
		}
	}
	return rl, nil
}

// tasks loads every part of every CSR: the forward ones claim their ids
// in the table (when it is built) and check the endpoints; both sum
// their direction's fingerprint.
func (rl *relLoader) tasks() []loadTask {
	var tasks []loadTask
	for t, pair := range rl.files {
		for d, cf := range pair {
			if cf == nil {
				continue
			}
			for p := range cf.parts {
				tasks = append(tasks, func(sc *loadScratch, dec *zstd.Decoder) error {
					// The part's sum goes to the shared one once: an atomic
					// add per list (two cores on one cache line) cost more
					// than the hashes.
					var h uint64
					err := cf.loadPart(p, dec, &sc.csr, func(node, slot uint64, nbrs []uint64, ids partIDs) error {
						for i, nbr := range nbrs {
							id := ids.id(slot + uint64(i))
							if d == int(Incoming) {
								if id >= rl.v.relBound {
									return fmt.Errorf("relationship %d past the id bound %d", id, rl.v.relBound)
								}
								h += edgeHash(nbr, node, id)
								continue
							}
							if rl.table {
								if err := rl.claim(id, uint32(t), node, nbr); err != nil {
									return err
								}
							}
							if !rl.allLive && (!rl.v.nodeLive(node) || !rl.v.nodeLive(nbr)) {
								return fmt.Errorf("relationship %d has an endpoint that does not exist", id)
							}
							h += edgeHash(node, nbr, id)
						}
						return nil
					})
					if err != nil {
						return badFile(cf.sf.name, "%v", err)
					}
					rl.fp[t][d].Add(h)
					return nil
				})
			}
		}
	}
	return tasks
}

// claim writes relationship id's row of the built table, once.
func (rl *relLoader) claim(id uint64, t uint32, src, dst uint64) error {
	if id >= rl.v.relBound {
		return fmt.Errorf("relationship %d past the id bound %d", id, rl.v.relBound)
	}
	c, r := rl.v.rels[id>>groupShift], id&groupMask
	if !atomic.CompareAndSwapUint32(&c.typ[r], noRel, t) {
		return fmt.Errorf("relationship %d stored twice", id)
	}
	c.src[r], c.dst[r] = uint32(src), uint32(dst)
	return nil
}

// finish compares the directions and installs the adjacencies.
func (rl *relLoader) finish() error {
	v := rl.v
	v.adj = make([]adjPair, len(rl.files))
	v.typeRels = make([]int64, len(rl.files))
	for t, pair := range rl.files {
		if pair[Outgoing] == nil {
			continue
		}
		if rl.fp[t][Outgoing].Load() != rl.fp[t][Incoming].Load() {
			return badFile(pair[Incoming].sf.name, "does not hold the relationships of the forward adjacency")
		}
		out, in := pair[Outgoing].csr(), pair[Incoming].csr()
		v.adj[t] = adjPair{csr.NewAdjacency(out), csr.NewAdjacency(in)}
		v.typeRels[t] = int64(out.NumEdges())
	}
	if d := v.derived; d != nil {
		for i := range d.spans {
			d.spans[i].out = v.adj[d.spans[i].t][Outgoing].Base()
		}
	}
	return nil
}

// edgeHash is the fingerprint of one relationship, summed over a
// direction: splitmix64's finalizer (a bijection) of its endpoints (node
// ids fit 32 bits, so src<<32|dst is one-to-one) and its id scaled by an
// odd constant (one-to-one too).
func edgeHash(src, dst, id uint64) uint64 {
	return mix64((src<<32 | dst) ^ id*0x9E3779B97F4A7C15)
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	return x ^ x>>31
}

// A loadTask is one independent piece of opening a base (a column part,
// a CSR part), run on a worker with its own scratch buffers.
type loadTask func(sc *loadScratch, dec *zstd.Decoder) error

type loadScratch struct {
	csr  csrScratch
	part []byte
}

// runTasks runs tasks on GOMAXPROCS goroutines and returns the error of
// the lowest task that failed (workers stop taking tasks after one
// fails).
func runTasks(tasks []loadTask, dec *zstd.Decoder) error {
	errs := make([]error, len(tasks))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tasks)) {
		wg.Go(func() {
			var sc loadScratch
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(tasks) {
					return
				}
				if errs[i] = tasks[i](&sc, dec); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// badFile is a corruptFile error.
func badFile(name string, format string, args ...any) error {
	return &corruptFile{name: name, err: fmt.Errorf(format, args...)}
}
