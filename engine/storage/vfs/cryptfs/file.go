package cryptfs

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// AuthError is the error of a block that no slot of authenticates: a
// tampered or corrupt file, or one encrypted under another key.
type AuthError struct {
	Path  string
	Block int64
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("cannot read %s: authentication failed at block %d", e.Path, e.Block)
}

// blockInfo is what is known of a block's slots: the slot holding its
// newest content (cur), the one the last sync made durable, the highest
// counter either holds, and the plaintext length of cur.
type blockInfo struct {
	cur, durable int8 // -1: none
	counter      uint64
	n            int
	// torn: no slot is valid and one was cut short by a crash (the file
	// ends inside it, or its tag is still zeros), or none was written.
	torn bool
}

// fileState is shared by every open handle of one file.
type fileState struct {
	mu   sync.Mutex
	path string
	keys Keys
	refs int
	// writers counts the handles open for writing (guarded by FS.mu).
	writers int
	hasHdr  bool
	hdr     header
	aead    cipher.AEAD
	size    int64
	// blocks are the blocks written since the file was opened; dirty
	// those written since the last sync.
	blocks map[int64]*blockInfo
	dirty  map[int64]bool
	// syncing counts, per block, the syncs in flight that will make its
	// current slot durable; synced is broadcast when one ends. A write
	// to such a block waits (see sync).
	syncing map[int64]int
	synced  sync.Cond
	raw     [blockSpan]byte
	aad     []byte
	// tail is the plaintext of the block last written (tailIdx; -1:
	// none): an append rewrites it without reading it back.
	tail    [BlockSize]byte
	tailN   int
	tailIdx int64
	block   [BlockSize]byte // writeAt's buffer
}

func (s *fileState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hasHdr, s.size, s.aead, s.tailIdx = false, 0, nil, -1
	clear(s.blocks)
	clear(s.dirty)
}

// newFileState is the state of the file at path, not yet loaded.
func newFileState(path string, keys Keys) *fileState {
	s := &fileState{path: path, keys: keys, blocks: map[int64]*blockInfo{}, dirty: map[int64]bool{}, syncing: map[int64]int{}, tailIdx: -1}
	s.synced.L = &s.mu
	return s
}

// awaitSync waits, with s.mu held, until no sync in flight covers a
// block from first to last. It reports whether it waited: the caller
// then checks again what it computed before, which may have changed.
func (s *fileState) awaitSync(first, last int64) bool {
	if len(s.syncing) == 0 || last < first {
		return false
	}
	covered := false
	if last-first < int64(len(s.syncing)) {
		for idx := first; idx <= last && !covered; idx++ {
			covered = s.syncing[idx] > 0
		}
	} else {
		for idx := range s.syncing {
			if idx >= first && idx <= last {
				covered = true
				break
			}
		}
	}
	if !covered {
		return false
	}
	if testHookAwaitSync != nil {
		testHookAwaitSync()
	}
	s.synced.Wait()
	return true
}

// testHookAwaitSync, when set by a test, is called as a write starts to
// wait for a sync.
var testHookAwaitSync func()

func (s *fileState) hasDirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.dirty) > 0
}

func (s *fileState) setHeader(h header) error {
	key, ok := s.keys.Key(h.gen)
	if !ok {
		return fmt.Errorf("cannot read %s: it is encrypted with key generation %d, which the keyring does not hold", s.path, h.gen)
	}
	aead, err := fileAEAD(key, h.salt[:])
	if err != nil {
		return err
	}
	s.hdr, s.aead, s.hasHdr = h, aead, true
	return nil
}

// ensureHeader writes a new file's header.
func (s *fileState) ensureHeader(bf vfs.File) error {
	if s.hasHdr {
		return nil
	}
	gen, _ := s.keys.Current()
	h := newHeader(gen)
	if err := s.setHeader(h); err != nil {
		return err
	}
	if _, err := bf.WriteAt(h.encode(), 0); err != nil {
		s.hasHdr = false
		return err
	}
	return nil
}

