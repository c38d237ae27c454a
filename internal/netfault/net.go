package netfault

import (
	"errors"
	"fmt"
)

// Net is a full mesh of links among n members: member i reaches member j
// through Link(i, j), whose address is Addr(i, j), and which forwards to
// member j's real address (SetTarget).
type Net struct {
	links [][]*Link // links[i][j]; nil when i == j
}

// NewNet starts the n·(n−1) links of n members, with no targets yet:
// connections wait until SetTarget names their member's address.
func NewNet(n int) (*Net, error) {
	if n < 2 {
		return nil, fmt.Errorf("netfault: a net needs two members or more, not %d", n)
	}
	nt := &Net{links: make([][]*Link, n)}
	for i := range n {
		nt.links[i] = make([]*Link, n)
		for j := range n {
			if i == j {
				continue
			}
			l, err := Listen("")
			if err != nil {
				nt.Close()
				return nil, err
			}
			nt.links[i][j] = l
		}
	}
	return nt, nil
}

// N is the number of members.
func (nt *Net) N() int { return len(nt.links) }

// Link is the link member i uses to reach member j.
func (nt *Net) Link(i, j int) *Link {
	if i == j {
		panic(fmt.Sprintf("BUG: netfault: no link from member %d to itself", i))
	}
	return nt.links[i][j]
}

// Addr is the address member i must use for member j.
func (nt *Net) Addr(i, j int) string { return nt.Link(i, j).Addr() }

// Peers is the address member i must use for each member, its own being
// self (member i's real address, which no link stands for).
func (nt *Net) Peers(i int, self string) []string {
	out := make([]string, nt.N())
	for j := range out {
		if j == i {
			out[j] = self
		} else {
			out[j] = nt.Addr(i, j)
		}
	}
	return out
}

// SetTarget points every link into member j at addr, j's real address;
// call it again when j restarts on another port.
func (nt *Net) SetTarget(j int, addr string) {
	for i := range nt.links {
		if i != j {
			nt.links[i][j].SetTarget(addr)
		}
	}
}

// Partition splits the members into groups with black holes, the way a
// real partition looks: links within a group pass, links between groups
// are cut both ways. A member named in no group is alone in its own.
// It replaces whatever cuts were in place.
func (nt *Net) Partition(groups ...[]int) { nt.PartitionWith(Blackhole, groups...) }

// PartitionWith is Partition with the cut's mode.
func (nt *Net) PartitionWith(m Mode, groups ...[]int) {
	group := make([]int, nt.N())
	for i := range group {
		group[i] = -1 - i // alone, unless named
	}
	for g, members := range groups {
		for _, i := range members {
			if i < 0 || i >= nt.N() {
				panic(fmt.Sprintf("BUG: netfault: member %d of %d", i, nt.N()))
			}
			group[i] = g
		}
	}
	for i := range nt.links {
		for j, l := range nt.links[i] {
			switch {
			case l == nil:
			case group[i] == group[j]:
				l.Heal()
			default:
				l.Cut(m)
			}
		}
	}
}

// Isolate cuts member i from every other member both ways with black
// holes, and heals every other link.
func (nt *Net) Isolate(i int) { nt.PartitionWith(Blackhole, []int{i}, nt.others(i)) }

// IsolateWith is Isolate with the cut's mode.
func (nt *Net) IsolateWith(m Mode, i int) { nt.PartitionWith(m, []int{i}, nt.others(i)) }

func (nt *Net) others(i int) []int {
	var rest []int
	for j := range nt.N() {
		if j != i {
			rest = append(rest, j)
		}
	}
	return rest
}

// HealAll heals every link.
func (nt *Net) HealAll() {
	for _, row := range nt.links {
		for _, l := range row {
			if l != nil {
				l.Heal()
			}
		}
	}
}

// Close closes every link.
func (nt *Net) Close() error {
	var errs []error
	for _, row := range nt.links {
		for _, l := range row {
			if l != nil {
				errs = append(errs, l.Close())
			}
		}
	}
	return errors.Join(errs...)
}
