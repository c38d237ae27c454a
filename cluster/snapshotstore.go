package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// SnapshotStore is raft's snapshot store over a vfs.FS: the data
// directory's, so that snapshots are encrypted at rest with the rest of
// it. It keeps hashicorp's FileSnapshotStore layout and meta.json, so a
// member's snapshots written by that store read back after an upgrade:
//
//	<raft>/snapshots/
//	  <term>-<index>-<unix ms>/       one snapshot, newest `retain` kept
//	    meta.json                     raft.SnapshotMeta and CRC, JSON
//	    state.bin                     the FSM's stream, as written
//	  <term>-<index>-<unix ms>.tmp/   a snapshot being written
//
// CRC is the CRC-64 (ECMA) of state.bin, checked on Open. A sink writes
// into the .tmp directory and Close renames it into place once both
// files are synced, so a crash leaves no partial snapshot visible; the
// .tmp directories a crash left are removed when the store opens.
type SnapshotStore struct {
	fs     vfs.FS
	dir    string
	retain int
	log    hclog.Logger
}

const (
	snapDirName   = "snapshots"
	snapMetaName  = "meta.json"
	snapStateName = "state.bin"
	snapTmpSuffix = ".tmp"
)

// snapMeta is meta.json: hashicorp's fileSnapshotMeta, field for field.
type snapMeta struct {
	raft.SnapshotMeta
	CRC []byte
}

var snapCRCTable = crc64.MakeTable(crc64.ECMA)

// errSnapshotCRC is the error of opening a snapshot whose state.bin does
// not match the CRC its meta.json records.
var errSnapshotCRC = errors.New("cluster: snapshot state does not match its CRC")

// OpenSnapshotStore opens (creating it) the snapshot store in
// <raftDir>/snapshots on fsys, keeping the newest retain snapshots, and
// removes what an interrupted sink left.
func OpenSnapshotStore(fsys vfs.FS, raftDir string, retain int, log hclog.Logger) (*SnapshotStore, error) {
	if retain < 1 {
		return nil, errors.New("cluster: a snapshot store must retain at least one snapshot")
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &SnapshotStore{fs: fsys, dir: filepath.Join(raftDir, snapDirName), retain: retain, log: log}
	if _, err := vfs.MkdirAllSync(fsys, s.dir); err != nil {
		return nil, fmt.Errorf("cluster: cannot create %s: %w", s.dir, err)
	}
	es, err := fsys.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("cluster: cannot list %s: %w", s.dir, err)
	}
	removed := false
	for _, e := range es {
		if e.IsDir() && strings.HasSuffix(e.Name(), snapTmpSuffix) {
			if err := fsys.RemoveAll(filepath.Join(s.dir, e.Name())); err != nil {
				return nil, fmt.Errorf("cluster: cannot remove an unfinished snapshot: %w", err)
			}
			removed = true
		}
	}
	if removed {
		if err := vfs.SyncDir(fsys, s.dir); err != nil {
			return nil, fmt.Errorf("cluster: cannot sync %s: %w", s.dir, err)
		}
	}
	return s, nil
}

// Create starts a snapshot; see raft.SnapshotStore. Meta's Peers (the
// encoding of version 0 snapshots, which raft reads for those alone) is
// left empty.
func (s *SnapshotStore) Create(version raft.SnapshotVersion, index, term uint64,
	configuration raft.Configuration, configurationIndex uint64, _ raft.Transport) (raft.SnapshotSink, error) {
	if version != 1 {
		return nil, fmt.Errorf("cluster: unsupported snapshot version %d", version)
	}
	id := fmt.Sprintf("%d-%d-%d", term, index, time.Now().UnixMilli())
	tmp := filepath.Join(s.dir, id+snapTmpSuffix)
	if err := s.fs.Mkdir(tmp); err != nil {
		return nil, fmt.Errorf("cluster: cannot create snapshot %s: %w", id, err)
	}
	sink := &snapSink{store: s, tmp: tmp, hash: crc64.New(snapCRCTable), meta: snapMeta{SnapshotMeta: raft.SnapshotMeta{
		Version: version, ID: id, Index: index, Term: term,
		Configuration: configuration, ConfigurationIndex: configurationIndex,
	}}}
	f, err := s.fs.OpenFile(filepath.Join(tmp, snapStateName), os.O_CREATE|os.O_EXCL|os.O_WRONLY)
	if err != nil {
		_ = s.fs.RemoveAll(tmp)
		return nil, fmt.Errorf("cluster: cannot create snapshot %s: %w", id, err)
	}
	sink.state = f
	sink.buf = bufio.NewWriterSize(io.MultiWriter(f, sink.hash), 1<<20)
	s.log.Info("creating new snapshot", "path", tmp)
	return sink, nil
}

// List returns the newest retain snapshots, newest first, skipping
// unfinished ones and those whose meta.json cannot be read.
func (s *SnapshotStore) List() ([]*raft.SnapshotMeta, error) {
	metas, err := s.all()
	if err != nil {
		return nil, err
	}
	var out []*raft.SnapshotMeta
	for _, m := range metas {
		if len(out) == s.retain {
			break
		}
		out = append(out, &m.SnapshotMeta)
	}
	return out, nil
}

