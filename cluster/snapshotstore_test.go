package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
)

// snapConfig is a configuration to snapshot.
var snapConfig = raft.Configuration{Servers: []raft.Server{
	{Suffrage: raft.Voter, ID: "n1", Address: "127.0.0.1:1"},
	{Suffrage: raft.Nonvoter, ID: "n2", Address: "127.0.0.1:2"},
}}

// snapState is a state of n bytes that tells snapshots apart by seed.
func snapState(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	return b
}

// writeSnap writes state into a new snapshot of store in chunks.
func writeSnap(t *testing.T, store raft.SnapshotStore, term, index uint64, state []byte) string {
	t.Helper()
	_, trans := raft.NewInmemTransport("")
	sink, err := store.Create(1, index, term, snapConfig, 3, trans)
	if err != nil {
		t.Fatal(err)
	}
	for b := state; len(b) > 0; {
		n := min(len(b), 7000)
		if _, err := sink.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return sink.ID()
}

// readSnap opens snapshot id and checks its metadata and state.
func readSnap(t *testing.T, store raft.SnapshotStore, id string, term, index uint64, state []byte) {
	t.Helper()
	meta, rc, err := store.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, state) {
		t.Fatalf("snapshot %s: read %d bytes, not the %d written", id, len(got), len(state))
	}
	if meta.ID != id || meta.Term != term || meta.Index != index || meta.Version != 1 ||
		meta.Size != int64(len(state)) || meta.ConfigurationIndex != 3 ||
		len(meta.Configuration.Servers) != 2 || meta.Configuration.Servers[1] != snapConfig.Servers[1] {
		t.Fatalf("snapshot %s: meta %+v", id, meta)
	}
}

