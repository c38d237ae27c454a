package auth

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
)

// TestAuditPowerLoss cuts the power under the audit trail, as
// engine.TestPowerLoss does under the database: events are audited one
// after the other into files of 1 KiB (so audit.log is rotated every few
// events), and before every sync, and at random operations between
// syncs, the image a power cut leaves (strict, or torn: some unsynced
// writes and directory changes survive) is reopened. The trail must open,
// and its files must hold events 1..k exactly once each, k at least the
// events whose Audit had returned and at most those begun; reopened, it
// goes on at k+1. QUIVER_POWERLOSS_WORKLOADS=n runs n seeds of 600 events
// (make powerloss-long), QUIVER_POWERLOSS_SEED=n reruns one.
func TestAuditPowerLoss(t *testing.T) {
	auditPowerLoss(t, func(m *vfs.MemFS) vfs.FS { return m })
}

// TestAuditPowerLossEncrypted runs it on encrypted files: cryptfs over
// the MemFS, a new one for every image (a restart).
func TestAuditPowerLossEncrypted(t *testing.T) {
	key := cryptfs.StaticKey(bytes.Repeat([]byte{0x3c}, 32))
	auditPowerLoss(t, func(m *vfs.MemFS) vfs.FS { return cryptfs.New(m, key) })
}

func auditPowerLoss(t *testing.T, wrap func(*vfs.MemFS) vfs.FS) {
	workloads, events, between := 1, 150, 4
	if s := os.Getenv("QUIVER_POWERLOSS_WORKLOADS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("QUIVER_POWERLOSS_WORKLOADS=%q: want a positive number", s)
		}
		workloads, events, between = n, 600, 2
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("QUIVER_POWERLOSS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("QUIVER_POWERLOSS_SEED=%q: %v", s, err)
		}
		seed, workloads = n, 1
	}
	const dir = "/data/db"
	var cuts atomic.Int64
	for w := range workloads {
		s := seed + uint64(w)
		rng := rand.New(rand.NewPCG(s, 11))
		var started, acked atomic.Int64
		var failed atomic.Bool
		check := func(op vfs.Op, img *vfs.MemFS, torn bool) {
			cuts.Add(1)
			lo, hi := acked.Load(), started.Load()
			fail := func(format string, args ...any) {
				failed.Store(true)
				t.Errorf("seed %d, cut before %v (torn %v), %d events acknowledged, %d begun: %s", s, op, torn, lo, hi, fmt.Sprintf(format, args...))
			}
			ids, err := auditTrailIDs(wrap(img), filepath.Join(dir, "audit"))
			if err != nil {
				fail("%v", err)
				return
			}
			k := int64(len(ids))
			for i, id := range ids {
				if id != int64(i+1) {
					fail("the files hold events %v, want 1..%d once each", ids, k)
					return
				}
			}
			if k < lo || k > hi {
				fail("the files hold events 1..%d", k)
				return
			}
			l, err := OpenAuditLog(dir, AuditOptions{FS: wrap(img), MaxFileBytes: 1 << 10, Logger: (&auditLogSink{}).logger()})
			if err != nil {
				fail("the trail does not open: %v", err)
				return
			}
			l.Audit(testAuditEvent(-1))
			recent := l.Recent(1)
			l.Close()
			if len(recent) != 1 || recent[0].ID != k+1 || l.Failures() != 0 {
				fail("reopened, the next event is %v (failures %d), want id %d", auditIDs(recent), l.Failures(), k+1)
			}
		}
		m := vfs.NewMem()
		l, err := OpenAuditLog(dir, AuditOptions{FS: wrap(m), MaxFileBytes: 1 << 10, Now: newAuditClock().Now, Logger: (&auditLogSink{}).logger()})
		if err != nil {
			t.Fatal(err)
		}
		m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
			if failed.Load() {
				return
			}
			switch {
			case op.Kind.IsSync():
				check(op, crash(nil), false)
				if rng.IntN(3) == 0 {
					check(op, crash(rng), true)
				}
			case rng.IntN(between) == 0:
				check(op, crash(rng), true)
			}
		})
		for i := range events {
			if failed.Load() {
				break
			}
			started.Add(1)
			l.Audit(testAuditEvent(i))
			acked.Add(1)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		m.SetHook(nil)
		if l.Failures() != 0 {
			t.Fatalf("%d events failed to reach the disk", l.Failures())
		}
		if failed.Load() {
			t.Logf("rerun with QUIVER_POWERLOSS_SEED=%d", s)
			return
		}
	}
	t.Logf("seed %d: %d workloads of %d events, %d power cuts", seed, workloads, events, cuts.Load())
}

// auditTrailIDs reads the event ids of every file of the trail in dir,
// sorted; a torn last line of audit.log (without its newline) is not an
// event.
func auditTrailIDs(fsys vfs.FS, dir string) ([]int64, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var ids []int64
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "audit") || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		b, err := vfs.ReadFile(fsys, filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		} else {
			b = nil
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}) {
			if len(line) == 0 {
				continue
			}
			r, err := parseAuditRecord(line)
			if err != nil {
				return nil, err
			}
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