// loadSize finds the plaintext size from the last blocks. Blocks never
// written (zeros: a preallocated tail) are not part of the file. A last
// block with no valid slot that a crash cut short is a torn write of a
// new block: the file ends before it. Any other block without a valid
// slot is an authentication failure.
func (s *fileState) loadSize(bf vfs.File, phys int64) error {
	nb := max(0, (phys-dataStart+blockSpan-1)/blockSpan)
	nb, err := s.writtenBlocks(bf, nb)
	if err != nil {
		return err
	}
	plain := make([]byte, BlockSize)
	for k := nb - 1; k >= 0; k-- {
		info, err := s.readBlock(bf, k, plain)
		if err != nil {
			return err
		}
		if info.cur >= 0 {
			s.size = k*BlockSize + int64(info.n)
			return nil
		}
		if k < nb-1 || !info.torn {
			return &AuthError{Path: s.path, Block: k}
		}
	}
	s.size = 0
	return nil
}

// writtenBlocks is the number of blocks up to the last one holding a
// non-zero byte, of the nb the file spans: a preallocated tail is zeros.
func (s *fileState) writtenBlocks(bf vfs.File, nb int64) (int64, error) {
	const chunk = 64 // blocks read at a time
	buf := make([]byte, chunk*blockSpan)
	for nb > 0 {
		from := max(0, nb-chunk)
		b := buf[:(nb-from)*blockSpan]
		n, err := bf.ReadAt(b, blockOffset(from))
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("cannot read %s: %w", s.path, err)
		}
		b = b[:n]
		for k := nb - 1; k >= from; k-- {
			lo := (k - from) * blockSpan
			if lo < int64(len(b)) && !allZero(b[lo:min(int64(len(b)), lo+blockSpan)]) {
				return k + 1, nil
			}
		}
		nb = from
	}
	return 0, nil
}

