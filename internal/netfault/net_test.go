package netfault

import (
	"fmt"
	"net"
	"testing"
)

// mesh starts three echo members behind a Net and opens, for every
// directed pair, a connection from i to j through its link.
func mesh(t *testing.T) (*Net, [][]net.Conn) {
	t.Helper()
	nt, err := NewNet(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nt.Close() })
	for j := range nt.N() {
		nt.SetTarget(j, newTarget(t).addr())
	}
	conns := make([][]net.Conn, nt.N())
	for i := range conns {
		conns[i] = make([]net.Conn, nt.N())
		for j := range conns[i] {
			if i != j {
				conns[i][j] = dial(t, nt.Addr(i, j))
				roundTrip(t, conns[i][j], "0")
			}
		}
	}
	return nt, conns
}

// expectCut writes one byte from i to j and checks that the link holds
// it; expectPass checks that it crosses and comes back.
func expectCut(t *testing.T, nt *Net, conns [][]net.Conn, i, j int) {
	t.Helper()
	before := nt.Link(i, j).Stats()
	if _, err := conns[i][j].Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("link %d→%d to hold the byte", i, j), func() bool { return nt.Link(i, j).Stats().Held == before.Held+1 })
	if s := nt.Link(i, j).Stats(); s.Up != before.Up {
		t.Fatalf("link %d→%d is cut and forwarded %d bytes", i, j, s.Up-before.Up)
	}
}

func expectPass(t *testing.T, conns [][]net.Conn, i, j int, msg string) {
	t.Helper()
	roundTrip(t, conns[i][j], msg)
}

func TestNetAddresses(t *testing.T) {
	nt, _ := mesh(t)
	seen := map[string]bool{}
	for i := range 3 {
		peers := nt.Peers(i, "self")
		for j, a := range peers {
			if i == j {
				if a != "self" {
					t.Fatalf("member %d's own address %q", i, a)
				}
				continue
			}
			if a != nt.Addr(i, j) || seen[a] {
				t.Fatalf("member %d's address for %d is %q (seen %v)", i, j, a, seen[a])
			}
			seen[a] = true
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d links for three members, want 6", len(seen))
	}
	if _, err := NewNet(1); err == nil {
		t.Fatal("a net of one member")
	}
}

func TestNetPartitionAndHeal(t *testing.T) {
	nt, conns := mesh(t)
	nt.Partition([]int{0, 1}, []int{2})
	expectPass(t, conns, 0, 1, "a")
	expectPass(t, conns, 1, 0, "a")
	for _, k := range []int{0, 1} {
		expectCut(t, nt, conns, k, 2)
		expectCut(t, nt, conns, 2, k)
	}
	nt.HealAll()
	// The held bytes arrive on the same connections, which stayed open.
	for _, p := range [][2]int{{0, 2}, {2, 0}, {1, 2}, {2, 1}} {
		expectRead(t, conns[p[0]][p[1]], "c")
		expectPass(t, conns, p[0], p[1], "h")
	}
}

func TestNetIsolate(t *testing.T) {
	nt, conns := mesh(t)
	nt.Isolate(1)
	expectPass(t, conns, 0, 2, "a")
	expectPass(t, conns, 2, 0, "a")
	for _, k := range []int{0, 2} {
		expectCut(t, nt, conns, 1, k)
		expectCut(t, nt, conns, k, 1)
	}
	// A new partition replaces the old one: member 1 rejoins, 0 leaves.
	nt.Isolate(0)
	for _, p := range [][2]int{{1, 0}, {0, 1}} {
		if s := nt.Link(p[0], p[1]).Stats(); s.Held != 1 {
			t.Fatalf("link %d→%d: %+v", p[0], p[1], s)
		}
	}
	expectRead(t, conns[1][2], "c")
	expectRead(t, conns[2][1], "c")
	expectPass(t, conns, 1, 2, "b")
	expectCut(t, nt, conns, 2, 0)
	nt.HealAll()
	expectRead(t, conns[2][0], "c")
}

func TestNetIsolateWithDrop(t *testing.T) {
	nt, conns := mesh(t)
	nt.IsolateWith(Drop, 2)
	for _, k := range []int{0, 1} {
		expectReset(t, conns[2][k])
		expectReset(t, conns[k][2])
		expectRefused(t, nt.Addr(k, 2))
	}
	expectPass(t, conns, 0, 1, "a")
	nt.HealAll()
	roundTrip(t, dial(t, nt.Addr(0, 2)), "b")
	roundTrip(t, dial(t, nt.Addr(2, 0)), "b")
}