// all returns every finished, readable snapshot, newest first (by term,
// index and ID, as hashicorp's store orders them).
func (s *SnapshotStore) all() ([]*snapMeta, error) {
	es, err := s.fs.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("cluster: cannot list %s: %w", s.dir, err)
	}
	var metas []*snapMeta
	for _, e := range es {
		if !e.IsDir() || strings.HasSuffix(e.Name(), snapTmpSuffix) {
			continue
		}
		m, err := s.readMeta(e.Name())
		if err != nil {
			s.log.Warn("failed to read snapshot metadata", "name", e.Name(), "error", err)
			continue
		}
		if m.Version < raft.SnapshotVersionMin || m.Version > raft.SnapshotVersionMax {
			s.log.Warn("snapshot version not supported", "name", e.Name(), "version", m.Version)
			continue
		}
		metas = append(metas, m)
	}
	sort.Slice(metas, func(i, j int) bool {
		a, b := metas[i], metas[j]
		if a.Term != b.Term {
			return a.Term > b.Term
		}
		if a.Index != b.Index {
			return a.Index > b.Index
		}
		return a.ID > b.ID
	})
	return metas, nil
}

func (s *SnapshotStore) readMeta(id string) (*snapMeta, error) {
	b, err := vfs.ReadFile(s.fs, filepath.Join(s.dir, id, snapMetaName))
	if err != nil {
		return nil, err
	}
	m := &snapMeta{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("cluster: cannot decode snapshot %s's metadata: %w", id, err)
	}
	return m, nil
}

// Open returns snapshot id's metadata and state, after checking the
// state against its CRC (one read of the whole file, as hashicorp's
// store does, so a damaged snapshot fails here rather than mid-restore).
func (s *SnapshotStore) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, nil, fmt.Errorf("cluster: bad snapshot id %q", id)
	}
	m, err := s.readMeta(id)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: cannot open snapshot %s: %w", id, err)
	}
	f, err := s.fs.OpenFile(filepath.Join(s.dir, id, snapStateName), os.O_RDONLY)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: cannot open snapshot %s: %w", id, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cluster: cannot open snapshot %s: %w", id, err)
	}
	h := crc64.New(snapCRCTable)
	if _, err := io.Copy(h, bufio.NewReaderSize(io.NewSectionReader(f, 0, st.Size()), 1<<20)); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cluster: cannot read snapshot %s: %w", id, err)
	}
	if !bytes.Equal(h.Sum(nil), m.CRC) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s", errSnapshotCRC, id)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, st.Size()), 1<<20)
	return &m.SnapshotMeta, &snapReader{Reader: r, f: f}, nil
}

// reap removes the snapshots past the newest retain.
func (s *SnapshotStore) reap() error {
	metas, err := s.all()
	if err != nil {
		return err
	}
	for _, m := range metas[min(s.retain, len(metas)):] {
		p := filepath.Join(s.dir, m.ID)
		s.log.Info("reaping snapshot", "path", p)
		if err := s.fs.RemoveAll(p); err != nil {
			return fmt.Errorf("cluster: cannot remove snapshot %s: %w", m.ID, err)
		}
	}
	return nil
}

// snapReader is an opened snapshot's state, buffered.
type snapReader struct {
	*bufio.Reader
	f vfs.File
}

func (r *snapReader) Close() error { return r.f.Close() }

// snapSink writes one snapshot; see raft.SnapshotSink. Raft uses a sink
// from one goroutine.
type snapSink struct {
	store  *SnapshotStore
	tmp    string
	meta   snapMeta
	state  vfs.File
	hash   hash.Hash64
	buf    *bufio.Writer
	closed bool
}

func (k *snapSink) ID() string { return k.meta.ID }

func (k *snapSink) Write(b []byte) (int, error) { return k.buf.Write(b) }

// Close finishes the snapshot and makes it visible: state.bin and
// meta.json synced, then the directory, then the rename and the parent.
// On an error the snapshot is removed.
func (k *snapSink) Close() error {
	if k.closed {
		return nil
	}
	k.closed = true
	if err := k.finish(); err != nil {
		if rerr := k.store.fs.RemoveAll(k.tmp); rerr != nil {
			k.store.log.Error("failed to remove an unfinished snapshot", "path", k.tmp, "error", rerr)
		}
		return fmt.Errorf("cluster: cannot write snapshot %s: %w", k.meta.ID, err)
	}
	return k.store.reap()
}

func (k *snapSink) finish() error {
	fsys, dir := k.store.fs, k.store.dir
	err := k.buf.Flush()
	if err == nil {
		err = k.state.Sync()
	}
	var size int64
	if err == nil {
		var st os.FileInfo
		if st, err = k.state.Stat(); err == nil {
			size = st.Size()
		}
	}
	if cerr := k.state.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	k.meta.Size, k.meta.CRC = size, k.hash.Sum(nil)
	b, err := json.Marshal(&k.meta)
	if err != nil {
		return err
	}
	if err := vfs.WriteFileSync(fsys, filepath.Join(k.tmp, snapMetaName), append(b, '\n')); err != nil {
		return err
	}
	if err := vfs.SyncDir(fsys, k.tmp); err != nil {
		return err
	}
	if err := fsys.Rename(k.tmp, filepath.Join(dir, k.meta.ID)); err != nil {
		return err
	}
	return vfs.SyncDir(fsys, dir)
}

// Cancel abandons the snapshot and removes what it wrote.
func (k *snapSink) Cancel() error {
	if k.closed {
		return nil
	}
	k.closed = true
	k.state.Close()
	if err := k.store.fs.RemoveAll(k.tmp); err != nil {
		return fmt.Errorf("cluster: cannot remove cancelled snapshot %s: %w", k.meta.ID, err)
	}
	return nil
}