// readBlock reads block idx into plain (BlockSize bytes). The info's cur
// is -1 when no slot authenticates.
func (s *fileState) readBlock(bf vfs.File, idx int64, plain []byte) (blockInfo, error) {
	if bi := s.blocks[idx]; bi != nil && bi.cur >= 0 {
		raw := s.raw[:slotSize]
		if _, err := bf.ReadAt(raw, blockOffset(idx)+int64(bi.cur)*slotSize); err != nil && !errors.Is(err, io.EOF) {
			return blockInfo{}, fmt.Errorf("cannot read %s: %w", s.path, err)
		}
		if _, ok := openSlot(plain, s.aead, s.hdr.salt[:], idx, raw, s.aad); !ok {
			return blockInfo{}, &AuthError{Path: s.path, Block: idx}
		}
		return *bi, nil
	}
	raw := s.raw[:]
	n, err := bf.ReadAt(raw, blockOffset(idx))
	if err != nil && !errors.Is(err, io.EOF) {
		return blockInfo{}, fmt.Errorf("cannot read %s: %w", s.path, err)
	}
	raw = raw[:n]
	halves := [2][]byte{raw[:min(n, slotSize)], raw[min(n, slotSize):]}
	var sl [2]slot
	info := blockInfo{cur: -1, durable: -1}
	written := false
	for i, h := range halves {
		if len(h) >= 8 {
			sl[i].counter = le64(h)
		}
		info.counter = max(info.counter, sl[i].counter)
		if sl[i].counter != 0 {
			written = true
			info.torn = info.torn || len(h) < slotSize || allZero(h[slotSize-tagSize:slotSize])
		}
	}
	info.torn = info.torn || !written
	first := 0
	if sl[1].counter > sl[0].counter {
		first = 1
	}
	for _, i := range [2]int{first, 1 - first} {
		if sl[i].counter == 0 {
			continue
		}
		if got, ok := openSlot(plain, s.aead, s.hdr.salt[:], idx, halves[i], s.aad); ok {
			info.cur, info.durable, info.n, info.torn = int8(i), int8(i), got.n, false
			return info, nil
		}
	}
	return info, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// writeBlock writes p (block idx's whole plaintext) to the slot that is
// not the durable one.
func (s *fileState) writeBlock(bf vfs.File, idx int64, p []byte, scratch []byte) error {
	s.tailIdx = -1 // scratch may be the tail; set again once written
	bi := s.blocks[idx]
	if bi == nil {
		info, err := s.readBlock(bf, idx, scratch)
		if err != nil {
			return err
		}
		bi = &info
		s.blocks[idx] = bi
	}
	target := bi.cur
	if target < 0 || target == bi.durable {
		target = 0
		if bi.durable == 0 {
			target = 1
		}
	}
	buf := s.raw[:slotSize]
	counter := bi.counter + 1
	sealSlot(buf, s.aead, s.hdr.salt[:], idx, counter, p, s.aad)
	if _, err := bf.WriteAt(buf, blockOffset(idx)+int64(target)*slotSize); err != nil {
		return err
	}
	bi.cur, bi.counter, bi.n = target, counter, len(p)
	s.dirty[idx] = true
	s.tailIdx, s.tailN = idx, copy(s.tail[:], p)
	return nil
}

// file is an open handle.
type file struct {
	fs     *FS
	st     *fileState
	f      vfs.File
	name   string
	key    string
	append bool
	write  bool
	pos    int64
}

func (f *file) Name() string { return f.name }

func (f *file) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	s := f.st
	s.mu.Lock()
	defer s.mu.Unlock()
	plain := s.block[:] // writeAt's buffer: both hold s.mu
	n := 0
	for n < len(p) && off < s.size {
		idx, bo := off/BlockSize, int(off%BlockSize)
		info, err := s.readBlock(f.f, idx, plain)
		if err != nil {
			return n, err
		}
		if info.cur < 0 {
			return n, &AuthError{Path: s.path, Block: idx}
		}
		avail := min(int64(info.n), s.size-idx*BlockSize)
		if int64(bo) >= avail {
			return n, &AuthError{Path: s.path, Block: idx} // a short block inside the file
		}
		c := copy(p[n:], plain[bo:avail])
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *file) Write(p []byte) (int, error) {
	n, err := f.writeAt(p, f.pos, f.append)
	f.pos += int64(n)
	return n, err
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	if f.append {
		return 0, &fs.PathError{Op: "writeat", Path: f.name, Err: errors.New("file opened with O_APPEND")}
	}
	return f.writeAt(p, off, false)
}

func (f *file) writeAt(p []byte, off int64, appending bool) (int, error) {
	if !f.write {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrPermission}
	}
	s := f.st
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if appending {
			off = s.size
			f.pos = off
		}
		end := off + int64(len(p))
		if !s.awaitSync(min(off, s.size)/BlockSize, (end-1)/BlockSize) {
			break
		}
	}
	if err := s.ensureHeader(f.f); err != nil {
		return 0, pathError("write", f.name, err)
	}
	want := len(p)
	if off > s.size { // a gap reads as zeros: write them
		p = append(make([]byte, off-s.size), p...)
		off = s.size
	}
	done := 0
	block := s.block[:]
	for done < len(p) {
		idx, bo := off/BlockSize, int(off%BlockSize)
		c := min(BlockSize-bo, len(p)-done)
		have := 0 // plaintext bytes the block holds now
		if idx*BlockSize < s.size {
			have = int(min(BlockSize, s.size-idx*BlockSize))
		}
		switch {
		case have == 0 || (bo == 0 && c >= have):
		case idx == s.tailIdx && s.tailN == have:
			copy(block, s.tail[:have])
		default:
			info, err := s.readBlock(f.f, idx, block)
			if err != nil {
				return f.written(want, len(p), done), err
			}
			if info.cur < 0 {
				return f.written(want, len(p), done), &AuthError{Path: s.path, Block: idx}
			}
		}
		copy(block[bo:], p[done:done+c])
		n := max(have, bo+c)
		if err := s.writeBlock(f.f, idx, block[:n], s.tail[:]); err != nil {
			return f.written(want, len(p), done), pathError("write", f.name, err)
		}
		done += c
		off += int64(c)
		s.size = max(s.size, off)
	}
	return want, nil
}

// written is how many of the caller's bytes a write that stopped after
// done of its total bytes (gap zeros first) wrote.
func (f *file) written(want, total, done int) int {
	return max(0, done-(total-want))
}

