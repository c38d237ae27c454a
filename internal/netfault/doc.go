// Package netfault is test support for the cluster tests: a TCP proxy per
// directed link between members (Link), which the test can cut and heal,
// and a full mesh of them for N members (Net) with partitions, isolation
// and healing.
//
// Member i reaches member j only through the link (i→j): member i is
// configured with Net.Addr(i, j) as j's address, and the link forwards to
// j's real address (Net.SetTarget). A link carries the connections i opens
// to j in both directions; j's connections to i go through (j→i), so a
// partition between two members cuts both links.
//
// A cut link either drops (Drop: its connections are reset, new ones are
// accepted and reset at once) or black-holes (Blackhole: connections stay
// open and nothing crosses; bytes already read are held and delivered on
// Heal, as TCP would retransmit them once a real partition heals). A
// black hole is what a partition looks like to a Raft timeout; a drop is
// what a crashed peer's host looks like.
//
// It is for tests only: only _test.go files may import it, and it
// imports nothing but the standard library (layers_test.go checks both).
package netfault
