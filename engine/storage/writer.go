package storage

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Writer identity. The data directory's lock keeps a second process out
// (datadir_lock.go); where it cannot (a filesystem whose locks do not
// work, a binary that predates the directory lock), the log and the
// checkpoints still tell two writers apart, so that their commits are
// refused rather than silently interleaved.
//
// Every process that opens a directory for writing is a writer with a
// random 64-bit id (StartWriter). Each commit record carries its
// writer's id, and the first record a writer logs also carries the id of
// the writer it took over from: the writer of the last record it
// recovered, or of the checkpoint when it recovered none. So the writers
// of a log form a chain, A A A B(prev A) B B C(prev B) …, and recovery
// checks it: a record whose writer is not the current one must be the
// first of a new writer that names the current one as its predecessor.
// Anything else — A's records after B took over, or a B that took over
// from a state the log does not hold — is a second writer, and the
// directory does not open (*OtherWriterError).
//
// A checkpoint's manifest carries the writer of the last record it
// holds, and recovery starts the chain from it. Before a checkpoint
// switches the manifest, the writer checks that the manifest on disk is
// still the one it read at open or wrote last (writeBase), and refuses
// to switch, failing the commit path, when another process replaced it.
//
// Records of older versions (record version 1) carry no writer: each
// counts as writer 0, taking over from any writer, which keeps such logs
// readable and makes the check blind to old binaries only.

// NewWriterID returns a random, non-zero writer id.
func NewWriterID() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if id := binary.LittleEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

// StartWriter makes id the writer of the commits to come: the first
// record logged names the writer of the latest version as its
// predecessor. Call it after recovery, before the first commit.
func (s *Store) StartWriter(id uint64) {
	s.writer.Lock()
	defer s.writer.Unlock()
	s.session.id, s.session.prev, s.session.logged = id, s.head.writer, false
}

// StopCommits makes every later commit fail with err's engine error (an
// *OtherWriterError found by a checkpoint; see Store.fail).
func (s *Store) StopCommits(err error) error { return s.fail(err) }

// Writer returns the writer of the latest version's last commit: 0 for
// none, or one that carried no identity.
func (s *Store) Writer() uint64 { return s.cur.Load().writer }

// writerSession is the store's writer, guarded by the commit lock.
type writerSession struct {
	id, prev uint64
	logged   bool // a record of this writer is in the log
}

// OtherWriterError is the error of a data directory that another process
// wrote to while this one did: two servers sharing it.
type OtherWriterError struct {
	Detail string
}

func (e *OtherWriterError) Error() string {
	return "another server wrote to this data directory at the same time: " + e.Detail +
		"; its commits and this one's cannot both be kept (docs/durability.md, \"Two writers\")"
}

// ManifestStamp identifies a manifest: the base it names, the writer of
// its last commit and its log position.
type ManifestStamp struct {
	Base   string
	Writer uint64
	LSN    uint64
}

func (m ManifestStamp) String() string {
	return fmt.Sprintf("base %s, writer %s, position %d", m.Base, formatWriterOr0(m.Writer), m.LSN)
}

// ReadManifestStamp returns the stamp of dir's manifest; the zero stamp
// when dir has none.
func ReadManifestStamp(fsys vfs.FS, dir string) (ManifestStamp, error) {
	b, err := vfs.ReadFile(fsys, filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return ManifestStamp{}, nil
	}
	if err != nil {
		return ManifestStamp{}, fmt.Errorf("storage: cannot read the manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return ManifestStamp{}, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	w, err := parseWriter(m.Writer)
	if err != nil {
		return ManifestStamp{}, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	return ManifestStamp{Base: m.Base, Writer: w, LSN: m.WALLSN}, nil
}

// checkManifest returns an *OtherWriterError unless dir's manifest is
// still the one expect stamps.
func checkManifest(fsys vfs.FS, dir string, expect ManifestStamp) error {
	got, err := ReadManifestStamp(fsys, dir)
	if err != nil {
		return err
	}
	if got != expect {
		return &OtherWriterError{Detail: fmt.Sprintf("the checkpoint manifest was replaced (%s) since this server wrote or read it (%s)", got, expect)}
	}
	return nil
}

// checkWriter follows the writer chain (see above) over a replayed record.
func (r *Recovery) checkWriter(d *decodedRecord, lsn uint64) error {
	switch {
	case d.legacy:
	case d.first && d.writer != r.writer && d.prev == r.writer:
	case !d.first && d.writer == r.writer:
	case d.first:
		return &OtherWriterError{Detail: fmt.Sprintf(
			"the write-ahead log record ending at position %d starts writer %s, which took over from writer %s, but the log before it was written by writer %s",
			lsn, formatWriterOr0(d.writer), formatWriterOr0(d.prev), formatWriterOr0(r.writer))}
	default:
		return &OtherWriterError{Detail: fmt.Sprintf(
			"the write-ahead log record ending at position %d was written by writer %s after writer %s had taken over",
			lsn, formatWriterOr0(d.writer), formatWriterOr0(r.writer))}
	}
	r.writer = d.writer
	return nil
}

func formatWriter(w uint64) string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("%016x", w)
}

func formatWriterOr0(w uint64) string {
	if w == 0 {
		return "0 (none)"
	}
	return formatWriter(w)
}

func parseWriter(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	w, err := strconv.ParseUint(s, 16, 64)
	if err != nil || len(s) != 16 {
		return 0, fmt.Errorf("bad writer %q", s)
	}
	return w, nil
}