func (f *file) Stat() (fs.FileInfo, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return nil, err
	}
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	return fileInfo{FileInfo: fi, size: f.st.size}, nil
}

func (f *file) Sync() error     { return f.sync(f.f.Sync) }
func (f *file) SyncData() error { return f.sync(f.f.SyncData) }

// sync makes the slots written so far the durable ones. A write to one of
// those blocks waits until the sync has ended: it would rewrite the slot
// being synced in place (the other one is the last durable content), and
// a crash during or after the sync could leave that slot torn and the
// block without what the sync acknowledged. (The WAL writes a large
// record's frames while its flusher syncs the tail block.)
func (f *file) sync(do func() error) error {
	s := f.st
	s.mu.Lock()
	snap := make(map[int64]uint64, len(s.dirty))
	for idx := range s.dirty {
		snap[idx] = s.blocks[idx].counter
		s.syncing[idx]++
	}
	s.mu.Unlock()
	err := do()
	s.mu.Lock()
	defer s.mu.Unlock()
	for idx := range snap {
		if n := s.syncing[idx]; n > 1 {
			s.syncing[idx] = n - 1
		} else {
			delete(s.syncing, idx)
		}
	}
	s.synced.Broadcast()
	if err != nil {
		return err
	}
	for idx, c := range snap {
		if bi := s.blocks[idx]; bi != nil && bi.counter == c && s.dirty[idx] {
			bi.durable = bi.cur
			delete(s.dirty, idx)
		}
	}
	return nil
}

func (f *file) Truncate(size int64) error {
	if size < 0 {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: fs.ErrInvalid}
	}
	s := f.st
	s.mu.Lock()
	for size%BlockSize != 0 && s.awaitSync(size/BlockSize, size/BlockSize) {
	}
	if size > s.size {
		s.mu.Unlock()
		_, err := f.writeAt(make([]byte, 0), size, false)
		return err
	}
	defer s.mu.Unlock()
	nb := (size + BlockSize - 1) / BlockSize
	if rem := int(size % BlockSize); rem != 0 && size < s.size {
		block := make([]byte, BlockSize)
		info, err := s.readBlock(f.f, nb-1, block)
		if err != nil {
			return err
		}
		if info.cur < 0 {
			return &AuthError{Path: s.path, Block: nb - 1}
		}
		if err := s.writeBlock(f.f, nb-1, block[:rem], make([]byte, BlockSize)); err != nil {
			return pathError("truncate", f.name, err)
		}
	}
	phys := int64(0)
	if s.hasHdr {
		phys = blockOffset(nb)
	}
	if fi, err := f.f.Stat(); err != nil {
		return err
	} else if fi.Size() > phys {
		if err := f.f.Truncate(phys); err != nil {
			return err
		}
		// The cut is made durable at once: blocks written again after an
		// unsynced cut would start their counters afresh, and a crash
		// could bring back the cut-off slots with higher ones.
		if err := f.f.Sync(); err != nil {
			return err
		}
		for idx := range s.dirty {
			if bi := s.blocks[idx]; bi != nil {
				bi.durable = bi.cur
			}
		}
		clear(s.dirty)
	}
	if s.tailIdx >= nb {
		s.tailIdx = -1
	}
	for idx := range s.blocks {
		if idx >= nb {
			delete(s.blocks, idx)
			delete(s.dirty, idx)
		}
	}
	s.size = size
	return nil
}

// Preallocate reserves the space of size bytes of blocks on disk, as
// zeros, so that appends into it need no size change at their sync (the
// WAL's reason). The plaintext size does not change: zeros are not a
// readable block, so the file reads as long as what was written, which
// is also what recovery of a preallocated WAL segment expects (its end
// is where its records end).
func (f *file) Preallocate(size int64) error {
	s := f.st
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureHeader(f.f); err != nil {
		return pathError("preallocate", f.name, err)
	}
	nb := (size + BlockSize - 1) / BlockSize
	return f.f.Preallocate(blockOffset(nb))
}

func (f *file) Close() error {
	err := f.f.Close()
	f.fs.release(f.key, f.st, f.write)
	return err
}