func listIDs(t *testing.T, store raft.SnapshotStore) []string {
	t.Helper()
	metas, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range metas {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestSnapshotStoreContract: snapshots read back as written, newest first
// (by term, then index), the newest two kept; a cancelled or unfinished
// sink leaves nothing visible and reopening removes its directory; a
// changed state.bin fails Open.
func TestSnapshotStoreContract(t *testing.T) {
	t.Parallel()
	raftDir := t.TempDir()
	store, err := OpenSnapshotStore(vfs.Default, raftDir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, store); len(ids) != 0 {
		t.Fatalf("a new store lists %v", ids)
	}
	s1, s2, s3 := snapState(1, 20000), snapState(2, 0), snapState(3, 1<<20+17)
	id1 := writeSnap(t, store, 2, 10, s1)
	id2 := writeSnap(t, store, 1, 50, s2) // older term, higher index
	if ids := listIDs(t, store); len(ids) != 2 || ids[0] != id1 || ids[1] != id2 {
		t.Fatalf("list %v, want [%s %s]", ids, id1, id2)
	}
	readSnap(t, store, id1, 2, 10, s1)
	readSnap(t, store, id2, 1, 50, s2)

	sink, err := store.Create(1, 60, 2, snapConfig, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sink.Write([]byte("abandoned")); err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, store); len(ids) != 2 || ids[0] != id1 {
		t.Fatalf("an unfinished sink is listed: %v", ids)
	}
	if err := sink.Cancel(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Open(sink.ID()); err == nil {
		t.Fatal("a cancelled snapshot opens")
	}

	id3 := writeSnap(t, store, 2, 20, s3)
	if ids := listIDs(t, store); len(ids) != 2 || ids[0] != id3 || ids[1] != id1 {
		t.Fatalf("after a third snapshot: list %v, want [%s %s]", ids, id3, id1)
	}
	snapDir := filepath.Join(raftDir, snapDirName)
	if names := dirNames(t, snapDir); len(names) != 2 {
		t.Fatalf("%s holds %v: the oldest snapshot was not reaped, or the cancelled one stayed", snapDir, names)
	}

	// A crash mid-write leaves the temporary directory: not listed, and
	// removed when the store opens again.
	crashed, err := store.Create(1, 70, 3, snapConfig, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crashed.Write(s1); err != nil {
		t.Fatal(err)
	}
	crashed.(*snapSink).state.Close()
	store, err = OpenSnapshotStore(vfs.Default, raftDir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, snapDir); len(names) != 2 || strings.HasSuffix(names[0]+names[1], snapTmpSuffix) {
		t.Fatalf("after reopening, %s holds %v", snapDir, names)
	}
	readSnap(t, store, id3, 2, 20, s3)

	// One changed byte in state.bin fails the CRC.
	p := filepath.Join(snapDir, id3, snapStateName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Open(id3); !errors.Is(err, errSnapshotCRC) {
		t.Fatalf("opening a damaged snapshot: %v", err)
	}
	for _, bad := range []string{"", "..", "../snapshots", id1 + "/x"} {
		if _, _, err := store.Open(bad); err == nil {
			t.Fatalf("Open(%q) succeeded", bad)
		}
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestSnapshotStoreHashicorpLayout: on a plain filesystem, what
// hashicorp's FileSnapshotStore wrote (a member before the upgrade) is
// listed and read by ours, and the other way round.
func TestSnapshotStoreHashicorpLayout(t *testing.T) {
	t.Parallel()
	raftDir := t.TempDir()
	theirs, err := raft.NewFileSnapshotStore(raftDir, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	old := snapState(4, 300000)
	oldID := writeSnap(t, theirs, 3, 40, old)
	ours, err := OpenSnapshotStore(vfs.Default, raftDir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, ours); len(ids) != 1 || ids[0] != oldID {
		t.Fatalf("our store lists %v, want [%s]", ids, oldID)
	}
	readSnap(t, ours, oldID, 3, 40, old)
	// Ours orders and reaps theirs with its own.
	fresh := snapState(5, 5000)
	id := writeSnap(t, ours, 3, 41, fresh)
	id2 := writeSnap(t, ours, 3, 42, fresh)
	if ids := listIDs(t, ours); len(ids) != 2 || ids[0] != id2 || ids[1] != id {
		t.Fatalf("list %v, want [%s %s]", ids, id2, id)
	}
	if ids := listIDs(t, theirs); len(ids) != 2 || ids[0] != id2 {
		t.Fatalf("hashicorp's store lists %v, want [%s %s]", ids, id2, id)
	}
	readSnap(t, theirs, id, 3, 41, fresh)
}

// TestSnapshotStorePowerLoss cuts the power at every operation of
// writing and closing a snapshot on MemFS (strict and torn images): the
// reopened store lists either no snapshot or the whole one, which reads
// back; once Close returned, the snapshot survives.
func TestSnapshotStorePowerLoss(t *testing.T) {
	t.Parallel()
	state := snapState(6, 50000)
	const raftDir = "/d/raft"
	var images []*vfs.MemFS
	var at []string
	m := vfs.NewMem()
	store, err := OpenSnapshotStore(m, raftDir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
		images = append(images, crash(nil), crash(rng))
		at = append(at, op.String(), op.String()+" torn")
	})
	id := writeSnap(t, store, 1, 9, state)
	m.SetHook(nil)
	images = append(images, m.Crash(nil))
	at = append(at, "after Close")
	found := 0
	for i, img := range images {
		s, err := OpenSnapshotStore(img, raftDir, 2, nil)
		if err != nil {
			t.Fatalf("crash at %s: %v", at[i], err)
		}
		ids := listIDs(t, s)
		switch {
		case len(ids) == 1 && ids[0] == id:
			readSnap(t, s, id, 1, 9, state)
			found++
		case len(ids) == 0:
			if i == len(images)-1 {
				t.Fatal("the snapshot is gone after a crash once Close returned")
			}
		default:
			t.Fatalf("crash at %s: list %v", at[i], ids)
		}
		es, err := img.ReadDir(filepath.Join(raftDir, snapDirName))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if strings.HasSuffix(e.Name(), snapTmpSuffix) {
				t.Fatalf("crash at %s: reopening left %s", at[i], e.Name())
			}
		}
	}
	if found == 0 {
		t.Fatal("no crash image held the snapshot")
	}
	t.Logf("%d crash images, %d with the snapshot", len(images), found)
}

// snapMarkerState is a state holding marker many times over.
func snapMarkerState(marker string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 100000; i++ {
		fmt.Fprintf(&b, "%s-%d;", marker, i)
	}
	return b.Bytes()
}

// rawFilesHolding lists the files under dir on fsys (read as stored)
// that hold marker.
func rawFilesHolding(t *testing.T, fsys vfs.FS, dir, marker string) (files, holding []string) {
	t.Helper()
	es, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			f, h := rawFilesHolding(t, fsys, p, marker)
			files, holding = append(files, f...), append(holding, h...)
			continue
		}
		b, err := vfs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		if bytes.Contains(b, []byte(marker)) {
			holding = append(holding, p)
		}
	}
	return files, holding
}

// TestSnapshotStoreEncrypted: over cryptfs, neither state.bin nor
// meta.json holds the state in clear, and the snapshot reads back.
func TestSnapshotStoreEncrypted(t *testing.T) {
	t.Parallel()
	const marker = "snapshot-plaintext-marker"
	m := vfs.NewMem()
	key := bytes.Repeat([]byte{7}, 32)
	if _, err := vfs.MkdirAllSync(m, "/d"); err != nil {
		t.Fatal(err)
	}
	ring, err := cryptfs.CreateKeyring(m, "/d", key)
	if err != nil {
		t.Fatal(err)
	}
	cfs := cryptfs.New(m, ring, cryptfs.KeyringFile)
	store, err := OpenSnapshotStore(cfs, "/d/raft", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := snapMarkerState(marker)
	id := writeSnap(t, store, 1, 5, state)
	files, holding := rawFilesHolding(t, m, "/d/raft/snapshots", marker)
	if len(files) != 2 || len(holding) != 0 {
		t.Fatalf("snapshot files %v; in clear: %v", files, holding)
	}
	if b, _ := vfs.ReadFile(m, filepath.Join("/d/raft/snapshots", id, snapMetaName)); bytes.Contains(b, []byte(`"Index"`)) {
		t.Fatal("meta.json is in clear")
	}
	readSnap(t, store, id, 1, 5, state)
}

// TestEncryptDataDirSnapshots: quiver encrypt (engine.EncryptDataDir)
// encrypts the snapshots a member wrote with hashicorp's store before the
// upgrade, and our store reads them back through the encrypting FS.
func TestEncryptDataDirSnapshots(t *testing.T) {
	t.Parallel()
	const marker = "snapshot-plaintext-marker"
	dir := t.TempDir()
	raftDir := filepath.Join(dir, RaftDirName)
	theirs, err := raft.NewFileSnapshotStore(raftDir, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	state := snapMarkerState(marker)
	id := writeSnap(t, theirs, 2, 30, state)
	key := bytes.Repeat([]byte{9}, 32)
	n, err := engine.EncryptDataDir(dir, key, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	files, holding := rawFilesHolding(t, vfs.Default, filepath.Join(raftDir, snapDirName), marker)
	if n < 2 || len(files) != 2 || len(holding) != 0 {
		t.Fatalf("encrypted %d files; snapshot files %v; in clear: %v", n, files, holding)
	}
	ring, err := cryptfs.LoadKeyring(vfs.Default, dir, key)
	if err != nil {
		t.Fatal(err)
	}
	cfs := cryptfs.New(vfs.Default, ring, storage.DataDirLockName, cryptfs.KeyringFile)
	ours, err := OpenSnapshotStore(cfs, raftDir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, ours); len(ids) != 1 || ids[0] != id {
		t.Fatalf("list %v, want [%s]", ids, id)
	}
	readSnap(t, ours, id, 2, 30, state)
}
